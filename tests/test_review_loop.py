"""The editors' loop (issue 27): reviewers told of every change waiting, the header's
"Review (N)" and "Notifications (N)", the notifications page, a reviewer's comments on a
change and on lines of its diff, and the sent-back banner that leads the author back to
their change."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from chapters.models import Node, Notification, PendingChange, ReviewComment
from tests.helpers import edit, form_values, node, role_user, soup

CHAPTER_ONE = "/area-a/section-a1/chapter-one/"
EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"


def propose(client, **changes):
    """Open Chapter One's editor as the signed-in user, change it and save."""
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    return client.post(EDIT_ONE, {**form, **changes, "save": "1"})


def decide(client, change, **decision):
    """Post ``decision`` with ``change``'s decision form, as the signed-in reviewer."""
    form = form_values(soup(client.get(change.get_absolute_url())), "review-decision")
    return client.post(change.get_absolute_url(), {**form, **decision})


def header(client, url=CHAPTER_ONE):
    """Return the texts of the header's review and notifications links on ``url``."""
    page = soup(client.get(url))
    links = page.select(".account a.review-link, .account a.notifications-link")
    return [link.get_text(" ", strip=True) for link in links]


@pytest.fixture
def people(small_tree):
    """Chapter One published; an editor, two reviewers and an admin."""
    edit("Chapter One", status="published", body="First line.\nSecond line.")
    return {
        "ed": role_user("ed", "Editor"),
        "rev": role_user("rev", "Reviewer"),
        "rita": role_user("rita", "Reviewer"),
        "ada": role_user("ada", "Admin"),
    }


@pytest.mark.django_db
def test_every_reviewer_is_told_a_change_waits_not_its_author(client, people, run_tasks):
    role_user("gone", "Reviewer", is_active=False)
    client.force_login(people["ed"])
    propose(client, body="First line.\nSecond line, better.", summary="Clearer")
    run_tasks()
    subject = "[Curriculum Wiki] A change to “Chapter One” by ed waits for review"
    assert sorted((m.to[0], m.subject) for m in mail.outbox) == [
        ("ada@example.com", subject),
        ("rev@example.com", subject),
        ("rita@example.com", subject),
    ]
    change = PendingChange.objects.get()
    assert sorted(Notification.objects.values_list("recipient__username", "url")) == [
        ("ada", f"/review/{change.pk}/"),
        ("rev", f"/review/{change.pk}/"),
        ("rita", f"/review/{change.pk}/"),
    ]


@pytest.mark.django_db
def test_the_header_counts_changes_waiting_and_unread_notifications(client, people, run_tasks):
    assert header(client) == []  # a reader's header has no account links
    client.force_login(people["ed"])
    assert header(client) == ["Notifications (0)"]
    propose(client, body="Proposed.")
    run_tasks()
    assert header(client) == ["Notifications (0)"]  # an editor may not review

    client.force_login(people["rev"])
    assert header(client) == ["Review (1)", "Notifications (1)"]
    assert soup(client.get(CHAPTER_ONE)).select_one(".account a.review-link")["href"] == (
        "/review/"
    )


