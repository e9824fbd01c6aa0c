"""The wiki's vocabulary (``Word``, migrations 0034 and 0035), and the corrections search takes
from it.

The tests run on both databases, whose triggers keep the vocabulary on every write (on
PostgreSQL summed over a transaction and added at the end of a ``tree_write()`` or at commit).
"""

import pytest
from django.db import connection, transaction

from chapters.models import Node, Word
from chapters.models.vocabulary import fold_vocabulary
from chapters.search import suggest
from chapters.search.query import edit_distance
from tests.helpers import edit, node


def vocabulary(*words):
    """Return ``{word: (documents, titles)}`` of those of ``words`` the vocabulary holds."""
    return {row.word: (row.documents, row.titles) for row in Word.objects.filter(word__in=words)}


@pytest.mark.django_db
def test_the_vocabulary_counts_the_nodes_holding_each_word_and_their_titles(small_tree):
    assert vocabulary("chapter", "one", "six", "area") == {
        "chapter": (6, 6),
        "one": (1, 1),
        "six": (1, 1),
        "area": (2, 2),
    }
    edit(
        "Chapter One",
        title="Défaultdict Counting",
        body="## Counting words\n\nCount them with `collections.defaultdict(int)`: one pass.",
    )
    assert vocabulary("chapter", "one", "defaultdict", "counting", "words", "collections") == {
        "chapter": (5, 5),
        "one": (1, 0),
        "defaultdict": (1, 1),
        "counting": (1, 1),
        "words": (1, 0),
        "collections": (1, 0),
    }


@pytest.mark.django_db(transaction=True)  # an update() outside tree_write() counts at commit
def test_the_vocabulary_follows_updates_that_bypass_save_and_deletions(small_tree):
    Node.objects.filter(title__in=["Chapter Five", "Chapter Six"]).update(
        body_text="Memoization caches the results."
    )
    assert vocabulary("memoization", "caches", "five") == {
        "memoization": (2, 0),
        "caches": (2, 0),
        "five": (1, 1),
    }
    node("Chapter Six").delete()
    assert vocabulary("memoization", "caches", "six") == {
        "memoization": (1, 0),
        "caches": (1, 0),
    }
    Node.objects.filter(title="Chapter Five").update(title="Chapter Memoization", body_text="")
    assert vocabulary("memoization", "caches", "five") == {"memoization": (1, 1)}


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_transaction_s_writes_are_added_to_the_vocabulary_once_at_commit(small_tree):
    with transaction.atomic():
        for title in ("Chapter Five", "Chapter Six", "Chapter Four"):
            Node.objects.filter(title=title).update(body_text="Memoization caches results.")
        assert vocabulary("memoization", "caches") == {}  # summed, not yet added
        assert waiting("memoization", "caches", "five") == ({"memoization": 3, "caches": 3}, 1)
    assert vocabulary("memoization", "caches", "results") == {
        "memoization": (3, 0),
        "caches": (3, 0),
        "results": (3, 0),
    }
    assert waiting("memoization") == ({}, 0)
    with transaction.atomic():
        Node.objects.filter(title="Chapter Four").update(body_text="")
        fold_vocabulary()  # as at the end of a tree_write(): the transaction reads its words
        assert vocabulary("memoization", "caches") == {"memoization": (2, 0), "caches": (2, 0)}
        assert waiting("memoization") == ({}, 0)


def waiting(*words):
    """Return ``({word: documents}, notes)``: the changes to the vocabulary of those of
    ``words`` a PostgreSQL transaction has summed and not yet added, and the number of its
    notes (migration 0035)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT word, sum(documents) FROM chapters_search_word_change"
            " WHERE word = ANY (%s) GROUP BY word",
            [list(words)],
        )
        changes = dict(cursor.fetchall())
        cursor.execute("SELECT count(*) FROM chapters_search_word_fold")
        return changes, cursor.fetchone()[0]


@pytest.mark.django_db
def test_search_corrects_a_word_only_a_body_has_from_the_vocabulary(small_tree):
    edit("Chapter One", body="Count the words with `collections.defaultdict(int)`.")
    assert suggest("defualtdict") == "defaultdict"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("sorted_pages", "sorter_pages", "corrected"),
    [
        (["Chapter One"], ["Chapter Two", "Chapter Three"], "sorter"),
        (["Chapter One", "Chapter Two"], ["Chapter Three"], "sorted"),
    ],
)
def test_search_corrects_to_the_most_frequent_of_equally_similar_words(
    small_tree, sorted_pages, sorter_pages, corrected
):
    # "sortex" is as like "sorted" as "sorter" (5 trigrams of 9 shared with each).
    for title in sorted_pages:
        edit(title, body="The list comes back sorted.")
    for title in sorter_pages:
        edit(title, body="A sorter puts things in order.")
    assert suggest("sortex") == corrected


@pytest.mark.django_db
def test_a_word_an_edit_adds_becomes_a_correction_and_one_no_page_keeps_stops_being_one(
    small_tree,
):
    assert suggest("memoizaton") == ""
    edit("Chapter Four", body="Memoization keeps the results of calls.")
    assert suggest("memoizaton") == "memoization"
    edit("Chapter Four", body="Caching keeps the results of calls.")
    assert (suggest("memoizaton"), vocabulary("memoization")) == ("", {})


@pytest.mark.django_db
def test_search_corrects_to_the_word_fewest_edits_away_of_the_most_similar(small_tree):
    # "emulated" shares more trigrams with "evaulated" (0.46 against 0.43), but "evaluated"
    # is one transposition away, "emulated" two edits.
    edit("Chapter One", body="The expression is evaluated lazily.")
    edit("Chapter Two", body="Threads are emulated.")
    assert suggest("evaulated") == "evaluated"


@pytest.mark.parametrize(
    ("first", "second", "edits"),
    [
        ("evaulated", "evaluated", 1),
        ("evaulated", "emulated", 2),
        ("kitten", "sitting", 3),
        ("ca", "abc", 3),
        ("", "abc", 3),
        ("memoization", "memoization", 0),
    ],
)
def test_edit_distance_counts_a_transposition_as_one_edit(first, second, edits):
    assert edit_distance(first, second) == edits
