"""Restores that are refused, and change nothing: twice, under a deleted or changed section,
to a path taken, a body that cannot be rendered."""

import pytest

from chapters.models import Node
from tests.helpers import node, tree_table
from tests.test_recovery import (
    SMALL_TREE_TABLE,
    deletion_of,
    restore,
    restore_url,
    shown_messages,
)


@pytest.mark.django_db
def test_restore_twice_is_refused_and_changes_nothing(admin_client, small_tree):
    node("Section A1").delete()
    restore(admin_client, "Section A1")
    revisions = Node.history.count()
    assert restore(admin_client, "Section A1") == [
        "“Section A1” has been restored already, at /area-a/section-a1/."
    ]
    assert (tree_table(), Node.history.count()) == (SMALL_TREE_TABLE, revisions)


@pytest.mark.django_db
def test_restore_of_an_earlier_deletion_of_a_node_deleted_again_is_refused(
    admin_client, small_tree
):
    node("Chapter One").delete()
    earlier = restore_url("Chapter One")
    restore(admin_client, "Chapter One")
    node("Chapter One").delete()
    assert shown_messages(admin_client.post(earlier, follow=True)) == [
        "“Chapter One” was restored and deleted again since: restore the later deletion."
    ]
    assert not Node.objects.filter(title="Chapter One").exists()


@pytest.mark.django_db
def test_restore_under_a_deleted_section_is_refused_until_it_is_restored(admin_client, small_tree):
    node("Chapter One").delete()
    node("Section A1").delete()
    assert restore(admin_client, "Chapter One") == [
        "The section it was in, “Section A1”, is deleted too: restore it first."
    ]
    restore(admin_client, "Section A1")
    restore(admin_client, "Chapter One")
    assert tree_table() == SMALL_TREE_TABLE


@pytest.mark.django_db
def test_restore_under_a_section_deleted_with_its_area_names_the_area(admin_client, small_tree):
    node("Chapter One").delete()
    node("Area A").delete()
    before = tree_table()
    assert restore(admin_client, "Chapter One") == [
        "The section it was in, “Section A1”, was deleted with “Area A”: restore “Area A” first."
    ]
    assert tree_table() == before


@pytest.mark.django_db
def test_restore_to_a_path_a_new_node_took_is_refused(admin_client, small_tree):
    node("Section A1").delete()
    Node.objects.create(title="Section A1", kind="section", parent=node("Area A"))
    before = tree_table()
    assert restore(admin_client, "Section A1") == [
        "“Section A1” is at /area-a/section-a1/ now: move it or change its slug, "
        "then restore “Section A1”."
    ]
    assert tree_table() == before
    assert deletion_of("Section A1") in Node.history.filter(history_type="-")


@pytest.mark.django_db
def test_restore_under_a_section_turned_into_a_chapter_is_refused(admin_client, small_tree):
    node("Chapter Four").delete()
    section = node("Section A2")
    section.kind = "chapter"
    section.save()
    assert restore(admin_client, "Chapter Four") == [
        "“Section A2” is a chapter; chapters cannot have children."
    ]


@pytest.mark.django_db
def test_restore_of_a_body_that_cannot_be_rendered_is_refused_and_writes_nothing(
    admin_client, small_tree
):
    node("Section A1").delete()
    Node.history.filter(title="Chapter Two").update(body="- " * 1000 + "x")
    before, revisions = tree_table(), Node.history.count()
    assert restore(admin_client, "Section A1") == [
        "“Chapter Two” cannot be rendered: Line 1 nests 1,000 lists, quotes or indents; at "
        "most 32 are allowed."
    ]
    assert (tree_table(), Node.history.count()) == (before, revisions)
