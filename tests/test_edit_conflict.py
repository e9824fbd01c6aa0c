"""Edit conflicts in the admin: a save over someone else's newer save is refused, losing
nothing (the behaviour MediaWiki users know)."""

import pytest
from django.urls import reverse

from chapters.models import Node
from tests.helpers import node, soup


def open_form(client, title):
    """Open the change form of the node titled ``title``; return its POST data."""
    page = soup(client.get(reverse("admin:chapters_node_change", args=[node(title).pk])))
    current = node(title)
    return {
        "title": current.title,
        "slug": current.slug,
        "kind": current.kind,
        "status": current.status,
        "parent": current.parent_id,
        "body": current.body,
        "summary": "",
        "base_revision": page.find("input", attrs={"name": "base_revision"})["value"],
    }


@pytest.mark.django_db
def test_edit_conflict_refuses_the_later_save_and_keeps_both_texts(admin_client, small_tree):
    form_a = open_form(admin_client, "Chapter One")
    theirs = node("Chapter One")
    theirs.body, theirs._change_reason = "Editor B's text.", "B's edit"
    theirs.save()
    form_a["body"] = "Editor A's text."
    url = reverse("admin:chapters_node_change", args=[theirs.pk])

    response = admin_client.post(url, form_a)

    assert response.status_code == 200
    page = soup(response)
    error = " ".join(
        page.find(class_="errornote").find_next("ul", class_="errorlist").get_text().split()
    )
    assert error.startswith("Edit conflict: a script saved this page at ")
    assert error.endswith(
        "while you were editing it. Your text is still in the form below and has not been saved. "
        "Their change is shown above: merge it into your text, then save again."
    )
    assert page.find("textarea", attrs={"name": "body"}).get_text().strip() == "Editor A's text."
    diff = page.find(class_="edit-conflict")
    assert (
        diff.find("tr", class_="diff-delete").get_text(strip=True)
        == "1This chapter is currently a scaffold."
    )
    assert diff.find("tr", class_="diff-insert").get_text(strip=True) == "1Editor B's text."
    assert node("Chapter One").body == "Editor B's text."

    form_a["base_revision"] = page.find("input", attrs={"name": "base_revision"})["value"]
    assert admin_client.post(url, form_a).status_code == 302
    assert node("Chapter One").body == "Editor A's text."
    assert [r.body for r in Node.history.filter(id=theirs.pk)][:2] == [
        "Editor A's text.",
        "Editor B's text.",
    ]


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
