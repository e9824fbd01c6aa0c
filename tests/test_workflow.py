"""The review workflow (chapters.edit.workflow): pending changes that readers do not see,
approving and sending back, the statuses each role may set, in the site and the admin."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from chapters.edit import workflow
from chapters.models import Node, PendingChange, WikiVersion
from tests.helpers import edit, form_values, node, role_user, soup

CHAPTER_ONE = "/area-a/section-a1/chapter-one/"
EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
BASE_URL = "http://testserver/"


def propose(client, **changes):
    """Open Chapter One's editor as the signed-in user, change it and save; return the
    response."""
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    return client.post(EDIT_ONE, {**form, **changes, "save": "1"})


def decide(client, change, **decision):
    """Open ``change``'s page as the signed-in reviewer and post ``decision`` with its form;
    return the response."""
    form = form_values(soup(client.get(change.get_absolute_url())), "review-decision")
    return client.post(change.get_absolute_url(), {**form, **decision})


@pytest.fixture
def published(small_tree):
    """Chapter One, published by a reviewer."""
    edit("Chapter One", status="published", body="Published text.")


@pytest.mark.django_db
def test_editor_s_edit_of_a_published_page_waits_for_review_unseen_by_readers(client, published):
    before_version, reader = WikiVersion.current(), client.get(CHAPTER_ONE).content
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    assert [
        o["value"] for o in soup(client.get(EDIT_ONE)).select("select[name=status] option")
    ] == ["published"]

    response = propose(client, body="Proposed text.", summary="Clearer")

    change = PendingChange.objects.get()
    assert response["Location"] == f"/review/{change.pk}/"
    assert (change.author, change.state, change.body, change.summary) == (
        editor,
        "pending",
        "Proposed text.",
        "Clearer",
    )
    assert node("Chapter One").body == "Published text."
    assert WikiVersion.current() == before_version
    client.logout()
    assert client.get(CHAPTER_ONE).content == reader
    client.force_login(editor)
    note = soup(client.get(CHAPTER_ONE)).find(class_="pending-note")
    assert " ".join(note.get_text().split()) == "A change by ed waits for review: see the change."
    assert note.a["href"] == f"/review/{change.pk}/"

    propose(client, body="Proposed text, again.")
    assert [c.body for c in PendingChange.objects.all()] == ["Proposed text, again."]


@pytest.mark.django_db
def test_editor_s_page_etag_changes_when_a_change_is_proposed(client, published):
    reviewer = role_user("rev", "Reviewer")
    client.force_login(reviewer)
    etag = client.get(CHAPTER_ONE)["ETag"]
    assert client.get(CHAPTER_ONE, HTTP_IF_NONE_MATCH=etag).status_code == 304
    PendingChange.objects.create(
        node=node("Chapter One"), base_revision=1, title="x", status="published",
        author=role_user("ed", "Editor"),
    )  # fmt: skip
    response = client.get(CHAPTER_ONE, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert soup(response).find(class_="pending-note") is not None


@pytest.mark.django_db
def test_reviewer_approves_and_the_change_is_live_at_once(client, published):
    editor, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")
    client.force_login(editor)
    propose(client, body="Proposed text.", summary="Clearer")
    change = PendingChange.objects.get()
    assert client.post(change.get_absolute_url(), {"decision": "approve"}).status_code == 403

    client.force_login(reviewer)
    queue = soup(client.get("/review/"))
    assert [h.get_text(" ", strip=True) for h in queue.select(".review-item h2")] == [
        "“Chapter One” by ed"
    ]
    assert queue.select_one(".review-item .diff-insert").get_text() == "1Proposed text."
    response = decide(client, change, decision="approve")

    assert response["Location"] == CHAPTER_ONE
    assert node("Chapter One").body == "Proposed text."
    latest = Node.history.filter(id=node("Chapter One").pk).first()
    assert (latest.history_user, latest.history_change_reason) == (
        editor,
        "Approved by rev: Clearer",
    )
    change.refresh_from_db()
    assert (change.state, change.reviewer) == ("approved", reviewer)
    client.logout()
    assert "Proposed text." in client.get(CHAPTER_ONE).content.decode()


@pytest.mark.django_db
def test_approving_merges_with_what_was_saved_since(client, published):
    edit("Chapter One", body="One.\n\nTwo.\n\nThree.")
    client.force_login(role_user("ed", "Editor"))
    propose(client, body="One.\n\nTwo.\n\nThree, proposed.")
    edit("Chapter One", body="One, since.\n\nTwo.\n\nThree.", title="Chapter 1")
    client.force_login(role_user("rev", "Reviewer"))
    decide(client, PendingChange.objects.get(), decision="approve")
    merged = node("Chapter 1")
    assert merged.body == "One, since.\n\nTwo.\n\nThree, proposed."


@pytest.mark.django_db
def test_approving_a_conflicting_change_sends_it_back_to_its_author(client, published):
    client.force_login(role_user("ed", "Editor"))
    propose(client, body="Proposed text.")
    edit("Chapter One", body="Their text.")
    latest = Node.history.filter(id=node("Chapter One").pk).first()
    client.force_login(role_user("rev", "Reviewer"))
    decide(client, PendingChange.objects.get(), decision="approve")
    change = PendingChange.objects.get()
    assert (change.state, change.comment) == (
        "sent_back",
        f"It conflicts with revision {latest.history_id}, saved by a script since it was "
        "proposed: edit the page again to merge the two, then propose it again.",
    )
    assert node("Chapter One").body == "Their text."


@pytest.mark.django_db
def test_send_back_needs_a_comment_and_the_author_may_take_the_change_up_again(client, published):
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    propose(client, body="Proposed text.")
    change = PendingChange.objects.get()
    client.force_login(role_user("rev", "Reviewer"))
    refused = decide(client, change, decision="send_back", comment=" ")
    assert refused.context["form"].errors == {
        "comment": ["Say why the change goes back to its author."]
    }
    decide(client, change, decision="send_back", comment="Cite a source.")
    change.refresh_from_db()
    assert (change.state, change.comment) == ("sent_back", "Cite a source.")
    client.force_login(editor)
    page = soup(client.get(change.get_absolute_url()))
    assert (
        page.find("a", string="Edit this change again")["href"] == f"{EDIT_ONE}?change={change.pk}"
    )
    again = form_values(soup(client.get(f"{EDIT_ONE}?change={change.pk}")), "editor")
    assert again["body"] == "Proposed text."


@pytest.mark.django_db
def test_only_reviewers_publish_and_unpublish(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    assert propose(client, status="published").context["form"].errors == {
        "status": ["Select a valid choice. published is not one of the available choices."]
    }
    client.force_login(role_user("rev", "Reviewer"))
    assert propose(client, status="published").status_code == 302
    assert node("Chapter One").status == "published"
    latest = Node.history.filter(id=node("Chapter One").pk).first()
    assert latest.status == "published"
    assert propose(client, status="draft").status_code == 302
    assert node("Chapter One").status == "draft"


@pytest.mark.django_db
def test_admin_keeps_to_the_workflow(client, published):
    client.force_login(role_user("ed", "Editor"))
    url = reverse("admin:chapters_node_change", args=[node("Chapter One").pk])
    data = form_values(soup(client.get(url)), "node_form")
    refused = client.post(url, {**data, "body": "Sneaked in."})
    assert refused.context["adminform"].form.non_field_errors() == [
        "This page is published, and your changes to it need a reviewer's approval: propose "
        "them in the site's editor, where they wait for review."
    ]
    two = reverse("admin:chapters_node_change", args=[node("Chapter Two").pk])
    data = form_values(soup(client.get(two)), "node_form")
    refused = client.post(two, {**data, "status": "published"})
    assert refused.context["adminform"].form.errors == {
        "status": ["Only a reviewer may publish a page or unpublish it."]
    }
    assert (node("Chapter One").body, node("Chapter Two").status) == ("Published text.", "draft")


@pytest.mark.django_db
def test_editor_s_revert_of_a_published_page_waits_for_review(client, published):
    first = Node.history.filter(id=node("Chapter One").pk).order_by("history_id").first()
    client.force_login(role_user("ed", "Editor"))
    response = client.post(reverse("chapters:revert", args=[first.history_id]), follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "Your revert waits for a reviewer; readers see it once approved."
    ]
    change = PendingChange.objects.get()
    assert (change.body, change.status, change.summary) == (
        "This chapter is currently a scaffold.",
        "published",
        f"Revert to revision {first.history_id}",
    )
    assert node("Chapter One").body == "Published text."


@pytest.mark.django_db
def test_a_reviewer_approves_only_what_they_saw(client, published):
    editor, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")
    client.force_login(editor)
    propose(client, body="Harmless fix.")
    change = PendingChange.objects.get()
    client.force_login(reviewer)
    seen = form_values(soup(client.get(change.get_absolute_url())), "review-decision")
    client.force_login(editor)
    propose(client, body="Something else.")
    client.force_login(reviewer)

    response = client.post(change.get_absolute_url(), {**seen, "decision": "approve"}, follow=True)

    assert [str(m) for m in response.context["messages"]][-1] == (
        "The change was edited since you opened it: look again."
    )
    assert node("Chapter One").body == "Published text."
    change.refresh_from_db()
    assert (change.state, change.body) == ("pending", "Something else.")
    again = form_values(soup(response), "review-decision")
    assert again["version"] == change.version != seen["version"]


@pytest.mark.django_db
def test_a_reviewer_sends_back_only_what_they_saw(published):
    editor = role_user("ed", "Editor")
    page = node("Chapter One")
    change = PendingChange.objects.create(
        node=page, author=editor, base_revision=page.history.first().history_id,
        title=page.title, status="published", parent=page.parent, body="Proposed.",
    )  # fmt: skip
    seen = change.version
    PendingChange.objects.filter(pk=change.pk).update(updated=timezone.now())

    with pytest.raises(ValidationError) as refused:
        workflow.send_back(change, role_user("rev", "Reviewer"), "No.", BASE_URL, seen=seen)

    assert refused.value.messages == ["The change was edited since you opened it: look again."]
    assert PendingChange.objects.get().state == "pending"


@pytest.mark.django_db
@pytest.mark.parametrize("second", ["approve", "send_back"])
def test_a_change_is_decided_once_even_by_two_reviewers_at_once(published, second):
    editor = role_user("ed", "Editor")
    page = node("Chapter One")
    PendingChange.objects.create(
        node=page, author=editor, base_revision=page.history.first().history_id,
        title=page.title, status="published", parent=page.parent, body="Proposed.",
    )  # fmt: skip
    first, stale = PendingChange.objects.get(), PendingChange.objects.get()
    workflow.approve(first, role_user("rev", "Reviewer"), BASE_URL)

    with pytest.raises(ValidationError) as refused:
        if second == "approve":
            workflow.approve(stale, role_user("rev2", "Reviewer"), BASE_URL)
        else:
            workflow.send_back(stale, role_user("rev2", "Reviewer"), "No.", BASE_URL)

    assert refused.value.messages == ["This change has been decided already."]
    reasons = [r.history_change_reason or "" for r in node("Chapter One").history.all()]
    assert [reason for reason in reasons if reason.startswith("Approved by")] == ["Approved by rev"]
    assert (PendingChange.objects.get().state, PendingChange.objects.get().reviewer.username) == (
        "approved",
        "rev",
    )


def diff_rows(page):
    """Return the field rows of a diff on a parsed page, as lists of cell texts."""
    rows = page.find(class_="diff-fields").tbody.find_all("tr")
    return [[cell.get_text() for cell in row.find_all(["th", "td"])] for row in rows]


@pytest.mark.django_db
def test_an_editor_s_revert_confirmation_shows_what_the_pending_change_keeps(client, published):
    first = Node.history.filter(id=node("Chapter One").pk).order_by("history_id").first()
    edit("Chapter One", slug="chapter-1")
    client.force_login(role_user("ed", "Editor"))

    page = soup(client.get(reverse("chapters:revert", args=[first.history_id])))

    assert page.h2.get_text() == "What the revert proposes"
    assert page.find(class_="diff-fields") is None
    assert [row.get_text() for row in page.find(class_="diff-body").find_all("tr")] == [
        "1Published text.",
        "1This chapter is currently a scaffold.",
    ]
    assert [li.get_text() for li in page.select(".revert-notes li")] == [
        "Its slug stays “chapter-1”: a change for review keeps the address.",
        "It stays Published, and waits for a reviewer's approval.",
    ]
    assert not page.find("form", class_="revert-confirm").button.has_attr("disabled")


@pytest.mark.django_db
def test_an_editor_s_revert_confirmation_keeps_a_draft_unpublished(client, small_tree):
    edit("Chapter Two", status="published", body="Once published.")
    published = Node.history.filter(id=node("Chapter Two").pk).first()
    edit("Chapter Two", status="draft", body="Now a draft.")
    client.force_login(role_user("ed", "Editor"))

    page = soup(client.get(reverse("chapters:revert", args=[published.history_id])))

    assert page.h2.get_text() == "What the revert changes"
    assert page.find(class_="diff-fields") is None
    assert [li.get_text() for li in page.select(".revert-notes li")] == [
        "It stays Draft: only a reviewer may publish."
    ]
    client.post(reverse("chapters:revert", args=[published.history_id]))
    assert (node("Chapter Two").status, node("Chapter Two").body) == ("draft", "Once published.")


@pytest.mark.django_db
def test_an_editor_s_revert_does_not_replace_their_pending_change(client, published):
    first = Node.history.filter(id=node("Chapter One").pk).order_by("history_id").first()
    url = reverse("chapters:revert", args=[first.history_id])
    client.force_login(role_user("ed", "Editor"))
    propose(client, body="An hour of work.")
    refusal = (
        "Your change to this page waits for review, and a revert would replace it: edit that "
        "change instead, or revert once it has been decided."
    )

    page = soup(client.get(url))
    response = client.post(url, {"next": CHAPTER_ONE}, follow=True)

    assert page.find(class_="revert-refused").get_text() == refusal
    assert page.find("form", class_="revert-confirm").button.has_attr("disabled")
    assert [str(m) for m in response.context["messages"]][-1] == refusal
    assert [(c.body, c.summary) for c in PendingChange.objects.all()] == [("An hour of work.", "")]
    client.force_login(role_user("other", "Editor"))
    assert client.post(url).status_code == 302
    assert sorted(c.body for c in PendingChange.objects.all()) == [
        "An hour of work.",
        "This chapter is currently a scaffold.",
    ]


@pytest.mark.django_db
def test_a_page_published_while_an_editor_edits_it_merges_their_save_for_review(client, small_tree):
    edit("Chapter One", status="review", body="In review.")
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    edit("Chapter One", status="published", user=role_user("rev", "Reviewer"))

    response = client.post(EDIT_ONE, {**form, "body": "In review, improved.", "save": "1"})

    change = PendingChange.objects.get()  # merged with Published, so proposed for review
    assert response["Location"] == f"/review/{change.pk}/"
    told = [m.get_text() for m in soup(client.get(response["Location"])).select(".messages li")]
    assert told[0].startswith("rev saved this page at ")
    assert (change.status, change.body, node("Chapter One").body) == (
        "published",
        "In review, improved.",
        "In review.",
    )


@pytest.mark.django_db
def test_anonymous_users_are_asked_to_sign_in_to_review_or_revert(client, published):
    page = node("Chapter One")
    change = PendingChange.objects.create(
        node=page, author=role_user("ed", "Editor"), base_revision=1, title="x",
        status="published",
    )  # fmt: skip
    revert = reverse("chapters:revert", args=[page.history.first().history_id])
    for url in ("/review/", change.get_absolute_url(), revert):
        response = client.get(url)
        assert (response.status_code, response["Location"]) == (302, f"/accounts/login/?next={url}")
    assert client.post(change.get_absolute_url(), {"decision": "approve"}).status_code == 302
    assert PendingChange.objects.get().state == "pending"


@pytest.mark.django_db
def test_a_pending_change_s_summary_is_stored_on_one_line(client, published):
    client.force_login(role_user("ed", "Editor"))
    propose(client, body="Proposed text.", summary="Clearer\r\nand\nshorter")
    change = PendingChange.objects.get()
    direct = workflow.save_edit(
        node("Chapter One"), change.author, summary="A\nscript", base_revision=1, base_url=BASE_URL
    )

    assert (change.summary, direct.summary) == ("Clearer and shorter", "A script")


@pytest.mark.django_db
def test_an_editor_s_move_of_a_section_holding_published_pages_waits_for_review(client, published):
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    url = "/edit/area-a/section-a1/"
    form = form_values(soup(client.get(url)), "editor")
    before = WikiVersion.current()

    response = client.post(
        url, {**form, "parent": str(node("Area B").pk), "summary": "Move", "save": "1"}
    )

    change = PendingChange.objects.get()
    assert (response.status_code, response.url) == (302, change.get_absolute_url())
    assert (change.node, change.parent, change.status, change.author) == (
        node("Section A1"),
        node("Area B"),
        "draft",
        editor,
    )
    assert (node("Section A1").path, WikiVersion.current()) == ("area-a/section-a1", before)
    assert client.get(change.get_absolute_url()).status_code == 200
    assert workflow.approve(change, role_user("rev", "Reviewer"), BASE_URL) is None
    assert node("Chapter One").path == "area-b/section-a1/chapter-one"


@pytest.mark.django_db
def test_an_editor_moves_a_section_of_drafts_at_once(client, published):
    client.force_login(role_user("ed", "Editor"))
    url = "/edit/area-a/section-a2/"
    form = form_values(soup(client.get(url)), "editor")

    response = client.post(url, {**form, "parent": str(node("Area B").pk), "save": "1"})

    assert (response.status_code, response.url) == (302, "/area-b/section-a2/")
    assert not PendingChange.objects.exists()


@pytest.mark.django_db
def test_an_editor_s_revert_moving_a_section_holding_published_pages_waits_for_review(
    client, published
):
    Node.objects.move_node(node("Section A1"), node("Area B"), "last-child")
    under_a = Node.history.filter(id=node("Section A1").pk).order_by("history_id").first()
    client.force_login(role_user("ed", "Editor"))
    url = reverse("chapters:revert", args=[under_a.history_id])

    page = soup(client.get(url))
    response = client.post(url, follow=True)

    assert [li.get_text() for li in page.select(".revert-notes li")] == [
        "It stays Draft, and waits for a reviewer's approval."
    ]
    assert [str(m) for m in response.context["messages"]] == [
        "Your revert waits for a reviewer; readers see it once approved."
    ]
    change = PendingChange.objects.get()
    assert (change.node, change.parent, change.status) == (
        node("Section A1"),
        node("Area A"),
        "draft",
    )
    assert node("Chapter One").path == "area-b/section-a1/chapter-one"