@pytest.mark.django_db
def test_a_notification_changes_the_page_s_etag(client, people, run_tasks):
    client.force_login(people["rev"])
    etag = client.get(CHAPTER_ONE)["ETag"]
    assert client.get(CHAPTER_ONE, HTTP_IF_NONE_MATCH=etag).status_code == 304
    Notification.objects.create(
        recipient=people["rev"], key="k", subject="Told", body="Told.\n", url="/"
    )
    response = client.get(CHAPTER_ONE, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert "Notifications (1)" in header(client)


@pytest.mark.django_db
def test_notifications_are_listed_opened_and_marked_read(client, people, run_tasks):
    client.force_login(people["ed"])
    propose(client, body="Proposed.")
    run_tasks()
    change = PendingChange.objects.get()
    note = Notification.objects.get(recipient=people["rev"])
    other = Notification.objects.create(
        recipient=people["rev"], key="other", subject="Older news", body=".\n", url="/recent/"
    )

    client.force_login(people["rev"])
    page = soup(client.get("/notifications/"))
    assert [
        (item["class"], item.a.get_text(" ", strip=True), item.a["href"])
        for item in page.select(".notification-list li")
    ] == [
        (["notification", "unread"], "Unread: Older news", f"/notifications/{other.pk}/"),
        (
            ["notification", "unread"],
            "Unread: A change to “Chapter One” by ed waits for review",
            f"/notifications/{note.pk}/",
        ),
    ]

    response = client.get(f"/notifications/{note.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/review/{change.pk}/"
    note.refresh_from_db()
    assert note.read is not None
    assert header(client) == ["Review (1)", "Notifications (1)"]

    response = client.post("/notifications/read/")
    assert response["Location"] == "/notifications/"
    assert Notification.objects.filter(recipient=people["rev"], read=None).count() == 0
    assert header(client) == ["Review (1)", "Notifications (0)"]
    assert soup(client.get("/notifications/")).select_one(".mark-read") is None


@pytest.mark.django_db
def test_nobody_opens_another_s_notification_or_an_address_elsewhere(client, people):
    theirs = Notification.objects.create(
        recipient=people["rev"], key="a", subject="Theirs", body=".\n", url="/"
    )
    elsewhere = Notification.objects.create(
        recipient=people["ed"], key="b", subject="Forged", body=".\n", url="https://evil.test/"
    )
    client.force_login(people["ed"])
    assert client.get(f"/notifications/{theirs.pk}/").status_code == 404
    assert client.get(f"/notifications/{elsewhere.pk}/")["Location"] == "/notifications/"
    assert client.post("/notifications/read/").status_code == 302
    theirs.refresh_from_db()
    assert theirs.read is None
    client.logout()
    assert client.get("/notifications/")["Location"] == "/accounts/login/?next=/notifications/"
    assert client.get("/notifications/read/").status_code == 302  # to sign in first


@pytest.mark.django_db
def test_the_queue_says_who_what_how_old_and_how_big(client, people):
    client.force_login(people["ed"])
    propose(client, body="First line.\nSecond line, better.\nThird line.")
    client.force_login(people["rev"])
    page = soup(client.get("/review/"))
    assert page.h1.get_text() == "Changes waiting for review (1)"
    assert [h.get_text(" ", strip=True) for h in page.select(".review-item h2")] == [
        "“Chapter One” by ed"
    ]
    meta = page.select_one(".review-item .meta")
    assert meta.select_one(".change-size").get_text() == "+2 −1 lines"
    assert meta.time.get_text() == "0\xa0minutes ago"  # timesince's no-break space


@pytest.mark.django_db
def test_a_change_sent_back_leads_its_author_back_to_it(client, people, run_tasks):
    client.force_login(people["ed"])
    propose(client, body="First line.\nSecond line, worse.", summary="Shorter")
    change = PendingChange.objects.get()
    client.force_login(people["rev"])
    decide(client, change, decision="send_back", comment="Keep the second line as it was.")

    client.force_login(people["ed"])
    banner = soup(client.get(CHAPTER_ONE)).select_one(".page-tools .sent-back-note")
    assert banner.get_text(" ", strip=True) == (
        "Your change was sent back by rev: “Keep the second line as it was.” "
        "Continue editing See the review"
    )
    assert [a["href"] for a in banner.select("a")] == [
        f"{EDIT_ONE}?change={change.pk}",
        f"/review/{change.pk}/",
    ]
    editor = soup(client.get(EDIT_ONE))
    assert editor.select_one(".sent-back-note a")["href"] == f"{EDIT_ONE}?change={change.pk}"
    editor = soup(client.get(f"{EDIT_ONE}?change={change.pk}"))
    assert editor.select_one(".sent-back-note").get_text(" ", strip=True) == (
        "You are editing your change that was sent back by rev: "
        "“Keep the second line as it was.” Saving proposes it again. See the review"
    )
    assert editor.select_one("textarea[name=body]").get_text() == (
        "\nFirst line.\nSecond line, worse."
    )
    form = form_values(editor, "editor")
    client.post(f"{EDIT_ONE}?change={change.pk}", {**form, "body": "Both lines.", "save": "1"})
    assert PendingChange.objects.filter(state="pending").get().body == "Both lines."
    assert soup(client.get(CHAPTER_ONE)).select_one(".sent-back-note") is None
    client.force_login(people["rev"])
    assert soup(client.get(CHAPTER_ONE)).select_one(".sent-back-note") is None  # not theirs


@pytest.mark.django_db
def test_an_approval_keeps_the_reviewer_s_word_and_tells_the_author(client, people, run_tasks):
    client.force_login(people["ed"])
    propose(client, body="Better.")
    change = PendingChange.objects.get()
    client.force_login(people["rev"])
    decide(client, change, decision="approve", comment="Good catch.")
    change.refresh_from_db()
    assert (change.state, change.comment) == ("approved", "Good catch.")
    assert node("Chapter One").body == "Better."
    run_tasks()
    told = [m for m in mail.outbox if m.to == ["ed@example.com"]]
    assert [m.subject for m in told] == [
        "[Curriculum Wiki] The change to “Chapter One” by ed was approved by rev"
    ]
    assert "Their comment: Good catch.\n" in told[0].body


@pytest.mark.django_db
def test_a_reviewer_comments_on_a_line_of_the_diff(client, people, run_tasks):
    client.force_login(people["ed"])
    propose(client, body="First line.\nSecond line, better.")
    change = PendingChange.objects.get()
    client.force_login(people["rev"])
    page = soup(client.get(change.get_absolute_url()))
    plus = page.select(".diff-body .line-comment a")
    assert [a["href"] for a in plus] == [
        f"/review/{change.pk}/?line=new-1#comment-form",
        f"/review/{change.pk}/?line=old-2#comment-form",
        f"/review/{change.pk}/?line=new-2#comment-form",
    ]
    page = soup(client.get(f"{change.get_absolute_url()}?line=new-2"))
    assert page.select_one("#comment-form label").get_text() == "Comment on line 2"
    assert page.select_one("tr.commenting .line").get_text() == "Second line, better."
    form = form_values(page, "comment-form")
    assert form["line"] == "new-2"
    run_tasks()
    mail.outbox.clear()
    response = client.post(f"/review/{change.pk}/comments/", {**form, "text": "Say “much” better?"})
    comment = ReviewComment.objects.get()
    assert response["Location"] == f"/review/{change.pk}/#comment-{comment.pk}"
    assert (comment.author, comment.line, comment.text) == (
        people["rev"],
        "new-2",
        "Say “much” better?",
    )

    page = soup(client.get(change.get_absolute_url()))
    rows = page.select(".diff-body tr")
    commented = rows.index(page.select_one(f"#comment-{comment.pk}"))
    assert rows[commented - 1].select_one(".line").get_text() == "Second line, better."
    assert page.select_one(f"#comment-{comment.pk} .comment-text").get_text() == (
        "Say “much” better?"
    )
    run_tasks()
    assert [(m.to, m.subject) for m in mail.outbox] == [
        (["ed@example.com"], "[Curriculum Wiki] rev commented on the change to “Chapter One”")
    ]
    assert mail.outbox[0].body.startswith(
        "rev commented on line 2 on the change to “Chapter One” by ed:\nSay “much” better?\n"
    )

    client.force_login(people["ed"])  # the author answers on the whole change
    client.post(f"/review/{change.pk}/comments/", {"line": "", "text": "Done in\nthe next one."})
    page = soup(client.get(change.get_absolute_url()))
    texts = [li.select_one(".comment-text") for li in page.select(".review-comments li")]
    assert [text.decode_contents() for text in texts] == ["Done in<br/>the next one."]
    run_tasks()
    assert mail.outbox[-1].to == ["rev@example.com"]  # who commented before


@pytest.mark.django_db
def test_a_comment_on_a_line_the_diff_does_not_have_is_refused(client, people):
    client.force_login(people["ed"])
    propose(client, body="Changed.")
    change = PendingChange.objects.get()
    client.force_login(people["rev"])
    for line, text, error in [
        ("new-40", "Here?", "That line is not in the change's diff any more"),
        ("new-1", "   ", "Write the comment first."),
    ]:
        response = client.post(f"/review/{change.pk}/comments/", {"line": line, "text": text})
        assert response.status_code == 200
        assert error in soup(response).select_one("#comment-form .errors").get_text()
    assert ReviewComment.objects.count() == 0
    reader = get_user_model().objects.create_user("reader", "reader@example.com", "pw")
    client.force_login(reader)
    response = client.post(f"/review/{change.pk}/comments/", {"line": "", "text": "Hi"})
    assert response.status_code == 403 and ReviewComment.objects.count() == 0


@pytest.mark.django_db
def test_a_change_sent_back_is_not_taken_for_a_later_change_of_its_own(people):
    # Its row's created comes after its decided here, as when a script or a fixture stores a
    # decided change in one go: the rule once matched the change itself as "a later change".
    page = node("Chapter Two")
    revision = Node.history.filter(id=page.pk).first()
    returned = PendingChange.objects.create(
        node=page, base_revision=revision.history_id, title=page.title, status="published",
        parent=page.parent, body="Draft.", author=people["ed"], state="sent_back",
        reviewer=people["rev"], comment="Add an example.", decided=timezone.now(),
    )  # fmt: skip
    assert returned.created > returned.decided
    assert PendingChange.objects.sent_back_to(people["ed"], page) == returned
    assert PendingChange.objects.sent_back_to(people["rev"], page) is None
