"""Watching pages and the e-mail watchers get (chapters.edit.notify): exact recipients,
subjects and bodies, from every door a write comes through, once it commits, by a background
task, never for one's own doing; a mail server that fails loses nothing."""

import json

import pytest
from django.contrib.auth.models import User
from django.core import mail, serializers
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from chapters.files.export import export_files
from chapters.files.folder import read_zip, zip_folder
from chapters.files.importer import import_folder
from chapters.models import Node, Notification, PendingChange, Watch
from tests.helpers import edit, form_values, node, role_user, soup

CHAPTER_ONE = "/area-a/section-a1/chapter-one/"
EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
CHANGELIST = reverse("admin:chapters_node_changelist")


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


def changed_by(author, title="Chapter One"):
    """Return the subject of the mail telling that ``author`` changed the page ``title``."""
    return f"[Curriculum Wiki] “{title}” was changed by {author}"


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
def test_watchers_hear_of_a_saved_change_but_not_its_author(client, watchers, run_tasks):
    client.force_login(watchers["page"])
    save_in_editor(client, body="Better.", summary="Tightened")
    assert mail.outbox == []  # a task sends it once the write has committed
    run_tasks()
    assert sent() == [
        ("alice@example.com", changed_by("bob")),
        ("frank@example.com", changed_by("bob")),
    ]
    assert mail.outbox[0].body == (
        "“Chapter One” was changed by bob.\n"
        "Summary: Tightened\n"
        "The page: http://testserver/area-a/section-a1/chapter-one/\n"
        "Its history: http://testserver/history/area-a/section-a1/chapter-one/\n"
    )
    notes = Notification.objects.order_by("recipient__username")
    assert [(n.recipient.username, n.url, n.emailed is not None) for n in notes] == [
        ("alice", "/area-a/section-a1/chapter-one/", True),
        ("dave", "/area-a/section-a1/chapter-one/", False),  # no address: not e-mailed
        ("frank", "/area-a/section-a1/chapter-one/", True),
    ]


@pytest.mark.django_db
def test_a_write_that_is_refused_tells_no_one_and_enqueues_nothing(client, watchers, run_tasks):
    client.force_login(watchers["page"])
    response = save_in_editor(client, title="", body="Lost?")
    assert response.status_code == 200  # the form again, with its error
    assert DBTaskResult.objects.count() == 0
    assert run_tasks() == 0 and mail.outbox == []


