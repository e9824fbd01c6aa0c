"""Prerequisites: a chapter's list of the chapters it builds on (chapters.models.prerequisites)."""

import pytest
from django.core.exceptions import ValidationError

from chapters import readiness
from chapters.history import revert
from chapters.models import Node
from tests.helpers import edit, node

pytestmark = pytest.mark.django_db


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
