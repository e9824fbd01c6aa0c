"""The outline on the site (chapters.edit.outline, chapters.edit.arrange): editors see the
tree a branch at a time, move pages up, down, in, out and by drop, change slugs and add
pages, under the one move rule: an editor's move of what readers see goes to review."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chapters.models import Node, PathRedirect, PendingChange
from tests.helpers import edit, form_values, node, role_user, soup

JSON = {"HTTP_ACCEPT": "application/json"}
A1 = "/outline/area-a/section-a1/"


def titles(parent):
    """Return the titles of the pages directly in the section titled ``parent``."""
    return [child.title for child in node(parent).get_children()]


def post(client, url=A1, **data):
    """Post a change to the outline at ``url`` as the script does; return the response."""
    return client.post(url, data, **JSON)


@pytest.fixture
def editor(client, small_tree):
    """The client, signed in as an editor."""
    client.force_login(role_user("ed", "Editor"))
    return client


@pytest.mark.django_db
def test_the_outline_is_for_editors(client, small_tree):
    assert client.get("/outline/")["Location"] == "/accounts/login/?next=/outline/"
    client.force_login(get_user_model().objects.create_user("reader", password="pw"))
    assert client.get("/outline/").status_code == 403
    assert client.post(A1, {"node": node("Chapter One").pk, "action": "down"}).status_code == 403
    assert titles("Section A1") == ["Chapter One", "Chapter Two", "Chapter Three"]


@pytest.mark.django_db
def test_the_outline_shows_one_branch_at_a_time(editor):
    page = soup(editor.get("/outline/"))
    rows = page.select(".outline-tree > .outline-row")
    assert [row.select_one(".outline-title").get_text() for row in rows] == ["Area A", "Area B"]
    assert rows[0].select_one(".outline-toggle")["href"] == "/outline/area-a/"
    assert rows[0].select_one(".outline-branch").get_text(strip=True) == ""  # not loaded

    page = soup(editor.get("/outline/area-a/"))
    assert [li.get_text() for li in page.select(".breadcrumb li")] == ["Outline", "Area A"]
    rows = page.select(".outline-tree > .outline-row")
    assert [row.select_one(".outline-title").get_text() for row in rows] == [
        "Section A1",
        "Section A2",
    ]
    part = editor.get("/outline/area-a/section-a1/?part=children").content.decode()
    assert "<html" not in part
    rows = soup(editor.get("/outline/area-a/section-a1/?part=children")).select(".outline-row")
    assert [
        (row.select_one(".outline-title").get_text(), row.select_one(".outline-title")["href"])
        for row in rows
    ] == [
        ("Chapter One", "/area-a/section-a1/chapter-one/"),
        ("Chapter Two", "/area-a/section-a1/chapter-two/"),
        ("Chapter Three", "/area-a/section-a1/chapter-three/"),
    ]
    assert rows[0].select_one(".outline-toggle") is None  # a chapter has no branch
    assert editor.get("/outline/area-a/section-a1/chapter-one/").status_code == 404


@pytest.mark.django_db
def test_an_editor_moves_draft_pages_up_down_in_and_out(editor):
    response = post(editor, node=node("Chapter One").pk, action="down")
    assert response.json() == {
        "ok": True,
        "message": "“Chapter One” moved after “Chapter Two”.",
        "review": None,
        "moved": True,
        "target": node("Chapter Two").pk,
        "position": "right",
    }
    assert titles("Section A1") == ["Chapter Two", "Chapter One", "Chapter Three"]
    post(editor, node=node("Chapter Three").pk, action="up")
    assert titles("Section A1") == ["Chapter Two", "Chapter Three", "Chapter One"]

    post(editor, "/outline/area-a/", node=node("Section A2").pk, action="in")
    assert titles("Area A") == ["Section A1"]
    assert titles("Section A1") == ["Chapter Two", "Chapter Three", "Chapter One", "Section A2"]
    assert node("Chapter Four").path == "area-a/section-a1/section-a2/chapter-four"
    post(editor, node=node("Section A2").pk, action="out")
    assert titles("Area A") == ["Section A1", "Section A2"]
    latest = Node.history.filter(id=node("Section A2").pk).first()
    assert latest.history_user.username == "ed"


@pytest.mark.django_db
def test_a_drop_puts_the_page_before_after_or_into_another(editor):
    five = node("Chapter Five").pk
    post(editor, node=five, action="drop", target=node("Chapter Two").pk, position="left")
    assert titles("Section A1") == ["Chapter One", "Chapter Five", "Chapter Two", "Chapter Three"]
    post(editor, node=five, action="drop", target=node("Section A2").pk, position="last-child")
    assert titles("Section A2") == ["Chapter Four", "Chapter Five"]
    assert titles("Section B1") == ["Chapter Six"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "data", "message"),
    [
        ("Chapter One", {"action": "up"}, "“Chapter One” is first in its section already."),
        ("Chapter Three", {"action": "down"}, "“Chapter Three” is last in its section already."),
        (
            "Chapter Two",
            {"action": "in"},
            "The page above “Chapter Two” is a chapter: only a section takes it.",
        ),
        ("Area A", {"action": "out"}, "“Area A” is at the top level already."),
        ("Chapter One", {"action": "sideways"}, "Choose how to move the page."),
        (
            "Chapter One",
            {"action": "drop", "target": "Area A", "position": "beside"},
            "Drop the page before, after or into another.",
        ),
        (
            "Section A1",
            {"action": "drop", "target": "Chapter Four", "position": "last-child"},
            "“Chapter Four” is a chapter; chapters cannot have children.",
        ),
        (
            "Area A",
            {"action": "drop", "target": "Chapter Four", "position": "left"},
            "A node cannot be moved under itself or one of its descendants.",
        ),
    ],
)
def test_a_move_the_tree_refuses_changes_nothing_and_says_why(editor, title, data, message):
    before = [(n.pk, n.parent_id, n.lft, n.path) for n in Node.objects.order_by("pk")]
    if "target" in data:
        data = {**data, "target": node(data["target"]).pk}
    response = post(editor, node=node(title).pk, **data)
    assert (response.json()["ok"], response.json()["message"]) == (False, message)
    assert [(n.pk, n.parent_id, n.lft, n.path) for n in Node.objects.order_by("pk")] == before


@pytest.mark.django_db
def test_a_chapter_moved_out_to_the_top_level_is_refused(editor):
    response = post(editor, "/outline/area-a/", node=node("Section A1").pk, action="out")
    assert response.status_code == 200  # a section may be an area
    response = post(editor, "/outline/area-b/", node=node("Chapter Five").pk, action="out")
    assert response.json()["ok"] is True  # out of Section B1, into Area B
    response = post(editor, "/outline/area-b/", node=node("Chapter Five").pk, action="out")
    assert (response.json()["ok"], response.json()["message"]) == (
        False,
        "A chapter must belong to a section.",
    )


@pytest.mark.django_db
def test_an_editor_s_move_of_a_published_page_waits_for_review(client, small_tree, run_tasks):
    edit("Chapter One", status="published")
    client.force_login(role_user("ed", "Editor"))
    role_user("rev", "Reviewer")
    response = post(client, node=node("Chapter One").pk, action="down")
    change = PendingChange.objects.get()
    assert response.json() == {
        "ok": True,
        "message": "Your change waits for a reviewer: readers see it once it is approved.",
        "review": f"/review/{change.pk}/",
        "moved": False,
        "target": node("Chapter Two").pk,
        "position": "right",
    }
    assert titles("Section A1") == ["Chapter One", "Chapter Two", "Chapter Three"]
    assert (change.parent, change.target, change.position, change.summary) == (
        node("Section A1"),
        node("Chapter Two"),
        "right",
        "Move to “Section A1”",
    )
    assert change.place() == "after “Chapter Two”"
    run_tasks()
    assert [m.to for m in mail.outbox] == [["rev@example.com"]]

    client.force_login(role_user("rita", "Reviewer"))
    page = soup(client.get(change.get_absolute_url()))
    assert page.select_one(".change-place").get_text() == "It moves the page after “Chapter Two”."
    form = form_values(page, "review-decision")
    client.post(change.get_absolute_url(), {**form, "decision": "approve"})
    assert titles("Section A1") == ["Chapter Two", "Chapter One", "Chapter Three"]
    change.refresh_from_db()
    assert change.state == "approved"


@pytest.mark.django_db
def test_an_editor_s_move_joins_their_pending_edit_of_the_page(client, small_tree):
    edit("Chapter One", status="published", body="Published.")
    client.force_login(role_user("ed", "Editor"))
    edit_form = form_values(soup(client.get("/edit/area-a/section-a1/chapter-one/")), "editor")
    client.post(
        "/edit/area-a/section-a1/chapter-one/", {**edit_form, "body": "Proposed.", "save": "1"}
    )
    post(client, node=node("Chapter One").pk, action="drop", target=node("Section A2").pk,
         position="last-child")  # fmt: skip
    change = PendingChange.objects.get()
    assert (change.body, change.parent, change.position) == (
        "Proposed.",
        node("Section A2"),
        "last-child",
    )


@pytest.mark.django_db
def test_a_reviewer_moves_a_published_page_at_once(client, small_tree):
    edit("Chapter One", status="published")
    client.force_login(role_user("rev", "Reviewer"))
    assert post(client, node=node("Chapter One").pk, action="down").json()["moved"] is True
    assert titles("Section A1") == ["Chapter Two", "Chapter One", "Chapter Three"]
    assert PendingChange.objects.count() == 0


@pytest.mark.django_db
def test_a_new_slug_moves_the_address_and_the_old_one_redirects(editor):
    response = editor.post(A1, {"node": node("Chapter One").pk, "action": "slug", "slug": "intro"})
    assert response["Location"] == A1
    assert node("Chapter One").path == "area-a/section-a1/intro"
    assert PathRedirect.objects.filter(old_path="area-a/section-a1/chapter-one").exists()
    moved = editor.get("/area-a/section-a1/chapter-one/")
    assert (moved.status_code, moved["Location"]) == (301, "/area-a/section-a1/intro/")
    messages = [m.get_text() for m in soup(editor.get(A1)).select(".messages li")]
    assert messages == ["“Chapter One” is now at /area-a/section-a1/intro/."]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("slug", "message"),
    [
        ("", "Give the page an address: letters, digits, hyphens."),
        ("chapter-two", "A sibling already uses the slug “chapter-two”."),
        (
            "no spaces",
            "Enter a valid “slug” consisting of Unicode letters, numbers, underscores, or "
            "hyphens.",
        ),
    ],
)  # fmt: skip
def test_a_slug_the_tree_refuses_is_not_saved(editor, slug, message):
    response = post(editor, node=node("Chapter One").pk, action="slug", slug=slug)
    assert (response.json()["ok"], response.json()["message"]) == (False, message)
    assert node("Chapter One").slug == "chapter-one"


@pytest.mark.django_db
def test_an_editor_s_new_slug_for_a_published_page_waits_for_review(client, small_tree):
    edit("Chapter One", status="published")
    client.force_login(role_user("ed", "Editor"))
    post(client, node=node("Chapter One").pk, action="slug", slug="intro")
    change = PendingChange.objects.get()
    assert (change.slug, node("Chapter One").slug) == ("intro", "chapter-one")
    client.force_login(role_user("rev", "Reviewer"))
    form = form_values(soup(client.get(change.get_absolute_url())), "review-decision")
    client.post(change.get_absolute_url(), {**form, "decision": "approve"})
    assert node("Chapter One").path == "area-a/section-a1/intro"


@pytest.mark.django_db
def test_editors_add_sections_and_chapters_as_drafts(editor):
    response = editor.post(A1, {"action": "add", "title": "Kernel Fusion", "kind": "chapter"})
    assert response["Location"] == A1
    editor.post(A1, {"action": "add", "title": "Advanced", "kind": "section"})
    editor.post("/outline/", {"action": "add", "title": "Area C", "kind": "section"})
    added = node("Kernel Fusion")
    assert (added.kind, added.status, added.path) == (
        "chapter",
        "draft",
        "area-a/section-a1/kernel-fusion",
    )
    assert titles("Section A1")[-2:] == ["Kernel Fusion", "Advanced"]
    assert [n.title for n in Node.objects.root_nodes()] == ["Area A", "Area B", "Area C"]
    response = post(editor, action="add", title="  ", kind="chapter")
    assert (response.json()["ok"], response.json()["message"]) == (
        False,
        "The title cannot be blank.",
    )
    response = post(editor, "/outline/", action="add", title="Loose", kind="chapter")
    assert response.json()["message"] == "A chapter must belong to a section."


@pytest.mark.django_db
def test_a_branch_costs_the_same_queries_whatever_the_tree_s_size(editor):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            assert editor.get(f"{A1}?part=children").status_code == 200
        return len(captured)

    small = queries()
    for i in range(40):
        area = Node.objects.create(title=f"Big {i}", kind="section")
        part = Node.objects.create(title=f"Part {i}", kind="section", parent=area)
        Node.objects.create(title=f"Page {i}", parent=part)
        Node.objects.create(title=f"Page {i} in A1", parent=node("Section A1"))
    assert queries() == small