@pytest.mark.django_db
def test_a_summary_s_line_breaks_cannot_fake_lines_in_the_mail(client, watchers, run_tasks):
    client.force_login(watchers["page"])
    save_in_editor(client, body="Better.", summary="Fixed\nThe page: http://evil.example/")
    run_tasks()
    assert "Summary: Fixed The page: http://evil.example/\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_watchers_hear_of_an_admin_form_save(admin_client, watchers, run_tasks):
    url = reverse("admin:chapters_node_change", args=[node("Chapter One").pk])
    data = form_values(soup(admin_client.get(url)), "node_form")
    response = admin_client.post(
        url, {**data, "body": "From the admin.", "summary": "Admin edit", "_save": "Save"}
    )
    assert response.status_code == 302
    run_tasks()
    assert sent() == [
        ("alice@example.com", changed_by("admin")),
        ("bob@example.com", changed_by("admin")),
        ("frank@example.com", changed_by("admin")),
    ]
    assert "Summary: Admin edit\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_watchers_hear_of_an_admin_drag(admin_client, watchers, run_tasks):
    response = admin_client.post(
        CHANGELIST,
        {
            "cmd": "move_node",
            "cut_item": node("Chapter One").pk,
            "pasted_on": node("Section B1").pk,
            "position": "last-child",
        },
    )
    assert response.content == b"OK, moved."
    run_tasks()
    # Carol watches Area B, where the page went; those watching its old sections do not
    # watch it any more.
    assert sent() == [
        ("bob@example.com", changed_by("admin")),
        ("carol@example.com", changed_by("admin")),
    ]
    assert "The page: http://testserver/area-b/section-b1/chapter-one/\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_watchers_hear_of_a_delete_in_the_admin_and_of_the_pages_deleted_with_a_section(
    admin_client, watchers, run_tasks
):
    url = reverse("admin:chapters_node_delete", args=[node("Section A1").pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    run_tasks()
    subject = "[Curriculum Wiki] “Section A1” was deleted by admin"
    # Bob watched Chapter One, deleted with its section: his watch went with it, and he is
    # told all the same.
    assert sent() == [
        ("alice@example.com", subject),
        ("bob@example.com", subject),
        ("frank@example.com", subject),
    ]
    assert mail.outbox[0].body == (
        "“Section A1” was deleted by admin, with 3 pages under it.\nSummary: Deleted\n"
    )


@pytest.mark.django_db
def test_watchers_hear_of_a_bulk_delete_in_one_message_each(admin_client, watchers, run_tasks):
    chosen = [node("Chapter One").pk, node("Chapter Five").pk]
    admin_client.post(
        CHANGELIST,
        {"action": "delete_selected", "_selected_action": chosen, "post": "yes"},
    )
    assert Node.objects.filter(pk__in=chosen).count() == 0
    run_tasks()
    assert sent() == [
        ("alice@example.com", "[Curriculum Wiki] “Chapter One” was deleted by admin"),
        ("bob@example.com", "[Curriculum Wiki] “Chapter One” was deleted by admin"),
        ("carol@example.com", "[Curriculum Wiki] “Chapter Five” was deleted by admin"),
        ("frank@example.com", "[Curriculum Wiki] “Chapter One” was deleted by admin"),
    ]


@pytest.mark.django_db
def test_watchers_hear_of_a_revert_on_the_site(client, watchers, run_tasks):
    edit("Chapter One", body="First.")
    first = Node.history.filter(id=node("Chapter One").pk).first()
    edit("Chapter One", body="Second.")
    run_tasks()
    mail.outbox.clear()
    client.force_login(role_user("rev", "Reviewer"))
    client.post(reverse("chapters:revert", args=[first.history_id]))
    assert node("Chapter One").body == "First."
    run_tasks()
    assert sent() == [
        ("alice@example.com", changed_by("rev")),
        ("bob@example.com", changed_by("rev")),
        ("frank@example.com", changed_by("rev")),
    ]
    assert f"Summary: Reverted to revision {first.history_id}\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_watchers_of_a_section_hear_of_a_restore(admin_client, watchers, run_tasks):
    node("Chapter Two").delete()
    run_tasks()
    mail.outbox.clear()
    deletion = Node.history.get(title="Chapter Two", history_type="-")
    admin_client.post(reverse("admin:chapters_node_restore", args=[deletion.history_id]))
    run_tasks()
    subject = "[Curriculum Wiki] “Chapter Two” was added by admin"
    assert sent() == [
        ("alice@example.com", subject),
        ("frank@example.com", subject),
    ]
    assert "Summary: Restored\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_watchers_hear_of_an_import_of_a_curriculum_file(watchers, run_tasks, tmp_path):
    call_command("export_curriculum", output=tmp_path / "wiki.json")
    document = json.loads((tmp_path / "wiki.json").read_text())
    for entry in document["nodes"]:
        if entry["title"] in ("Chapter One", "Chapter Five"):
            entry["body"] = "Imported."
    (tmp_path / "wiki.json").write_text(json.dumps(document))
    call_command("import_curriculum", tmp_path / "wiki.json", verbosity=0)
    run_tasks()
    assert sent() == [
        ("alice@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
        ("bob@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
        ("carol@example.com", "[Curriculum Wiki] “Chapter Five” was changed"),
        ("frank@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
    ]
    assert "Summary: Imported from wiki.json\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_a_watcher_of_both_pages_an_import_changes_gets_one_message(small_tree, run_tasks):
    watching("alice", "Area A")
    files = export_files()
    for path in list(files):
        if path.endswith(("chapter-one.md", "chapter-four.md")):
            files[path] = files[path].replace(b"\n---\n", b"\n---\nImported text.\n", 1)
    import_folder(read_zip(zip_folder(files)))
    run_tasks()
    assert sent() == [("alice@example.com", "[Curriculum Wiki] 2 pages were changed")]
    body = mail.outbox[0].body
    assert body.startswith("“Chapter One” was changed.\nSummary: Imported\n")
    assert "\n\n“Chapter Four” was changed.\nSummary: Imported\n" in body


@pytest.mark.django_db
def test_watchers_hear_of_a_save_made_in_code(watchers, run_tasks):
    edit("Chapter One", body="From a script.", summary="Scripted")
    run_tasks()
    assert sent() == [
        ("alice@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
        ("bob@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
        ("frank@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
    ]
    assert "The page: http://127.0.0.1:8000/area-a/section-a1/chapter-one/\n" in (
        mail.outbox[0].body
    )  # WIKI_BASE_URL, with no request


@pytest.mark.django_db
def test_watchers_hear_of_a_proposal_and_of_its_review(client, watchers, run_tasks):
    edit("Chapter One", status="published")
    run_tasks()
    mail.outbox.clear()
    client.force_login(watchers["section"])  # alice, an editor
    save_in_editor(client, body="Proposed.")
    run_tasks()
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
    client.post(change.get_absolute_url(), {"decision": "approve", "version": change.version})
    run_tasks()
    subject = "[Curriculum Wiki] The change to “Chapter One” by alice was approved by rev"
    assert sent() == [
        ("alice@example.com", subject),
        ("bob@example.com", subject),
        ("frank@example.com", subject),
    ]  # told of the approval, not once more of the revision it saved


@pytest.mark.django_db
def test_the_author_hears_a_change_was_sent_back(client, small_tree, run_tasks):
    edit("Chapter One", status="published")
    author = role_user("ed", "Editor")
    client.force_login(author)
    save_in_editor(client, body="Proposed.")
    client.force_login(role_user("rev", "Reviewer"))
    change = PendingChange.objects.get()
    client.post(
        change.get_absolute_url(),
        {"decision": "send_back", "comment": "Cite a source.", "version": change.version},
    )
    run_tasks()
    assert sent() == [
        (
            "ed@example.com",
            "[Curriculum Wiki] The change to “Chapter One” by ed was sent back by rev",
        )
    ]
    assert "Their comment: Cite a source.\n" in mail.outbox[0].body


@pytest.mark.django_db
def test_a_proposal_is_mailed_to_editors_only_under_the_page_s_published_title(
    client, small_tree, run_tasks
):
    edit("Chapter One", status="published")
    run_tasks()
    reader = User.objects.create_user("reader", "reader@example.com", "pw")
    Watch.objects.create(user=reader, node=node("Chapter One"))
    watching("bob", "Chapter One")
    client.force_login(role_user("ed", "Editor"))
    save_in_editor(client, title="Unapproved title", body="Proposed.")
    run_tasks()

    assert PendingChange.objects.get().title == "Unapproved title"
    assert sent() == [
        ("bob@example.com", "[Curriculum Wiki] A change to “Chapter One” by ed waits for review")
    ]
    assert mail.outbox[0].body.startswith("ed proposed a change to “Chapter One”; it waits")


@pytest.mark.django_db
def test_a_change_sent_back_is_mailed_to_editors_only(client, small_tree, run_tasks):
    edit("Chapter One", status="published")
    reader = User.objects.create_user("reader", "reader@example.com", "pw")
    Watch.objects.create(user=reader, node=node("Chapter One"))
    watching("bob", "Chapter One")
    client.force_login(role_user("ed", "Editor"))
    save_in_editor(client, body="Proposed.")
    change = PendingChange.objects.get()
    run_tasks()
    mail.outbox.clear()
    client.force_login(role_user("rev", "Reviewer"))
    client.post(
        change.get_absolute_url(),
        {"decision": "send_back", "comment": "No.", "version": change.version},
    )
    run_tasks()

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
def test_mail_that_fails_is_logged_and_sent_once_when_the_server_is_back(
    client, watchers, settings, caplog, run_tasks
):
    # Port 9 (discard) on the loopback refuses the connection at once.
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 1
    client.force_login(watchers["page"])

    response = save_in_editor(client, body="Saved.")
    run_tasks()

    assert (response.status_code, node("Chapter One").body) == (302, "Saved.")
    (failure,) = [r for r in caplog.records if r.levelname == "ERROR"]
    assert failure.getMessage().endswith("path=chapters.tasks.send_notifications state=FAILED")
    assert "ConnectionRefusedError" in failure.exc_text
    (waiting,) = DBTaskResult.objects.filter(status="READY")
    assert waiting.task_path == "chapters.tasks.send_notifications"
    assert Notification.objects.filter(emailed=None).count() == 3

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    DBTaskResult.objects.filter(pk=waiting.pk).update(run_after=timezone.now())
    run_tasks()
    assert sent() == [
        ("alice@example.com", changed_by("bob")),
        ("frank@example.com", changed_by("bob")),
    ]
    run_tasks()
    assert len(mail.outbox) == 2  # sent once


@pytest.mark.django_db
def test_watchers_hear_of_a_page_a_fixture_changes(watchers, run_tasks, tmp_path):
    fixture = tmp_path / "change.json"
    row = json.loads(serializers.serialize("json", [node("Chapter One")]))
    row[0]["fields"]["body"] = "From a fixture."
    fixture.write_text(json.dumps(row))
    call_command("loaddata", str(fixture), verbosity=0)
    run_tasks()
    assert sent() == [
        ("alice@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
        ("bob@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
        ("frank@example.com", "[Curriculum Wiki] “Chapter One” was changed"),
    ]
    assert "Summary: Loaded from a fixture\n" in mail.outbox[0].body
