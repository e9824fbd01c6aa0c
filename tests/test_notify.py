"""Watching pages and the e-mail watchers get (chapters.edit.notify): exact recipients and
subjects, after the change commits, never for one's own doing."""

import pytest
from django.contrib.auth.models import User
from django.core import mail

from chapters.models import PendingChange, Watch
from tests.helpers import edit, form_values, node, role_user, soup

CHAPTER_ONE = "/area-a/section-a1/chapter-one/"
EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"


def watching(name, title, role="Editor", **fields):
    """Create a user ``name`` watching the node titled ``title``; return the user."""
    user = role_user(name, role, **fields)
    Watch.objects.create(user=user, node=node(title))
    return user


def sent():
    """Return the mail sent, as ``(recipient, subject)`` pairs, in order."""
    return [(message.to[0], message.subject) for message in mail.outbox]


def save_in_editor(client, **changes):
    """Save Chapter One in the site's editor as the signed-in user, with ``changes``."""
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    return client.post(EDIT_ONE, {**form, **changes, "save": "1"})


@pytest.fixture
def watchers(small_tree):
    """Users watching Chapter One, or a section above it, or elsewhere."""
    return {
        "section": watching("alice", "Section A1"),
        "page": watching("bob", "Chapter One"),
        "elsewhere": watching("carol", "Area B"),
        "no address": watching("dave", "Chapter One", email=""),
        "inactive": watching("erin", "Area A", is_active=False),
        "area": watching("frank", "Area A"),
    }


@pytest.mark.django_db
def test_watchers_hear_of_a_saved_change_but_not_its_author(
    client, watchers, django_capture_on_commit_callbacks
):
    client.force_login(watchers["page"])
    with django_capture_on_commit_callbacks(execute=True):
        save_in_editor(client, body="Better.", summary="Tightened")
    assert sent() == [
        ("alice@example.com", "[Curriculum Wiki] “Chapter One” was changed by bob"),
        ("frank@example.com", "[Curriculum Wiki] “Chapter One” was changed by bob"),
    ]
    assert mail.outbox[0].body == (
        "“Chapter One” was changed by bob.\n"
        "Summary: Tightened\n"
        "The page: http://testserver/area-a/section-a1/chapter-one/\n"
        "Its history: http://testserver/history/area-a/section-a1/chapter-one/\n"
    )


@pytest.mark.django_db
def test_nothing_is_sent_before_the_change_commits(client, watchers):
    client.force_login(watchers["page"])
    save_in_editor(client, body="Better.")
    assert mail.outbox == []


@pytest.mark.django_db
def test_watchers_hear_of_a_proposal_and_of_its_review(
    client, watchers, django_capture_on_commit_callbacks
):
    edit("Chapter One", status="published")
    client.force_login(watchers["section"])  # alice, an editor
    with django_capture_on_commit_callbacks(execute=True):
        save_in_editor(client, body="Proposed.")
    assert sent() == [
        (
            "bob@example.com",
            "[Curriculum Wiki] A change to “Chapter One” by alice waits for review",
        ),
        (
            "frank@example.com",
            "[Curriculum Wiki] A change to “Chapter One” by alice waits for review",
        ),
    ]
    mail.outbox.clear()
    reviewer = watching("rev", "Chapter One", role="Reviewer")
    client.force_login(reviewer)
    change = PendingChange.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(change.get_absolute_url(), {"decision": "approve", "version": change.version})
    subject = "[Curriculum Wiki] The change to “Chapter One” by alice was approved by rev"
    assert sent() == [
        ("alice@example.com", subject),
        ("bob@example.com", subject),
        ("frank@example.com", subject),
    ]


