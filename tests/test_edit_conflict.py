"""Edit conflicts in the admin: a save over someone else's newer save is merged three ways and
shown again; the next Save never silently discards the other change (chapters.edit.conflicts)."""

import pytest
from django.urls import reverse

from chapters.edit.conflicts import FOREIGN_BASE
from chapters.models import Node
from tests.helpers import edit, form_values, node, soup

BODY = "First paragraph.\n\nSecond paragraph.\n\nThird paragraph."


def open_form(client, title):
    """Open the change form of the node titled ``title``; return its POST data."""
    page = soup(client.get(reverse("admin:chapters_node_change", args=[node(title).pk])))
    return form_values(page, "node_form")


def change(client, title, data):
    """Post the change form of the node titled ``title`` (or with primary key ``title``)."""
    pk = title if isinstance(title, int) else node(title).pk
    return client.post(reverse("admin:chapters_node_change", args=[pk]), data)


@pytest.mark.django_db
def test_edit_conflict_merges_changes_that_do_not_overlap_and_the_next_save_keeps_both(
    admin_client, small_tree
):
    edit("Chapter One", body=BODY)
    form_a = open_form(admin_client, "Chapter One")
    edit(
        "Chapter One",
        body=BODY.replace("First paragraph.", "First, by B."),
        parent=node("Section B1"),
        summary="B's edit",
    )
    form_a["body"] = BODY.replace("Third paragraph.", "Third, by A.")

    response = change(admin_client, "Chapter One", form_a)

    assert response.status_code == 200
    page = soup(response)
    notice = " ".join(page.find(class_="merge-notice").p.get_text().split())
    assert notice.startswith("a script saved this page at ")
    assert notice.endswith(
        "while you were editing it, so your changes have not been saved yet. Their change "
        "(shown below) has been merged with yours: check the result, then save again."
    )
    merged = form_values(page, "node_form")
    assert merged["body"] == "First, by B.\n\nSecond paragraph.\n\nThird, by A."
    assert merged["parent"] == str(node("Section B1").pk)
    assert node("Chapter One").body == BODY.replace("First paragraph.", "First, by B.")
    their_diff = page.find(class_="merge-notice").find(class_="diff-fields")
    assert [row.th.get_text() for row in their_diff.tbody.find_all("tr")] == ["Parent"]

    assert change(admin_client, "Chapter One", merged).status_code == 302
    saved = node("Chapter One")
    assert (saved.body, saved.parent.title) == (
        "First, by B.\n\nSecond paragraph.\n\nThird, by A.",
        "Section B1",
    )


@pytest.mark.django_db
def test_edit_conflict_on_the_same_lines_is_shown_side_by_side_and_must_be_resolved(
    admin_client, small_tree
):
    form_a = open_form(admin_client, "Chapter One")
    edit("Chapter One", body="Editor B's text.", summary="B's edit")
    form_a["body"] = "Editor A's text."

    page = soup(change(admin_client, "Chapter One", form_a))

    notice = " ".join(page.find(class_="merge-notice").p.get_text().split())
    assert notice.endswith(
        "You both changed 1 place in the text: choose between your version and theirs below, "
        "then save again. Their other changes have been merged with yours."
    )
    conflict = page.find(class_="conflict")
    assert [pre.get_text() for pre in conflict.find_all("pre")] == [
        "Editor A's text.",
        "Editor B's text.",
    ]
    marked = form_values(page, "node_form")
    assert marked["body"] == (
        "<<<<<<< yours\nEditor A's text.\n=======\nEditor B's text.\n>>>>>>> theirs"
    )

    again = change(admin_client, "Chapter One", marked)
    assert again.status_code == 200
    assert again.context["adminform"].form.errors["body"] == [
        "Resolve the conflict marked in the text first (keep yours, theirs or both, and "
        "remove the marker lines)."
    ]
    assert node("Chapter One").body == "Editor B's text."

    resolved = change(admin_client, "Chapter One", {**marked, "resolve": "0:theirs"})
    assert resolved.status_code == 200
    chosen = form_values(soup(resolved), "node_form")
    assert chosen["body"] == "Editor B's text."
    chosen["body"] = "Editor B's text, then A's."
    assert change(admin_client, "Chapter One", chosen).status_code == 302
    assert [r.body for r in Node.history.filter(id=node("Chapter One").pk)][:2] == [
        "Editor B's text, then A's.",
        "Editor B's text.",
    ]


@pytest.mark.django_db
def test_edit_conflict_on_a_field_asks_to_choose_before_saving(admin_client, small_tree):
    form_a, pk = open_form(admin_client, "Chapter Two"), node("Chapter Two").pk
    edit("Chapter Two", title="Chapter 2 (B)")
    form_a["title"] = "Chapter 2 (A)"

    page = soup(change(admin_client, pk, form_a))

    choices = page.find_all("input", attrs={"name": "title"})
    assert [(c["type"], c["value"]) for c in choices] == [
        ("radio", "Chapter 2 (A)"),
        ("radio", "Chapter 2 (B)"),
    ]
    assert not any(c.has_attr("checked") for c in choices)
    unchosen = form_values(page, "node_form")
    assert "title" not in unchosen
    refused = change(admin_client, pk, unchosen)
    assert refused.context["adminform"].form.errors["title"] == ["Choose yours or theirs."]
    assert node("Chapter 2 (B)").title == "Chapter 2 (B)"

    assert (
        change(admin_client, "Chapter 2 (B)", {**unchosen, "title": "Chapter 2 (B)"}).status_code
        == 302
    )
    assert node("Chapter 2 (B)").slug == "chapter-two"


@pytest.mark.django_db
def test_edit_without_a_conflict_saves(admin_client, small_tree):
    form = open_form(admin_client, "Chapter Two")
    form["body"], form["summary"] = "Fresh.", "First words"
    response = admin_client.post(
        reverse("admin:chapters_node_change", args=[node("Chapter Two").pk]), form
    )
    assert response.status_code == 302
    assert (
        Node.history.filter(id=node("Chapter Two").pk).first().history_change_reason
        == "First words"
    )


@pytest.mark.django_db
def test_an_admin_form_with_a_base_revision_of_another_page_is_refused(admin_client, small_tree):
    form = open_form(admin_client, "Chapter Two")
    other = Node.history.filter(id=node("Chapter Five").pk).first().history_id

    response = change(admin_client, "Chapter Two", {**form, "base_revision": other, "body": "X"})

    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [FOREIGN_BASE]
    assert node("Chapter Two").body == "This chapter is currently a scaffold."
