"""The model refuses bad values at save(), and the database refuses a bad kind or status even
from QuerySet.update() (issue 24); pages reading revisions stored before that still answer."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from chapters.models import Node, PendingChange
from tests.helpers import edit, node, role_user, soup

STATUSES = "draft, review, published"

BAD_VALUES = [
    ("status", "publishd", f"The status “publishd” is not one of {STATUSES}."),
    ("status", "", f"The status “” is not one of {STATUSES}."),
    ("kind", "lesson", "The kind “lesson” is not one of section, chapter."),
    ("slug", "bad slug/x", "The slug “bad slug/x” is not a slug (letters, digits, “-” or “_”)."),
    ("slug", "a.b", "The slug “a.b” is not a slug (letters, digits, “-” or “_”)."),
    ("title", "", "The title is blank."),
    ("title", " \u3000 ", "The title is blank."),
    (
        "title",
        "Line\nBcc: someone@example.com",
        "The title holds a line break, a tab or another control character.",
    ),
    ("title", "Tab\there", "The title holds a line break, a tab or another control character."),
    (
        "title",
        "Invoice\u202egpj.exe",
        "The title holds a bidirectional override (U+202E RIGHT-TO-LEFT OVERRIDE).",
    ),
    (
        "title",
        "\u2067Isolated",
        "The title holds a bidirectional override (U+2067 RIGHT-TO-LEFT ISOLATE).",
    ),
    (
        "title",
        "One\u2028Two",
        "The title holds a line or paragraph separator (U+2028 LINE SEPARATOR).",
    ),
    (
        "title",
        "Zero\u200bWidth",
        "The title holds a zero-width character (U+200B ZERO WIDTH SPACE).",
    ),
    (
        "title",
        "\ufeffMarked",
        "The title holds a zero-width character (U+FEFF ZERO WIDTH NO-BREAK SPACE).",
    ),
    ("body", "a\x00b", "“body” holds a NUL or a lone surrogate, which no database stores."),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "value", "message"), BAD_VALUES)
def test_node_save_refuses_a_bad_value_of_a_new_node(small_tree, field, value, message):
    fields = {"title": "New", "kind": "chapter", "parent": node("Section A1"), field: value}
    revisions = Node.history.count()
    with pytest.raises(ValidationError) as error:
        Node(**fields).save()
    assert error.value.message_dict == {field: [message]}
    assert (Node.objects.filter(title="New").exists(), Node.history.count()) == (False, revisions)


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "value", "message"), BAD_VALUES)
def test_node_save_refuses_a_bad_value_of_a_stored_node(small_tree, field, value, message):
    chapter = node("Chapter One")
    stored = Node.objects.filter(pk=chapter.pk).values().get()
    revisions = Node.history.count()
    setattr(chapter, field, value)
    with pytest.raises(ValidationError) as error:
        chapter.save()
    assert error.value.message_dict == {field: [message]}
    assert Node.objects.filter(pk=chapter.pk).values().get() == stored
    assert Node.history.count() == revisions


@pytest.mark.django_db
def test_node_save_names_every_bad_field(small_tree):
    with pytest.raises(ValidationError) as error:
        Node(title="\u200b", kind="lesson", status="done", slug="a b", parent=node("Area A")).save()
    assert error.value.message_dict == {
        "title": ["The title holds a zero-width character (U+200B ZERO WIDTH SPACE)."],
        "slug": ["The slug “a b” is not a slug (letters, digits, “-” or “_”)."],
        "kind": ["The kind “lesson” is not one of section, chapter."],
        "status": [f"The status “done” is not one of {STATUSES}."],
    }


@pytest.mark.django_db
def test_node_save_keeps_the_joiners_scripts_and_emoji_need(small_tree):
    # Persian writes "I want" with a zero-width non-joiner; a family emoji is joined by ZWJ.
    titles = ["می\u200cخواهم", "Family \U0001f468\u200d\U0001f469\u200d\U0001f467"]
    for title in titles:
        Node(title=title, kind="chapter", parent=node("Section A1")).save()
    assert [node(title).title for title in titles] == titles


@pytest.mark.django_db
def test_node_clean_refuses_what_save_refuses_in_a_title(small_tree):
    new = Node(title="Invoice\u202egpj.exe", kind="chapter", parent=node("Section A1"))
    with pytest.raises(ValidationError) as error:
        new.full_clean()
    assert error.value.message_dict["title"] == [
        "The title cannot hold a bidirectional override (U+202E RIGHT-TO-LEFT OVERRIDE)."
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "constraint"),
    [
        ("status", "publishd", "status_is_a_choice"),
        ("status", "", "status_is_a_choice"),
        ("kind", "lesson", "kind_is_a_choice"),
        ("kind", "Chapter", "kind_is_a_choice"),
    ],
)
def test_database_refuses_a_bad_kind_or_status_from_update(small_tree, field, value, constraint):
    chapter = node("Chapter One")
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        Node.objects.filter(pk=chapter.pk).update(**{field: value})
    assert constraint in str(error.value)
    assert getattr(node("Chapter One"), field) == getattr(chapter, field)


@pytest.mark.django_db
def test_database_takes_every_choice_from_update(small_tree):
    chapters = Node.objects.filter(kind="chapter")
    for status in Node.Status.values:
        assert chapters.update(status=status) == 6
    assert set(Node.objects.values_list("status", flat=True)) == {"draft", "published"}


@pytest.mark.django_db
def test_diff_of_a_page_edited_once_answers_anonymous_readers(client, small_tree):
    edit("Chapter One", body="Edited.")
    new = Node.history.filter(id=node("Chapter One").pk).first()
    response = client.get(reverse("chapters:diff"), {"new": new.history_id})
    assert response.status_code == 200
    assert [td.text for td in soup(response).select("tr.diff-insert td.line")] == ["Edited."]


@pytest.mark.django_db
def test_diff_of_a_revision_stored_with_an_unknown_status_shows_it_as_stored(client, small_tree):
    # A revision stored before save() refused bad values (issue 24): its page answers 500 no more.
    edit("Chapter One", body="Edited.")
    new = Node.history.filter(id=node("Chapter One").pk).first()
    Node.history.filter(history_id=new.history_id).update(status="publishd", kind="lesson")
    response = client.get(reverse("chapters:diff"), {"new": new.history_id})
    assert response.status_code == 200
    rows = soup(response).select("table.diff-fields tbody tr")
    assert [[cell.text for cell in row.find_all(["th", "td"])] for row in rows] == [
        ["Kind", "Chapter", "lesson"],
        ["Status", "Draft", "publishd"],
    ]


@pytest.mark.django_db
def test_review_of_a_change_with_an_unknown_status_shows_it_as_stored(client, small_tree):
    # A pending change loaded from an old fixture or database: its page answers 500 no more.
    author = role_user("ed", "Editor")
    chapter = node("Chapter One")
    change = PendingChange.objects.create(
        node=chapter,
        author=author,
        title=chapter.title,
        status="publishd",
        parent=chapter.parent,
        body=chapter.body,
        base_revision=Node.history.filter(id=chapter.pk).first().history_id,
    )
    client.force_login(role_user("rev", "Reviewer"))
    response = client.get(change.get_absolute_url())
    assert response.status_code == 200
    rows = soup(response).select("table.diff-fields tbody tr")
    assert [[cell.text for cell in row.find_all(["th", "td"])] for row in rows] == [
        ["Status", "Draft", "publishd"]
    ]
