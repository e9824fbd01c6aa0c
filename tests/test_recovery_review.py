"""Restoring and the review workflow: a page's pending changes and drafts come back with it,
and a published page restored by someone who may not publish waits for a reviewer."""

import pytest
from django.test import Client
from django.urls import reverse

from chapters import recovery
from chapters.edit import workflow
from chapters.models import EditDraft, Node, PendingChange, WikiVersion, tree_write
from tests.helpers import edit, form_values, node, role_user, soup

BASE_URL = "http://testserver/"


def deletion_of(title):
    """Return the "-" revision of the latest deletion asked for the node titled ``title``."""
    return Node.history.filter(title=title, history_type="-").exclude(deletion=None).first()


def kept_rows():
    """Return every pending change and draft as stored, in the order of their ids."""
    return (
        list(PendingChange.objects.order_by("pk").values()),
        list(EditDraft.objects.order_by("pk").values()),
    )


def signed_in(user):
    """Return a client signed in as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def propose(client, url, **changes):
    """Open the editor at ``url`` as the client's user, change it and save; return the
    response."""
    form = form_values(soup(client.get(url)), "editor")
    return client.post(url, {**form, **changes, "save": "1"})


@pytest.mark.django_db
def test_a_page_s_pending_change_and_drafts_come_back_with_it(small_tree, django_user_model):
    edit("Chapter One", status="published", body="Published text.")
    author, other = role_user("author", "Editor"), role_user("other", "Editor")
    gone = role_user("gone", "Editor")
    propose(signed_in(author), "/edit/area-a/section-a1/chapter-one/", body="Proposed.")
    sent_back = PendingChange.objects.get()
    workflow.send_back(sent_back, role_user("rev", "Reviewer"), "Not yet.", BASE_URL)
    propose(signed_in(author), "/edit/area-a/section-a1/chapter-one/", body="Again.")
    drafting = signed_in(other)
    drafting.post("/drafts/edit/area-a/section-a1/chapter-two/", {"body": "Unsaved."})
    drafting.post("/drafts/new/area-a/section-a1/", {"title": "New"})
    signed_in(gone).post("/drafts/edit/area-a/section-a1/chapter-two/", {"body": "Lost."})
    before = kept_rows()
    with tree_write(user=role_user("admin", "Admin")):
        node("Section A1").delete()
    assert kept_rows() == ([], [])
    django_user_model.objects.filter(username="gone").delete()

    recovery.restore(deletion_of("Section A1"), role_user("restorer", "Reviewer"), BASE_URL)

    changes, drafts = before
    assert kept_rows() == (changes, [d for d in drafts if d["user_id"] != gone.pk])
    assert [(c.state, c.body, c.comment) for c in PendingChange.objects.order_by("pk")] == [
        ("sent_back", "Proposed.", "Not yet."),
        ("pending", "Again.", ""),
    ]
    assert [
        (d.user.username, d.node.title, d.adding) for d in EditDraft.objects.order_by("pk")
    ] == [
        ("other", "Chapter Two", False),
        ("other", "Section A1", True),
    ]


def restore_as(client, title):
    """Post the admin's Restore of ``title``'s deletion as the client's user; return the
    messages shown after it."""
    url = reverse("admin:chapters_node_restore", args=[deletion_of(title).history_id])
    response = client.post(url, follow=True)
    return [str(message) for message in response.context["messages"]]


@pytest.fixture
def deleted_section(small_tree):
    """Section A1 deleted by an admin, its Chapter One published."""
    edit("Chapter One", status="published", body="Published text.")
    with tree_write(user=role_user("admin", "Admin")):
        node("Section A1").delete()


@pytest.mark.django_db
def test_an_editor_s_restore_of_a_published_page_waits_for_review(client, deleted_section):
    editor = role_user("ed", "Editor")
    shown = restore_as(signed_in(editor), "Section A1")

    restored = node("Chapter One")
    latest = Node.history.filter(id=restored.pk).first()
    change = PendingChange.objects.get()
    assert shown == [
        "“Section A1” was restored at /area-a/section-a1/ with 3 pages under it. 1 published "
        "page is back as a draft: publishing it again waits for a reviewer."
    ]
    assert (restored.status, latest.status, latest.history_change_reason) == (
        "draft",
        "draft",
        "Restored",
    )
    assert (change.node, change.author, change.state) == (restored, editor, "pending")
    assert (change.base_revision, change.status, change.title, change.body) == (
        latest.history_id,
        "published",
        "Chapter One",
        "Published text.",
    )
    assert (change.parent, change.summary) == (
        node("Section A1"),
        "Publish again after the restore",
    )
    version = WikiVersion.current()
    assert workflow.approve(change, role_user("rev", "Reviewer"), BASE_URL) is None
    assert (node("Chapter One").status, node("Chapter One").body) == (
        "published",
        "Published text.",
    )
    assert WikiVersion.current() != version


@pytest.mark.django_db
def test_a_reviewer_s_restore_of_a_published_page_is_live_at_once(client, deleted_section):
    shown = restore_as(signed_in(role_user("rev", "Reviewer")), "Section A1")

    assert shown == ["“Section A1” was restored at /area-a/section-a1/ with 3 pages under it."]
    assert node("Chapter One").status == "published"
    assert not PendingChange.objects.exists()


@pytest.mark.django_db
def test_an_editor_s_own_change_that_came_back_proposes_publishing_the_page_again(
    small_tree,
):
    edit("Chapter One", status="published", body="Line one.\nLine two.")
    editor = role_user("ed", "Editor")
    propose(signed_in(editor), "/edit/area-a/section-a1/chapter-one/", body="Line one.\nMine.")
    with tree_write(user=role_user("admin", "Admin")):
        node("Chapter One").delete()

    recovery.restore(deletion_of("Chapter One"), editor, BASE_URL)

    change = PendingChange.objects.get()
    latest = Node.history.filter(id=node("Chapter One").pk).first()
    assert (node("Chapter One").status, change.base_revision, change.status, change.body) == (
        "draft",
        latest.history_id,
        "published",
        "Line one.\nMine.",
    )
    assert workflow.approve(change, role_user("rev", "Reviewer"), BASE_URL) is None
    assert (node("Chapter One").status, node("Chapter One").body) == (
        "published",
        "Line one.\nMine.",
    )
