"""Restoring and the review workflow: a page's pending changes and drafts come back with it,
and a published page restored by someone who may not publish waits for a reviewer."""

import pytest
from django.test import Client

from chapters import recovery
from chapters.edit import workflow
from chapters.models import EditDraft, Node, PendingChange, tree_write
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
    assert [(d.user.username, d.node.title, d.adding) for d in EditDraft.objects.all()] == [
        ("other", "Chapter Two", False),
        ("other", "Section A1", True),
    ]
