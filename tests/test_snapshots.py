"""The suite's own ways to a tree: each gives what loading the tree's fixture leaves.

The curriculum and the small tree are loaded once per session and written back into each
test (tests/snapshots.py); large trees are written in bulk (``tests.helpers.build_tree``).
"""

import pytest
from django.core.management import call_command
from django.db import connection

from chapters.models import Link, Node, WikiVersion
from tests.helpers import SMALL_TREE, build_tree
from tests.snapshots import chapters_models


def stored_rows():
    """Return every row of the snapshot's tables, by model name, as comparable tuples.

    Left out: the keys the database numbers (of revisions and links), which depend on what
    its sequences counted before, and the time of the wiki's version, which is the time of
    the load.
    """
    numbered = {Node.history.model, Link}
    rows = {}
    for model in chapters_models():
        fields = [
            f.attname
            for f in model._meta.concrete_fields
            if not (f.primary_key and model in numbered) and f.attname != "changed"
        ]
        rows[model.__name__] = sorted(
            model._base_manager.values_list(*fields), key=lambda row: [str(v) for v in row]
        )
    return rows


def empty_tables():
    """Delete every row of the snapshot's tables, and put back the version migration 0010
    writes, as in the migrated database."""
    with connection.cursor() as cursor:
        for model in chapters_models():  # the version last: deleting nodes bumps it
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")
    WikiVersion.objects.create(pk=1, number=0)


@pytest.mark.django_db
def test_curriculum_fixture_gives_what_loaddata_leaves(curriculum_snapshot):
    call_command("loaddata", "curriculum", verbosity=0)
    loaded = stored_rows()
    assert len(loaded["Node"]) == len(loaded["HistoricalNode"]) == 222
    empty_tables()
    curriculum_snapshot.restore()
    assert stored_rows() == loaded


@pytest.mark.django_db
def test_small_tree_fixture_gives_what_loading_its_outline_leaves(small_tree, load_outline):
    restored = stored_rows()
    assert len(restored["Node"]) == 11
    empty_tables()
    load_outline(SMALL_TREE)
    assert stored_rows() == restored


@pytest.mark.django_db
def test_tests_without_a_tree_see_none():
    assert (Node.objects.count(), Node.history.count(), Link.objects.count()) == (0, 0, 0)


@pytest.mark.django_db
def test_a_node_added_after_the_curriculum_gets_a_new_key(curriculum):
    area = Node.objects.create(title="New area", kind=Node.Kind.SECTION)
    assert area.pk > max(Node.objects.exclude(pk=area.pk).values_list("pk", flat=True))
    assert Node.history.filter(id=area.pk).count() == 1


@pytest.mark.django_db
def test_build_tree_writes_what_loading_the_outline_leaves(load_outline):
    load_outline(SMALL_TREE)
    loaded = stored_rows()
    empty_tables()
    assert build_tree(SMALL_TREE) == 11
    built = stored_rows()
    assert built.pop("WikiVersion") != loaded.pop("WikiVersion")  # triggers count writes
    assert built == loaded
