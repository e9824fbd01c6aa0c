"""Prerequisites: a chapter's list of the chapters it builds on (chapters.models.prerequisites)."""

import pytest
from django.core.exceptions import ValidationError

from chapters import readiness
from chapters.edit import workflow
from chapters.history import revert
from chapters.models import Node, PendingChange
from tests.helpers import edit, form_values, node, role_user, soup

pytestmark = pytest.mark.django_db


EDIT_THREE = "/edit/area-a/section-a1/chapter-three/"


def ids(*titles):
    """Return the ids of the nodes titled ``titles``, in that order."""
    return [node(title).pk for title in titles]


def test_requires_stored_in_order_and_kept_by_a_rename(small_tree):
    edit("Chapter Three", requires=ids("Chapter Two", "Chapter One"))
    edit("Chapter One", title="Chapter 1", slug="chapter-1")
    assert node("Chapter Three").requires == ids("Chapter Two", "Chapter 1")


def test_requires_is_part_of_a_revision_and_a_revert_restores_it(small_tree):
    edit("Chapter Three", requires=ids("Chapter One"))
    edit("Chapter Three", requires=ids("Chapter Two"))
    first = node("Chapter Three").history.order_by("history_id")[1]
    assert first.requires == ids("Chapter One")
    assert revert(node("Chapter Three"), first) == []
    assert node("Chapter Three").requires == ids("Chapter One")


def test_requires_refuses_a_cycle_naming_it(small_tree):
    edit("Chapter Two", requires=ids("Chapter One"))
    edit("Chapter Three", requires=ids("Chapter Two"))
    with pytest.raises(ValidationError) as refused:
        edit("Chapter One", requires=ids("Chapter Three"))
    assert refused.value.message_dict == {
        "requires": [
            "These prerequisites would make a cycle: "
            "“Chapter One” → “Chapter Three” → “Chapter Two” → “Chapter One”."
        ]
    }
    assert node("Chapter One").requires == []


def test_requires_refuses_the_chapter_itself(small_tree):
    with pytest.raises(ValidationError) as refused:
        edit("Chapter One", requires=ids("Chapter One"))
    assert refused.value.messages == [
        "These prerequisites would make a cycle: “Chapter One” → “Chapter One”."
    ]


@pytest.mark.parametrize(
    ("requires", "message"),
    [
        (["1"], "“requires” is not a list of node ids."),
        ("1", "“requires” is not a list of node ids."),
        ([True], "“requires” is not a list of node ids."),
        ("twice", "“requires” names a chapter more than once."),
        ([999999], "No page has the id 999999."),
        ("section", "“Section A1” is a section; a prerequisite is a chapter."),
    ],
)
def test_requires_refuses_what_is_not_a_chapter(small_tree, requires, message):
    if requires == "twice":
        requires = ids("Chapter One", "Chapter One")
    elif requires == "section":
        requires = ids("Section A1")
    with pytest.raises(ValidationError) as refused:
        edit("Chapter Two", requires=requires)
    assert refused.value.messages == [message]


def test_requires_refused_on_a_section(small_tree):
    with pytest.raises(ValidationError) as refused:
        edit("Section A2", requires=ids("Chapter One"))
    assert refused.value.messages == ["Only a chapter has prerequisites."]


def test_requires_of_a_deleted_chapter_reported_as_a_broken_link(small_tree):
    edit("Chapter Three", requires=ids("Chapter One", "Chapter Two"))
    node("Chapter One").delete()
    three = node("Chapter Three")
    assert three.requires[1:] == ids("Chapter Two")
    rows = [(row.source.title, row.kind, row.text, row.problem) for row in readiness.broken_links()]
    assert rows == [
        ("Chapter Three", "requires", "Chapter One", "The prerequisite “Chapter One” was deleted.")
    ]
    three.title = "Chapter 3"
    three.save()
    assert Node.objects.get(pk=three.pk).requires == three.requires


def test_editor_shows_and_saves_prerequisites_as_paths(client, small_tree):
    edit("Chapter Three", requires=ids("Chapter Two"))
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    assert form["requires"] == "area-a/section-a1/chapter-two"
    form["requires"] = (
        "/area-a/section-a2/chapter-four/\r\nhttp://testserver/area-a/section-a1/chapter-one/"
    )
    response = client.post(EDIT_THREE, {**form, "save": "1"})
    assert response.status_code == 302
    assert node("Chapter Three").requires == ids("Chapter Four", "Chapter One")


def test_editor_names_each_line_that_is_no_page_and_the_cycle(client, small_tree):
    edit("Chapter Two", requires=ids("Chapter Three"))
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    form["requires"] = "area-a/nowhere\narea-a/section-a1/chapter-one\n\narea-b/x"
    page = soup(client.post(EDIT_THREE, {**form, "save": "1"}))
    assert [li.text for li in page.select(".editor-field-requires .errors li")] == [
        "Line 1: no page is at “area-a/nowhere”.",
        "Line 4: no page is at “area-b/x”.",
    ]
    form["requires"] = "area-a/section-a1/chapter-two"
    page = soup(client.post(EDIT_THREE, {**form, "save": "1"}))
    assert [li.text for li in page.select(".editor-field-requires .errors li")] == [
        "These prerequisites would make a cycle: “Chapter Three” → “Chapter Two” → “Chapter Three”."
    ]
    assert node("Chapter Three").requires == []


def test_editor_of_a_published_page_proposes_prerequisites_for_review(client, small_tree):
    edit("Chapter Three", status="published")
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    form["requires"] = "area-a/section-a1/chapter-one"
    client.post(EDIT_THREE, {**form, "save": "1"})
    change = PendingChange.objects.get()
    assert (change.requires, node("Chapter Three").requires) == (ids("Chapter One"), [])
    workflow.approve(change, role_user("rev", "Reviewer"), "http://testserver/")
    assert node("Chapter Three").requires == ids("Chapter One")


def test_editor_merges_prerequisites_changed_meanwhile_and_saves(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    edit("Chapter Three", requires=ids("Chapter One"))
    response = client.post(EDIT_THREE, {**form, "body": "Mine.", "save": "1"})
    assert response.status_code == 302
    assert (node("Chapter Three").body, node("Chapter Three").requires) == (
        "Mine.",
        ids("Chapter One"),
    )


def test_admin_saves_prerequisites(admin_client, small_tree):
    three = node("Chapter Three")
    url = f"/admin/chapters/node/{three.pk}/change/"
    form = form_values(soup(admin_client.get(url)), "node_form")
    assert form["requires"] == ""
    form["requires"] = "area-b/section-b1/chapter-five"
    response = admin_client.post(url, form)
    assert response.status_code == 302
    assert node("Chapter Three").requires == ids("Chapter Five")


def test_editor_offers_a_choice_when_both_changed_prerequisites(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    edit("Chapter Three", requires=ids("Chapter One"))
    form["requires"] = "area-a/section-a1/chapter-two"
    page = soup(client.post(EDIT_THREE, {**form, "save": "1"}))
    choices = page.select(".editor-field-requires input[type=radio]")
    assert [(c["value"], c.parent.text.strip()) for c in choices] == [
        ("area-a/section-a1/chapter-two", "Yours: area-a/section-a1/chapter-two"),
        ("area-a/section-a1/chapter-one", "Theirs: area-a/section-a1/chapter-one"),
    ]
    merged = form_values(page, "editor")
    merged["requires"] = "area-a/section-a1/chapter-two"
    assert client.post(EDIT_THREE, {**merged, "save": "1"}).status_code == 302
    assert node("Chapter Three").requires == ids("Chapter Two")
