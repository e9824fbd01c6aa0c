"""The curriculum fixture: made by the outline script, loads cleanly, refuses broken files."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.serializers.base import DeserializationError
from django.db import IntegrityError

from chapters.management.commands.build_curriculum_fixture import render_fixture
from chapters.models import EditDraft, Node, PendingChange
from chapters.outline import OutlineError, build_fixture, parse_outline
from tests.helpers import SMALL_TREE, role_user, tree_table

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
SEED_PAGE = Path(__file__).parent / "data" / "seed-page.txt"


def tree_fields():
    """Return every node's tree and derived fields, in tree order."""
    return list(
        Node.objects.values_list("pk", "parent_id", "tree_id", "lft", "rght", "level", "path")
    )


def test_fixture_is_what_the_outline_script_makes():
    committed = (FIXTURES / "curriculum.json").read_text(encoding="utf-8")
    assert committed == render_fixture(FIXTURES / "curriculum-outline.txt")


def test_fixture_check_command_passes_for_the_committed_fixture(capsys):
    call_command("build_curriculum_fixture", "--check")
    assert "is up to date" in capsys.readouterr().out


def test_fixture_check_command_fails_for_a_stale_fixture(tmp_path):
    stale = tmp_path / "curriculum.json"
    stale.write_text("[]\n", encoding="utf-8")
    with pytest.raises(CommandError, match="is out of date"):
        call_command("build_curriculum_fixture", "--check", "--output", str(stale))


def test_outline_titles_are_the_seed_pages_table_of_contents_in_order():
    seed_toc = SEED_PAGE.read_text(encoding="utf-8").split("All chapters", 1)[1].strip()
    outline = parse_outline((FIXTURES / "curriculum-outline.txt").read_text(encoding="utf-8"))
    assert "".join(title for _, title in outline) == seed_toc
    assert len(outline) == 222


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Area\n   Odd indent\n", "line 2: indent with two spaces per level"),
        ("Area\n    Skipped a level\n", "line 2: indented more than one level"),
        ("  Starts indented\n", "line 1: indented more than one level"),
    ],
)
def test_outline_parser_names_the_bad_line(text, message):
    with pytest.raises(OutlineError, match=message):
        parse_outline(text)


@pytest.mark.django_db
def test_fixture_loads_a_valid_tree_and_loading_again_changes_nothing(curriculum):
    loaded = tree_fields()
    assert len(loaded) == 222
    Node.objects.rebuild()
    assert tree_fields() == loaded
    call_command("loaddata", "curriculum", verbosity=0)
    assert tree_fields() == loaded
    assert Node.objects.count() == 222


@pytest.mark.django_db
def test_fixture_sets_derived_fields_and_keeps_the_updated_date(curriculum):
    chapter = Node.objects.get(title="Graph Optimization and Kernel Fusion")
    assert chapter.path == "ml-systems/ml-compilers/graph-optimization-and-kernel-fusion"
    assert chapter.body_html == "<p>This chapter is currently a scaffold.</p>"
    assert chapter.body_text == "This chapter is currently a scaffold."
    assert chapter.updated.isoformat() == "2026-08-09T12:00:00+00:00"
    assert (chapter.kind, chapter.status) == ("chapter", "draft")