@pytest.mark.django_db
def test_the_author_hears_a_change_was_sent_back(
    client, small_tree, django_capture_on_commit_callbacks
):
    edit("Chapter One", status="published")
    author = role_user("ed", "Editor")
    client.force_login(author)
    save_in_editor(client, body="Proposed.")
    client.force_login(role_user("rev", "Reviewer"))
    with django_capture_on_commit_callbacks(execute=True):
        change = PendingChange.objects.get()
        client.post(
            change.get_absolute_url(),
            {"decision": "send_back", "comment": "Cite a source.", "version": change.version},
        )
    assert sent() == [
        (
            "ed@example.com",
            "[Curriculum Wiki] The change to “Chapter One” by ed was sent back by rev",
        )
    ]
    assert "Their comment: Cite a source.\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_a_proposal_is_mailed_to_editors_only_under_the_page_s_published_title(
    client, small_tree, django_capture_on_commit_callbacks
):
    edit("Chapter One", status="published")
    reader = User.objects.create_user("reader", "reader@example.com", "pw")
    Watch.objects.create(user=reader, node=node("Chapter One"))
    watching("bob", "Chapter One")
    client.force_login(role_user("ed", "Editor"))
    with django_capture_on_commit_callbacks(execute=True):
        save_in_editor(client, title="Unapproved title", body="Proposed.")

    assert PendingChange.objects.get().title == "Unapproved title"
    assert sent() == [
        ("bob@example.com", "[Curriculum Wiki] A change to “Chapter One” by ed waits for review")
    ]
    assert mail.outbox[0].body.startswith("ed proposed a change to “Chapter One”; it waits")


@pytest.mark.django_db
def test_a_change_sent_back_is_mailed_to_editors_only(
    client, small_tree, django_capture_on_commit_callbacks
):
    edit("Chapter One", status="published")
    reader = User.objects.create_user("reader", "reader@example.com", "pw")
    Watch.objects.create(user=reader, node=node("Chapter One"))
    watching("bob", "Chapter One")
    client.force_login(role_user("ed", "Editor"))
    save_in_editor(client, body="Proposed.")
    change = PendingChange.objects.get()
    client.force_login(role_user("rev", "Reviewer"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            change.get_absolute_url(),
            {"decision": "send_back", "comment": "No.", "version": change.version},
        )

    subject = "[Curriculum Wiki] The change to “Chapter One” by ed was sent back by rev"
    assert sent() == [("ed@example.com", subject), ("bob@example.com", subject)]


@pytest.mark.django_db
def test_watch_and_unwatch_buttons(client, small_tree):
    user = role_user("ed", "Editor")
    client.force_login(user)
    page = soup(client.get(CHAPTER_ONE))
    assert page.select_one(".watch-form button").get_text() == "Watch"
    response = client.post(f"/watch{CHAPTER_ONE}", follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "You watch “Chapter One”: changes to it are e-mailed to you."
    ]
    assert soup(client.get(CHAPTER_ONE)).select_one(".watch-form button").get_text() == (
        "Stop watching"
    )
    client.post("/watch/area-a/", {"watch": "1"})
    through = soup(client.get(CHAPTER_ONE)).select_one(".watched-through")
    assert " ".join(through.get_text().split()) == "Watched with “Area A”"
    client.post(f"/watch{CHAPTER_ONE}", {"unwatch": "1"})
    assert [w.node.title for w in Watch.objects.filter(user=user)] == ["Area A"]
    client.logout()
    assert client.post(f"/watch{CHAPTER_ONE}").status_code == 403
    assert soup(client.get(CHAPTER_ONE)).find(class_="watch-form") is None


@pytest.mark.django_db
def test_a_mail_server_that_fails_is_logged_and_the_saved_change_stands(
    client, watchers, settings, caplog, django_capture_on_commit_callbacks
):
    # Port 9 (discard) on the loopback refuses the connection at once.
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 1
    client.force_login(watchers["page"])

    with django_capture_on_commit_callbacks(execute=True):
        response = save_in_editor(client, body="Saved.")

    assert (response.status_code, node("Chapter One").body) == (302, "Saved.")
    assert [record.getMessage().split(" (")[0] for record in caplog.records] == [
        "Error calling _send_after_commit.<locals>.send_mail_after_commit in on_commit()"
    ]
