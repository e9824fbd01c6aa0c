"""Editing in the admin: the change form refuses edits that would break the tree, and
drag-and-drop moves in the tree change what readers see."""

import json

import pytest
from django.urls import reverse

from chapters.models import Node
from tests.helpers import edit, node, role_user, soup, toc_outline, tree_table

CHANGELIST = reverse("admin:chapters_node_changelist")


def change_url(title):
    """Return the admin change form's URL of the node titled ``title``."""
    return reverse("admin:chapters_node_change", args=[node(title).pk])


def form_data(node_title, **changes):
    """Return the change form's POST data for the node titled ``node_title``, with ``changes``
    (the revision the form was opened at included, as the browser posts it)."""
    current = node(node_title)
    data = {
        "base_revision": Node.history.filter(id=current.pk).first().history_id,
        "title": current.title,
        "slug": current.slug,
        "kind": current.kind,
        "status": current.status,
        "parent": current.parent_id or "",
        "body": current.body,
    }
    data.update(changes)
    return data


def errors(response):
    """Return the change form's error messages by field name."""
    form = response.context["adminform"].form
    return {field: list(messages) for field, messages in form.errors.items()}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "changes", "expected"),
    [
        (
            "Area A",
            {"parent": "Section A1"},
            {"parent": ["Select a valid choice. That choice is not one of the available choices."]},
        ),
        (
            "Section A1",
            {"parent": "Section A1"},
            {"parent": ["Select a valid choice. That choice is not one of the available choices."]},
        ),
        (
            "Chapter Five",
            {"parent": "Chapter One"},
            {"parent": ["“Chapter One” is a chapter; chapters cannot have children."]},
        ),
        (
            "Section A2",
            {"slug": "section-a1"},
            {"slug": ["A sibling already uses the slug “section-a1”."]},
        ),
        ("Chapter Two", {"title": ""}, {"title": ["This field is required."]}),
        ("Chapter Two", {"title": "   "}, {"title": ["This field is required."]}),
        (
            "Section A1",
            {"kind": "chapter"},
            {"kind": ["This node has children, so it must stay a section."]},
        ),
    ],
)
def test_admin_change_form_refuses_edits_that_break_the_tree(
    admin_client, small_tree, title, changes, expected
):
    before = tree_table()
    data = form_data(title, **changes)
    if "parent" in changes:
        data["parent"] = node(changes["parent"]).pk
    response = admin_client.post(change_url(title), data)
    assert response.status_code == 200
    assert errors(response) == expected
    assert tree_table() == before


@pytest.mark.django_db
def test_admin_add_form_refuses_a_slug_a_sibling_has(admin_client, small_tree):
    data = {
        "title": "Again",
        "slug": "chapter-one",
        "kind": "chapter",
        "status": "draft",
        "parent": node("Section A1").pk,
        "body": "",
    }
    response = admin_client.post(reverse("admin:chapters_node_add"), data)
    assert errors(response) == {"slug": ["A sibling already uses the slug “chapter-one”."]}
    assert Node.objects.count() == 11


@pytest.mark.django_db
def test_admin_add_form_makes_a_slug_for_a_title_of_punctuation(admin_client, small_tree):
    data = {
        "title": "?!",
        "slug": "",
        "kind": "chapter",
        "status": "draft",
        "parent": node("Section A1").pk,
        "body": "",
    }
    assert admin_client.post(reverse("admin:chapters_node_add"), data).status_code == 302
    assert node("?!").path == "area-a/section-a1/chapter"


@pytest.mark.django_db
def test_admin_change_form_saves_a_valid_edit(admin_client, small_tree):
    data = form_data("Chapter Four", title="Chapter Four, revised", parent=node("Section B1").pk)
    response = admin_client.post(change_url("Chapter Four"), data)
    assert response.status_code == 302
    moved = Node.objects.get(title="Chapter Four, revised")
    assert (moved.path, moved.parent.title) == ("area-b/section-b1/chapter-four", "Section B1")


def drag(client, cut, pasted_on, position):
    """Post what DraggableMPTTAdmin's script posts when a row is dropped."""
    return client.post(
        CHANGELIST,
        {
            "cmd": "move_node",
            "cut_item": node(cut).pk,
            "pasted_on": node(pasted_on).pk,
            "position": position,
        },
    )


@pytest.mark.django_db
def test_admin_drag_and_drop_reorders_chapters_on_the_site(admin_client, client, small_tree):
    assert drag(admin_client, "Chapter Three", "Chapter One", "left").content == b"OK, moved."
    outline = toc_outline(soup(client.get("/area-b/")))
    assert outline.splitlines()[1:5] == [
        "  Section A1",
        "    Chapter Three",
        "    Chapter One",
        "    Chapter Two",
    ]
    pager = soup(client.get("/area-a/section-a1/chapter-three/")).find(class_="pager")
    assert [(a["rel"], a["href"]) for a in pager.find_all("a")] == [
        (["next"], "/area-a/section-a1/chapter-one/")
    ]