@pytest.mark.django_db
def test_fixture_replaces_derived_fields_a_fixture_supplies(tmp_path, small_tree):
    hostile = [
        {
            "model": "chapters.node",
            "pk": 3,
            "fields": {
                "title": "Chapter One",
                "slug": "chapter-one",
                "kind": "chapter",
                "status": "draft",
                "parent": 2,
                "body": "## Safe",
                "body_html": "<script>alert(1)</script>",
                "body_text": "<script>alert(1)</script>",
                "headings": [{"level": 2, "id": '" onmouseover="alert(1)', "title": "<script>"}],
                "path": "elsewhere",
                "updated": "2026-08-09T12:00:00Z",
                "lft": 3,
                "rght": 4,
                "tree_id": 1,
                "level": 2,
            },
        }
    ]
    fixture = tmp_path / "hostile.json"
    fixture.write_text(json.dumps(hostile), encoding="utf-8")
    call_command("loaddata", str(fixture), verbosity=0)
    chapter = Node.objects.get(pk=3)
    assert (chapter.path, chapter.body_html, chapter.body_text, chapter.headings) == (
        "area-a/section-a1/chapter-one",
        '<h2 id="safe">Safe<a class="headerlink" href="#safe" title="Link to this heading">'
        "&para;</a></h2>",
        "Safe",
        [{"level": 2, "id": "safe", "title": "Safe"}],
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (
            '[{"model": "chapters.node", "pk": 1, "fields": {',
            DeserializationError,
            "Problem installing fixture '.*broken.json'",
        ),
        (
            json.dumps(
                [
                    {
                        "model": "chapters.node",
                        "pk": 900,
                        "fields": {
                            "title": "Orphan",
                            "slug": "orphan",
                            "kind": "chapter",
                            "parent": 999,
                            "updated": "2026-08-09T12:00:00Z",
                            "lft": 1,
                            "rght": 2,
                            "tree_id": 9,
                            "level": 1,
                        },
                    }
                ]
            ),
            IntegrityError,
            r"(?s)Problem installing fixtures: .*\b999\b",
        ),
    ],
    ids=["bad-json", "missing-parent"],
)
def test_broken_fixture_fails_clearly_and_leaves_the_database_as_it_was(
    tmp_path, curriculum, content, error, message
):
    before = tree_table()
    broken = tmp_path / "broken.json"
    broken.write_text(content, encoding="utf-8")
    with pytest.raises(error, match=message) as raised:
        call_command("loaddata", str(broken), verbosity=0)
    if error is DeserializationError:
        assert isinstance(raised.value.__cause__, json.JSONDecodeError)
    assert tree_table() == before


def write_fixture(tmp_path, rows):
    """Write ``rows`` as a fixture file; return its path as a string."""
    fixture = tmp_path / "rows.json"
    fixture.write_text(json.dumps(rows), encoding="utf-8")
    return str(fixture)


def row(pk, title, parent, kind="section", slug=None, tree=(1, 1, 2, 0)):
    """Return one fixture row of ``chapters.node``; ``tree`` is (tree_id, lft, rght, level)."""
    tree_id, lft, rght, level = tree
    return {
        "model": "chapters.node",
        "pk": pk,
        "fields": {
            "title": title,
            "slug": slug if slug is not None else title.lower().replace(" ", "-"),
            "kind": kind,
            "status": "draft",
            "parent": parent,
            "body": "",
            "updated": "2026-08-09T12:00:00Z",
            "lft": lft,
            "rght": rght,
            "tree_id": tree_id,
            "level": level,
        },
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [row(1, "Area", None, tree=(1, 1, 4, 0)), row(2, "Loop", 2, tree=(1, 2, 3, 1))],
            "“Loop” (pk 2) is its own ancestor",
        ),
        (
            [row(1, "Area", None, tree=(1, 1, 4, 0)), row(2, "Sec", 1, tree=(2, 2, 3, 1))],
            "tree fields do not match the parents",
        ),
        (
            [
                row(1, "Area", None, tree=(1, 1, 6, 0)),
                row(2, "Chap", 1, kind="chapter", tree=(1, 2, 5, 1)),
                row(3, "Sub", 2, kind="chapter", tree=(1, 3, 4, 2)),
            ],
            "“Sub” (pk 3): “Chap” is a chapter; chapters cannot have children.",
        ),
        (
            [row(1, "Loose", None, kind="chapter")],
            "“Loose” (pk 1): A chapter must belong to a section.",
        ),
        ([row(1, "Admin", None)], "“Admin” (pk 1): “admin” is reserved for the site's own URLs."),
        (
            [row(1, "Blank", None, slug="")],
            "“Blank” (pk 1): the slug “” is not a slug (letters, digits, “-” or “_”).",
        ),
        (
            [row(1, "Slash", None, slug="a/b")],
            "“Slash” (pk 1): the slug “a/b” is not a slug (letters, digits, “-” or “_”).",
        ),
        (
            [row(1, "Odd", None, kind="bogus")],
            "“Odd” (pk 1): the kind “bogus” is not one of section, chapter.",
        ),
    ],
    ids=[
        "cycle",
        "tree-fields",
        "chapter-under-chapter",
        "root-chapter",
        "reserved",
        "blank-slug",
        "slash-slug",
        "bad-kind",
    ],
)
def test_fixture_with_a_broken_tree_fails_clearly_and_changes_nothing(
    tmp_path, small_tree, rows, message
):
    for each in rows:
        each["pk"] += 100
        if each["fields"]["parent"]:
            each["fields"]["parent"] += 100
        each["fields"]["tree_id"] += 2
    message = (
        message.replace("pk 1)", "pk 101)").replace("pk 2)", "pk 102)").replace("pk 3)", "pk 103)")
    )
    before = tree_table()
    with pytest.raises(CommandError) as error:
        call_command("loaddata", write_fixture(tmp_path, rows), verbosity=0)
    assert message in str(error.value)
    assert tree_table() == before


