"""Deleting and restoring: the admin's confirmation lists what goes, each delete is one
deletion in the revisions, and staff restore a deleted node with its subtree."""

import pytest
from django.urls import reverse

from chapters.models import Node
from tests.helpers import node, soup, tree_table

CHANGELIST = reverse("admin:chapters_node_changelist")


def outline(items, depth=0):
    """Return a parsed ``<ul>``'s items as lines of text, indented two spaces per level."""
    lines = []
    for item in items.find_all("li", recursive=False):
        nested = item.find("ul", recursive=False)
        if nested is not None:
            nested.extract()
        lines.append("  " * depth + " ".join(item.get_text().split()))
        if nested is not None:
            lines.extend(outline(nested, depth + 1))
    return lines


def deletion_of(title):
    """Return the "-" revision of the latest deletion asked for the node titled ``title``."""
    return Node.history.filter(title=title, history_type="-").exclude(deletion=None).first()


@pytest.mark.django_db
def test_delete_confirmation_lists_every_node_under_it_with_its_path(admin_client, small_tree):
    two = node("Chapter Two")
    two.body = "See [[Chapter Four]]."
    two.save()
    three = node("Chapter Three")
    three.slug = "third"
    three.save()
    url = reverse("admin:chapters_node_delete", args=[node("Section A1").pk])
    page = soup(admin_client.get(url))
    links = [a["href"] for a in page.find(id="deleted-objects").find_all("a")]
    assert outline(page.find(id="deleted-objects")) == [
        "Section: Section A1 at /area-a/section-a1/",
        "  Chapter: Chapter One at /area-a/section-a1/chapter-one/",
        "  Chapter: Chapter Two at /area-a/section-a1/chapter-two/",
        "    Link: Chapter Two → Chapter Four",
        "  Chapter: Chapter Three at /area-a/section-a1/third/",
        "    Path redirect: area-a/section-a1/chapter-three → area-a/section-a1/third",
    ]
    assert links == [
        reverse("admin:chapters_node_change", args=[node(title).pk])
        for title in ["Section A1", "Chapter One", "Chapter Two", "Chapter Three"]
    ]
    summary = page.find("h2", string="Summary").find_next("ul")
    assert [li.get_text() for li in summary.find_all("li")] == [
        "Nodes: 4",
        "Path redirects: 1",
        "Links: 1",
    ]


@pytest.mark.django_db
def test_bulk_delete_confirmation_lists_every_node_once_with_its_path(admin_client, small_tree):
    selected = [node(title).pk for title in ["Section A1", "Chapter One", "Chapter Five"]]
    response = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": selected}
    )
    objects = soup(response).find("h2", string="Objects").find_next("ul")
    assert outline(objects) == [
        "Section: Section A1 at /area-a/section-a1/",
        "  Chapter: Chapter One at /area-a/section-a1/chapter-one/",
        "  Chapter: Chapter Two at /area-a/section-a1/chapter-two/",
        "  Chapter: Chapter Three at /area-a/section-a1/chapter-three/",
        "Chapter: Chapter Five at /area-b/section-b1/chapter-five/",
    ]


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
