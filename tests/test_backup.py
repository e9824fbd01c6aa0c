"""Backups: a dumpdata/loaddata round trip, and restoring an export into an empty database."""

import pytest
from django.core.management import call_command

from chapters.models import Node
from tests.helpers import tree_table


def tree_rows():
    """Return every node's parent, tree fields and path, in tree order, by path."""
    parents = dict(Node.objects.values_list("pk", "path"))
    return [
        (parents.get(parent_id), tree_id, lft, rght, level, path)
        for parent_id, tree_id, lft, rght, level, path in Node.objects.values_list(
            "parent_id", "tree_id", "lft", "rght", "level", "path"
        )
    ]


@pytest.mark.django_db
def test_dumpdata_backup_after_areas_were_deleted_and_moved_loads_into_an_empty_database(
    tmp_path, curriculum
):
    Node.objects.get(path="mathematics").delete()
    Node.objects.move_node(
        Node.objects.get(path="systems"), Node.objects.get(path="computer-science")
    )
    assert sorted(set(Node.objects.values_list("tree_id", flat=True))) == [2, 4, 5, 6, 7, 8]
    assert Node.objects.filter(path__startswith="computer-science/systems/").count() == 41
    backup = tmp_path / "backup.json"
    call_command("dumpdata", "chapters.node", output=str(backup), verbosity=0)
    before, rows = tree_table(), tree_rows()
    Node.objects.all().delete()
    call_command("loaddata", str(backup), verbosity=0)
    assert tree_table() == before
    assert tree_rows() == rows