@pytest.mark.django_db(transaction=True)
def test_fixture_reload_after_an_editor_added_a_node_fails_and_keeps_the_edit(
    load_outline, small_tree
):
    Node.objects.create(title="Added", parent=Node.objects.get(title="Section A1"))
    before = tree_table()
    with pytest.raises(CommandError, match="tree fields do not match the parents"):
        load_outline(SMALL_TREE)
    assert tree_table() == before


@pytest.mark.django_db(transaction=True)
def test_fixture_with_a_body_too_deep_to_render_fails_clearly(tmp_path, small_tree):
    deep = row(100, "Deep", None, tree=(10, 1, 2, 0))
    deep["fields"]["body"] = "- " * 1000 + "x"
    before = tree_table()
    with pytest.raises(
        CommandError, match="Line 1 nests 1,000 lists, quotes or indents; at most 32 are allowed."
    ):
        call_command("loaddata", write_fixture(tmp_path, [deep]), verbosity=0)
    assert tree_table() == before


def test_outline_deeper_than_three_levels_is_refused():
    with pytest.raises(OutlineError, match="line 4: deeper than area > section > chapter"):
        parse_outline("Area\n  Section\n    Chapter\n      Sub\n")


def test_fixture_gives_a_top_level_node_with_a_reserved_title_another_slug():
    rows = build_fixture(parse_outline("Admin\n  Static\n"))
    assert [r["fields"]["slug"] for r in rows] == ["admin-2", "static"]


@pytest.mark.django_db
def test_fixture_loads_after_an_editor_deleted_an_area(tmp_path, small_tree):
    Node.objects.get(title="Area A").delete()
    call_command("loaddata", write_fixture(tmp_path, [row(100, "Area C", None, tree=(3, 1, 2, 0))]))
    assert tree_table() == (
        "Area B [section] area-b\n"
        "  Section B1 [section] area-b/section-b1\n"
        "    Chapter Five [chapter] area-b/section-b1/chapter-five\n"
        "    Chapter Six [chapter] area-b/section-b1/chapter-six\n"
        "Area C [section] area-c"
    )
    assert Node.objects.check_tree() == []