@pytest.mark.django_db
def test_admin_drag_and_drop_moves_a_chapter_into_another_section(admin_client, client, small_tree):
    assert drag(admin_client, "Chapter One", "Section B1", "last-child").content == b"OK, moved."
    assert client.get("/area-b/section-b1/chapter-one/").status_code == 200
    old = client.get("/area-a/section-a1/chapter-one/")
    assert (old.status_code, old["Location"]) == (301, "/area-b/section-b1/chapter-one/")
    children = soup(client.get("/area-b/section-b1/")).find("ol", class_="children")
    assert [li.a.get_text() for li in children.find_all("li")] == [
        "Chapter Five",
        "Chapter Six",
        "Chapter One",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cut", "pasted_on", "position"),
    [
        ("Chapter Five", "Chapter One", "last-child"),
        ("Area A", "Chapter One", "left"),
        ("Chapter Five", "Area A", "right"),
    ],
)
def test_admin_drag_and_drop_refuses_moves_that_break_the_tree(
    admin_client, small_tree, cut, pasted_on, position
):
    before = tree_table()
    assert drag(admin_client, cut, pasted_on, position).content == b"FAIL, invalid move."
    assert tree_table() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cut", "pasted_on", "position"),
    [
        ("Chapter One", "Section A2", "last-child"),
        ("Chapter One", "Chapter Three", "right"),
        ("Section A1", "Area B", "last-child"),
    ],
)
def test_an_editor_s_drag_of_published_pages_is_refused(
    client, small_tree, cut, pasted_on, position
):
    edit("Chapter One", status="published", body="Published text.")
    client.force_login(role_user("ed", "Editor"))
    before = tree_table()

    response = drag(client, cut, pasted_on, position)

    assert response.content == b"FAIL, invalid move."
    assert tree_table() == before
    shown = [str(m) for m in client.get(CHANGELIST).context["messages"]]
    assert shown == [
        f"“{cut}” is published or has published pages under it: only a reviewer may move it, "
        "since the move is live for readers at once."
    ]


@pytest.mark.django_db
def test_an_editor_drags_drafts_and_a_reviewer_drags_published_pages(client, small_tree):
    edit("Chapter One", status="published", body="Published text.")
    client.force_login(role_user("ed", "Editor"))
    assert drag(client, "Chapter Two", "Section A2", "last-child").content == b"OK, moved."
    client.force_login(role_user("rev", "Reviewer"))
    assert drag(client, "Chapter One", "Section A2", "last-child").content == b"OK, moved."
    assert node("Chapter One").path == "area-a/section-a2/chapter-one"


@pytest.mark.django_db
@pytest.mark.parametrize("changes", [{"parent": "Area B"}, {"slug": "renamed"}])
def test_an_editor_cannot_move_published_pages_by_their_section_s_change_form(
    client, small_tree, changes
):
    edit("Chapter One", status="published", body="Published text.")
    client.force_login(role_user("ed", "Editor"))
    data = form_data("Section A1", **changes)
    if "parent" in changes:
        data["parent"] = node(changes["parent"]).pk
    before = tree_table()

    response = client.post(change_url("Section A1"), data)

    assert response.context["adminform"].form.non_field_errors() == [
        "Published pages are under this section, and moving them needs a reviewer: only a "
        "reviewer may change its section or slug."
    ]
    assert tree_table() == before


@pytest.mark.django_db
def test_admin_changelist_filters_and_searches(admin_client, small_tree):
    Node.objects.filter(title="Chapter Two").update(
        status=Node.Status.PUBLISHED, body="fused kernels"
    )
    published = admin_client.get(CHANGELIST, {"status__exact": "published"})
    assert [n.title for n in published.context["cl"].result_list] == ["Chapter Two"]
    chapters = admin_client.get(CHANGELIST, {"kind__exact": "section"})
    assert [n.title for n in chapters.context["cl"].result_list] == [
        "Area A",
        "Section A1",
        "Section A2",
        "Area B",
        "Section B1",
    ]
    found = admin_client.get(CHANGELIST, {"q": "kernels"})
    assert [n.title for n in found.context["cl"].result_list] == ["Chapter Two"]


@pytest.mark.django_db
def test_admin_change_form_prefills_slug_and_links_to_the_site(admin_client, small_tree):
    page = soup(admin_client.get(change_url("Chapter One")))
    prepopulated = json.loads(
        page.find(id="django-admin-prepopulated-fields-constants")["data-prepopulated-fields"]
    )
    assert [(f["id"], f["dependency_ids"], f["allowUnicode"]) for f in prepopulated] == [
        ("#id_slug", ["#id_title"], True)
    ]
    view_on_site = page.find("a", class_="viewsitelink")["href"]
    assert admin_client.get(view_on_site)["Location"] == (
        "http://testserver/area-a/section-a1/chapter-one/"
    )
