"""The migrations match the models, and fill derived fields of rows already stored."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from chapters.models import Node


@pytest.mark.django_db
def test_migrations_are_up_to_date():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def store_before(migration, **fields):
    """Migrate the database back to ``migration`` and store an area with its model then.

    Args:
        migration: the name of a migration of the chapters app.
        **fields: the area's fields besides its title, slug, path and tree fields (and kind,
            "section" unless given).

    Returns:
        The migration executor, for migrating forward again.
    """
    before = [("chapters", migration)]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_node = executor.loader.project_state(before).apps.get_model("chapters", "Node")
    old_node.objects.create(
        title="Area", slug="area", path="area", lft=1, rght=2, tree_id=1, level=0,
        **{"kind": "section", **fields},
    )  # fmt: skip
    return MigrationExecutor(connection)


def migrate_to_latest():
    """Migrate the database forward to the chapters app's latest migration."""
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("chapters"))


@pytest.mark.django_db(transaction=True)
def test_migration_fills_body_text_of_nodes_saved_before_it():
    executor = store_before(
        "0002_history_and_redirects", body="x", body_html="<p>Kernels &amp; <em>fusion</em></p>"
    )
    after = [("chapters", "0003_node_body_text")]
    executor.migrate(after)
    filled = executor.loader.project_state(after).apps.get_model("chapters", "Node")
    body_text = filled.objects.get(slug="area").body_text
    migrate_to_latest()
    assert body_text == "Kernels & fusion"


@pytest.mark.django_db(transaction=True)
def test_migration_fills_headings_and_leaves_stored_html_alone():
    store_before(
        "0005_links",
        body="## Fusion\n\nCosts $O(n)$.",
        body_html="<h2>Fusion</h2>\n<p>Costs $O(n)$.</p>",
        body_text="Fusion Costs $O(n)$.",
    )
    migrate_to_latest()
    node = Node.objects.get(slug="area")
    assert node.headings == [{"level": 2, "id": "fusion", "title": "Fusion"}]
    assert node.body_html == "<h2>Fusion</h2>\n<p>Costs $O(n)$.</p>"


@pytest.mark.django_db
def test_render_bodies_renders_every_body_with_the_current_pipeline(small_tree, capsys):
    Node.objects.filter(title="Chapter One").update(
        body="Costs $n$, see [[Chapter Two]].", body_html="stale", headings=[]
    )
    call_command("render_bodies")
    assert capsys.readouterr().out == "Rendered 11 bodies again.\n"
    chapter = Node.objects.get(title="Chapter One")
    assert chapter.body_html == (
        '<p>Costs <math alttext="n" display="inline"><mrow><mi>n</mi></mrow></math>, see '
        '<a class="wikilink" href="/area-a/section-a1/chapter-two/">Chapter Two</a>.</p>'
    )
    assert chapter.outgoing_links.get().target.title == "Chapter Two"
    assert Node.history.filter(id=chapter.pk).count() == 1


@pytest.mark.django_db(transaction=True)
def test_migration_puts_a_bad_kind_and_status_right_before_checking_them():
    store_before("0019_notifications", kind="lesson", status="publishd")
    migrate_to_latest()
    assert Node.objects.values_list("kind", "status").get() == ("chapter", "draft")


@pytest.mark.django_db(transaction=True)
def test_migration_of_the_checks_keeps_the_node_table_s_triggers_and_indexes():
    # SQLite makes the table again to add a constraint, which drops what SQL added to it.
    def extras():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = 'chapters_node'::regclass "
                "AND NOT tgisinternal UNION SELECT indexname FROM pg_indexes "
                "WHERE tablename = 'chapters_node'"
                if connection.vendor == "postgresql"
                else "SELECT name FROM sqlite_master WHERE tbl_name = 'chapters_node' "
                "AND type IN ('trigger', 'index')"
            )
            return sorted(name for (name,) in cursor.fetchall())

    latest = extras()
    executor = MigrationExecutor(connection)
    executor.migrate([("chapters", "0019_notifications")])
    # 0029_search adds the triggers of SQLite's chapters_node_text, 0032_search_statistics
    # PostgreSQL's index chapters_node_words, 0034_search_vocabulary the vocabulary's
    # triggers, 0036_search_first_slice PostgreSQL's index chapters_node_title_headings and
    # 0037_spaceless_grams the triggers of SQLite's chapters_node_grams or PostgreSQL's index
    # of that name, which 0019 has not.
    added = [
        name
        for name in latest
        if name.startswith(
            ("chapters_node_text_", "chapters_search_words_", "chapters_node_grams_")
        )
    ]
    if connection.vendor == "postgresql":
        added += ["chapters_node_words", "chapters_node_title_headings", "chapters_node_grams"]
    assert extras() == [name for name in latest if name not in added]
    migrate_to_latest()
    assert extras() == latest
    bumps = (
        "chapters_node_bumps_version"
        if connection.vendor == "postgresql"
        else "chapters_node_update_bumps_version"
    )
    assert bumps in latest


@pytest.mark.django_db(transaction=True)
def test_migration_fills_the_vocabulary_and_is_undone():
    store_before(
        "0033_identifier_parts",
        headings=[{"id": "why", "title": "Why fuse", "level": 2}],
        body_text="Why fuse\nFused kernels save a launch: see os.path.join.",
    )
    migrate_to_latest()
    from chapters.models import Word

    assert sorted(Word.objects.values_list("word", "documents", "titles")) == [
        ("a", 1, 0),
        ("area", 1, 1),
        ("fuse", 1, 0),
        ("fused", 1, 0),
        ("join", 1, 0),
        ("kernels", 1, 0),
        ("launch", 1, 0),
        ("os", 1, 0),
        ("path", 1, 0),
        ("save", 1, 0),
        ("see", 1, 0),
        ("why", 1, 0),
    ]
    executor = MigrationExecutor(connection)
    executor.migrate([("chapters", "0033_identifier_parts")])
    assert "chapters_search_word" not in connection.introspection.table_names()
    migrate_to_latest()
    assert Word.objects.count() == 12


@pytest.mark.django_db(transaction=True)
def test_migration_fills_the_grams_its_index_finds_and_is_undone():
    store_before("0036_search_first_slice", body_text="张量并行 splits the weights; ภาษาไทย too.")
    migrate_to_latest()
    from chapters.search import find_nodes

    assert Node.objects.get(slug="area").grams == (
        "ท ทย ภ ภา ย ษ ษา า าษ าไ ไ ไท 并 并行 张 张量 行 量 量并"
    )
    assert [node.title for node in find_nodes("量并")] == ["Area"]
    assert [node.title for node in find_nodes("ไท")] == ["Area"]
    assert [node.title for node in find_nodes("并张")] == []
    executor = MigrationExecutor(connection)
    executor.migrate([("chapters", "0036_search_first_slice")])
    assert "chapters_node_grams" not in connection.introspection.table_names()
    migrate_to_latest()
    assert [node.title for node in find_nodes("张")] == ["Area"]