@pytest.mark.django_db(transaction=True)
def test_fixture_rows_are_checked_as_a_curriculum_file_is_and_all_problems_named(
    tmp_path, small_tree
):
    bad_status = row(101, "Typo", None, tree=(10, 1, 2, 0))
    bad_status["fields"]["status"] = "publishd"
    naive = row(102, "Naive", None, tree=(11, 1, 2, 0))
    naive["fields"]["updated"] = "2026-08-09T12:00:00"
    blank = row(103, "   ", None, slug="blank", tree=(12, 1, 2, 0))
    long_title = row(104, "T" * 201, None, slug="long", tree=(13, 1, 2, 0))
    before = tree_table()
    with pytest.raises(CommandError) as error:
        call_command(
            "loaddata", write_fixture(tmp_path, [bad_status, naive, blank, long_title]), verbosity=0
        )
    assert str(error.value) == (
        "The fixture has rows that cannot be loaded, so nothing was loaded:\n"
        "- “Typo” (pk 101): the status “publishd” is not one of draft, review, published.\n"
        "- “Naive” (pk 102): “updated” “2026-08-09T12:00:00” has no timezone (end it with Z "
        "or +00:00).\n"
        "- “   ” (pk 103): the title is blank.\n"
        f"- “{'T' * 60}” (pk 104): the title is 201 characters long; the limit is 200."
    )
    assert tree_table() == before


@pytest.mark.django_db(transaction=True)
def test_fixture_refuses_pending_changes_and_drafts_whose_choices_are_not_choices(
    client, tmp_path, small_tree
):
    author, page = role_user("ed", "Editor"), Node.objects.get(title="Chapter One")
    change = {
        "node": page.pk, "author": author.pk, "state": "pending", "title": "T",
        "status": "publishd", "parent": page.parent_id, "body": "x", "summary": "",
        "base_revision": 1, "updated": "2026-01-01T00:00:00Z",
    }  # fmt: skip
    rows = [
        {"model": "chapters.pendingchange", "pk": 1, "fields": change},
        {"model": "chapters.pendingchange", "pk": 2, "fields": {**change, "status": "draft"}},
        {
            "model": "chapters.pendingchange",
            "pk": 3,
            "fields": {**change, "state": "done", "status": "draft"},
        },
        {
            "model": "chapters.editdraft",
            "pk": 1,
            "fields": {"user": author.pk, "node": page.pk, "status": "live"},
        },
    ]

    with pytest.raises(CommandError) as error:
        call_command("loaddata", write_fixture(tmp_path, rows), verbosity=0)

    assert str(error.value) == (
        "The fixture has rows that cannot be loaded, so nothing was loaded:\n"
        "- pending change (pk 1): the status “publishd” is not one of draft, review, "
        "published.\n"
        "- pending change (pk 3): the state “done” is not one of pending, approved, "
        "sent_back.\n"
        "- edit draft (pk 1): the status “live” is not one of draft, review, published."
    )
    assert (PendingChange.objects.count(), EditDraft.objects.count()) == (0, 0)
    client.force_login(role_user("rev", "Reviewer"))
    assert client.get("/review/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_fixture_refused_row_named_even_when_its_children_then_fail(tmp_path, small_tree):
    parent = row(101, "Parent", None, tree=(10, 1, 4, 0))
    parent["fields"]["status"] = "done"
    child = row(102, "Child", 101, kind="chapter", tree=(10, 2, 3, 1))
    before = tree_table()
    with pytest.raises(CommandError, match="“Parent” \\(pk 101\\): the status “done” is not one"):
        call_command("loaddata", write_fixture(tmp_path, [parent, child]), verbosity=0)
    assert tree_table() == before


@pytest.mark.django_db(transaction=True)
def test_fixture_refuses_addresses_longer_than_the_column(tmp_path, small_tree):
    slugs = ["a" * 90 + str(level) for level in range(12)]
    rows = [
        row(
            101 + level,
            f"Level {level}",
            100 + level if level else None,
            slug=slug,
            tree=(10, 1 + level, 24 - level, level),
        )
        for level, slug in enumerate(slugs)
    ]
    before = tree_table()
    with pytest.raises(CommandError, match="addresses longer than 1,000 characters") as error:
        call_command("loaddata", write_fixture(tmp_path, rows), verbosity=0)
    assert "- Level 11 (pk 112): /" in str(error.value)
    assert tree_table() == before
