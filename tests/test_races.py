"""Editors racing each other on PostgreSQL, each race forced deterministically.

The test's own connection takes the tree's lock (``lock_tree``) in a transaction, starts the
racing writers in threads (each with a connection of its own, as server processes have), and
waits until PostgreSQL shows them waiting for that lock in ``pg_locks``; then it makes its
own write, or none, and commits, which lets them go. Every write path takes the lock before
it reads the tree, so each writer must then see the tree as the others left it: a form
error or an "invalid move", never a 500, and a tree that keeps its rules.
"""

import json
import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from django.urls import reverse

from chapters.curriculum_file import export_curriculum, import_curriculum
from chapters.models import Node, PendingChange, lock_tree
from tests.helpers import edit, node, role_user, soup
from tests.test_admin import change_url, form_data

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 30


class Racer(threading.Thread):
    """Run ``work()`` in a thread with its own database connection; keep what it returned."""

    def __init__(self, work):
        super().__init__(daemon=True)
        self.work = work
        self.result = self.error = None

    def run(self):
        try:
            self.result = self.work()
        except Exception as error:  # reported by finish(), in the test's thread
            self.error = error
        finally:
            connections.close_all()

    def finish(self):
        """Wait for the thread; return its result, or raise what it raised."""
        self.join(WAIT_SECONDS)
        assert not self.is_alive(), "a writer is still waiting: a deadlock?"
        if self.error is not None:
            raise self.error
        return self.result


def waiting_for_the_lock():
    """Return how many connections are waiting for an advisory lock."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        return cursor.fetchone()[0]


def race(*works, meanwhile=None):
    """Start each of ``works`` while this test holds the tree's lock, once all wait for it
    run ``meanwhile`` (still holding it), then let them go; return their results in order.
    """
    with transaction.atomic():
        lock_tree()
        racers = [Racer(work) for work in works]
        for racer in racers:
            racer.start()
        deadline = time.monotonic() + WAIT_SECONDS
        while waiting_for_the_lock() < len(racers):
            assert time.monotonic() < deadline, "the writers never waited for the tree's lock"
            time.sleep(0.01)
        if meanwhile is not None:
            meanwhile()
    return [racer.finish() for racer in racers]


def signed_in(user):
    """Return a test client signed in as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def change_form(title, **changes):
    """Return the admin change form's POST data for the node titled ``title``, as opened now
    (with its base revision)."""
    base = Node.history.filter(id=node(title).pk).first().history_id
    return form_data(title, summary="", base_revision=base, **changes)


def post(client, url, data):
    """Return a function posting ``data`` to ``url``: the response's status and errors."""

    def send():
        response = client.post(url, data)
        page = soup(response)
        return response.status_code, [
            e.get_text(" ", strip=True) for e in page.select(".errorlist li")
        ]

    return send


def assert_tree_is_valid():
    """Assert that the stored tree keeps every rule, and no two nodes share a place."""
    assert Node.objects.check_tree() == []
    places = list(Node.objects.values_list("tree_id", "lft"))
    assert len(places) == len(set(places))


def test_races_opposite_moves_through_two_change_forms(admin_user, small_tree):
    one, two = signed_in(admin_user), signed_in(admin_user)
    results = race(
        post(
            one, change_url("Section A1"), change_form("Section A1", parent=node("Section A2").pk)
        ),
        post(
            two, change_url("Section A2"), change_form("Section A2", parent=node("Section A1").pk)
        ),
    )
    assert sorted(status for status, _ in results) == [200, 302]
    [refused] = [errors for status, errors in results if status == 200]
    # The form offers no descendant of the node as its parent (django-mptt's MPTTAdminForm).
    assert refused == ["Select a valid choice. That choice is not one of the available choices."]
    assert_tree_is_valid()


def test_races_a_parent_deleted_between_opening_and_saving_a_form(admin_user, small_tree):
    editor = signed_in(admin_user)
    data = change_form("Chapter Five", parent=node("Section A2").pk)
    [(status, errors)] = race(
        post(editor, change_url("Chapter Five"), data),
        meanwhile=lambda: node("Section A2").delete(),
    )
    assert (status, errors) == (
        200,
        ["Select a valid choice. That choice is not one of the available choices."],
    )
    assert node("Chapter Five").parent == node("Section B1")
    assert_tree_is_valid()


def test_races_two_adds_with_one_slug(admin_user, small_tree):
    url = reverse("admin:chapters_node_add")
    data = {
        "title": "Fusion",
        "slug": "fusion",
        "kind": "chapter",
        "status": "draft",
        "parent": node("Section A2").pk,
        "body": "",
    }
    results = race(post(signed_in(admin_user), url, data), post(signed_in(admin_user), url, data))
    assert sorted(results) == [(200, ["A sibling already uses the slug “fusion”."]), (302, [])]
    assert Node.objects.filter(slug="fusion").count() == 1
    assert_tree_is_valid()


