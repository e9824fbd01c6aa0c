"""Deleting and restoring: the admin's confirmation lists what goes, each delete is one
deletion in the revisions, and staff restore a deleted node with its subtree."""

import pytest
from django.urls import reverse

from chapters.models import Node
from tests.helpers import node, tree_table

CHANGELIST = reverse("admin:chapters_node_changelist")


def deletion_of(title):
    """Return the "-" revision of the latest deletion asked for the node titled ``title``."""
    return Node.history.filter(title=title, history_type="-").exclude(deletion=None).first()


@pytest.mark.django_db
def test_bulk_delete_of_a_section_and_its_chapter_records_each_deletion_once(
    admin_client, small_tree
):
    selected = [node(title).pk for title in ["Section A1", "Chapter One", "Chapter Five"]]
    admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": selected, "post": "yes"}
    )
    deleted = Node.history.filter(history_type="-").order_by("history_id")
    assert [(r.title, r.history_change_reason) for r in deleted] == [
        ("Chapter Three", "Deleted with “Section A1”"),
        ("Chapter Two", "Deleted with “Section A1”"),
        ("Chapter One", "Deleted with “Section A1”"),
        ("Section A1", "Deleted"),
        ("Chapter Five", "Deleted"),
    ]
    assert tree_table() == (
        "Area A [section] area-a\n"
        "  Section A2 [section] area-a/section-a2\n"
        "    Chapter Four [chapter] area-a/section-a2/chapter-four\n"
        "Area B [section] area-b\n"
        "  Section B1 [section] area-b/section-b1\n"
        "    Chapter Six [chapter] area-b/section-b1/chapter-six"
    )
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_delete_records_one_deletion_with_the_places_of_the_nodes(admin_user, small_tree):
    ids = {n.title: n.pk for n in Node.objects.all()}
    section = node("Section A1")
    section._history_user = admin_user
    section.delete()
    root = deletion_of("Section A1")
    deleted = Node.history.filter(deletion=root.history_id).order_by("history_id")
    assert [(r.id, r.deleted_after, r.history_user, r.history_date) for r in deleted] == [
        (ids["Chapter Three"], ids["Chapter Two"], admin_user, root.history_date),
        (ids["Chapter Two"], ids["Chapter One"], admin_user, root.history_date),
        (ids["Chapter One"], None, admin_user, root.history_date),
        (ids["Section A1"], None, admin_user, root.history_date),
    ]
    node("Chapter Four").delete()
    four = deletion_of("Chapter Four")
    assert (four.deletion, four.deleted_after, four.history_user) == (four.history_id, None, None)
    node("Area B").delete()
    assert deletion_of("Area B").deleted_after == ids["Area A"]
