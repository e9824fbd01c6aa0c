"""Backups: a dumpdata/loaddata round trip, and restoring an export into an empty database."""

from datetime import datetime

import pytest
from django.core.management import call_command
from django.utils import timezone

from chapters.models import Link, Node, PathRedirect
from tests.helpers import tree_table


def tree_rows(with_tree_ids=True):
    """Return every node's parent, tree fields and path, in tree order, by path.

    Without tree ids, the rows still give the structure: the trees' order is the rows' order.
    """
    parents = dict(Node.objects.values_list("pk", "path"))
    return [
        (parents.get(parent_id), tree_id if with_tree_ids else None, lft, rght, level, path)
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


def derived_rows():
    """Return each node's rendered fields and each link, by path."""
    return (
        list(Node.objects.values_list("path", "body_html", "body_text", "headings")),
        sorted(
            Link.objects.values_list("source__path", "target__path", "kind", "text", "problem"),
            key=str,
        ),
    )


@pytest.mark.django_db
def test_export_backup_restores_into_an_empty_database_as_the_same_tree(tmp_path, curriculum):
    Node.objects.get(path="systems").delete()
    fusion = Node.objects.get(title="Graph Optimization and Kernel Fusion")
    fusion.body = (
        "## Fusion\n\nSee [[Proofs and Logic]] and [the compilers](/ml-systems/ml-compilers/).\n"
    )
    fusion.status = Node.Status.PUBLISHED
    fusion.save()
    algebra = Node.objects.get(title="Linear Algebra")
    algebra.title, algebra.status, algebra.body = "Линейная алгебра", "review", "$x^2$ — “é”\n"
    algebra.save()
    Node.objects.move_node(algebra, Node.objects.get(path="mathematics"), "first-child")
    Node.objects.create(
        title="Added Later", kind="chapter", parent=Node.objects.get(path="ml-systems/ml-compilers")
    )
    Node.objects.filter(pk=fusion.pk).update(
        updated=datetime(2026, 10, 1, 8, 0, 0, 123456, tzinfo=timezone.get_fixed_timezone(-300))
    )
    backup = tmp_path / "backup.json"
    call_command("export_curriculum", "-o", str(backup), verbosity=0)
    table, rows, derived = tree_table(), tree_rows(with_tree_ids=False), derived_rows()
    Node.objects.all().delete()
    Node.history.all().delete()
    assert (Node.objects.count(), PathRedirect.objects.count(), Link.objects.count()) == (0, 0, 0)

    call_command("import_curriculum", str(backup), verbosity=0)

    restored = tmp_path / "restored.json"
    call_command("export_curriculum", "-o", str(restored), verbosity=0)
    assert restored.read_bytes() == backup.read_bytes()
    assert (tree_table(), tree_rows(with_tree_ids=False), derived_rows()) == (table, rows, derived)
    assert Node.objects.count() == 222 - 42 + 1
    assert Node.objects.check_tree() == []
    revisions = Node.history.values_list("path", "history_date", "history_change_reason")
    assert sorted(revisions) == sorted(
        (path, updated, "Imported from backup.json")
        for path, updated in Node.objects.values_list("path", "updated")
    )