def test_races_a_move_into_a_section_that_another_form_makes_a_chapter(admin_user, small_tree):
    node("Chapter Four").delete()  # Section A2 is now empty, so it may become a chapter
    move = change_form("Chapter Five", parent=node("Section A2").pk)
    to_chapter = change_form("Section A2", kind="chapter")
    results = race(
        post(signed_in(admin_user), change_url("Chapter Five"), move),
        post(signed_in(admin_user), change_url("Section A2"), to_chapter),
    )
    assert sorted(status for status, _ in results) == [200, 302]
    [refused] = [errors for status, errors in results if status == 200]
    assert refused in (
        ["“Section A2” is a chapter; chapters cannot have children."],
        ["This node has children, so it must stay a section."],
    )
    assert_tree_is_valid()


def test_races_a_restore_while_a_move_is_in_progress(admin_user, small_tree):
    node("Chapter Two").delete()
    deletion = Node.history.get(history_type="-", title="Chapter Two")
    url = reverse("admin:chapters_node_restore", args=[deletion.history_id])
    editor = signed_in(admin_user)
    [(status, _)] = race(
        post(editor, url, {}),
        meanwhile=lambda: Node.objects.move_node(
            node("Chapter Four"), node("Chapter One"), "right"
        ),
    )
    assert status == 302
    assert [n.title for n in node("Section A1").get_children()] == [
        "Chapter One",
        "Chapter Two",
        "Chapter Four",
        "Chapter Three",
    ]
    assert_tree_is_valid()


def test_races_an_import_while_a_move_is_in_progress(small_tree):
    document = json.loads(export_curriculum())
    at = next(i for i, n in enumerate(document["nodes"]) if n["title"] == "Chapter Two")
    added = {**document["nodes"][at], "title": "Chapter Two B", "slug": "chapter-two-b"}
    added["path"] = f"{added['parent']}/chapter-two-b"
    document["nodes"].insert(at + 1, added)
    [counts] = race(
        lambda: import_curriculum(json.dumps(document).encode(), "race.json"),
        meanwhile=lambda: Node.objects.move_node(
            node("Chapter Three"), node("Chapter One"), "left"
        ),
    )
    assert (counts.added, counts.changed) == (1, 1)
    assert [n.title for n in node("Section A1").get_children()] == [
        "Chapter One",
        "Chapter Two",
        "Chapter Two B",
        "Chapter Three",
    ]
    assert_tree_is_valid()


def test_races_a_drag_that_another_editors_move_makes_invalid(admin_user, small_tree):
    editor = signed_in(admin_user)
    data = {
        "cmd": "move_node",
        "cut_item": node("Section A1").pk,
        "pasted_on": node("Section A2").pk,
        "position": "last-child",
    }

    def drag():
        response = editor.post(reverse("admin:chapters_node_changelist"), data)
        return response.status_code, response.content.decode()

    [(status, answer)] = race(
        drag,
        meanwhile=lambda: Node.objects.move_node(
            node("Section A2"), node("Section A1"), "last-child"
        ),
    )
    assert (status, answer) == (200, "FAIL, invalid move.")
    assert node("Section A2").parent == node("Section A1")
    assert_tree_is_valid()


def test_races_two_reviewers_deciding_on_one_change_at_once(small_tree):
    edit("Chapter One", status="published", body="Published text.")
    page = node("Chapter One")
    change = PendingChange.objects.create(
        node=page, author=role_user("ed", "Editor"), base_revision=page.history.first().history_id,
        title=page.title, status="published", parent=page.parent, body="Proposed.",
    )  # fmt: skip
    url, seen = change.get_absolute_url(), change.version
    approving, sending = (
        signed_in(role_user("rev", "Reviewer")),
        signed_in(role_user("rev2", "Reviewer")),
    )

    def decide(client, data):
        return lambda: client.post(url, {**data, "version": seen})["Location"]

    locations = race(
        decide(approving, {"decision": "approve"}),
        decide(sending, {"decision": "send_back", "comment": "No."}),
    )

    change.refresh_from_db()
    approved = [
        r for r in node("Chapter One").history.all()
        if (r.history_change_reason or "").startswith("Approved by")
    ]  # fmt: skip
    if change.state == "approved":
        assert (locations, len(approved), node("Chapter One").body) == (
            ["/area-a/section-a1/chapter-one/", url], 1, "Proposed."
        )  # fmt: skip
    else:
        assert (change.state, locations, approved) == ("sent_back", [url, "/review/"], [])
