"""Past ``WIDE`` matches, search ranks a first slice of them (issue 26).

PostgreSQL's ``postgresql_sql.first_slice`` takes the matches holding a word of the query in
the title or a heading (an index of the stored document's weights A and B, migration 0036)
and the ``SLICE`` shortest of all, and ranks those by every key: reading each match's vectors
out of TOAST to rank them all cost about 35 microseconds a match. SQLite's
``sqlite._first_slice`` takes the holders and the ``SLICE`` of the highest ``bm25()``, which
FTS5 computes for every match in one pass. The thresholds are lowered here to the small
tree's size; the cost is measured by ``bench/search.py``, never here.
"""

import pytest

from chapters.search import find_nodes, indexed, postgresql_sql, sqlite
from tests.test_search_questions import write_pages


@pytest.fixture
def wide(monkeypatch):
    """Rank a first slice past 2 matches, on both databases; return a function that sets
    the slice's size."""

    def slice_of(size):
        for backend in (postgresql_sql, sqlite):
            monkeypatch.setattr(backend, "WIDE", 2)
            monkeypatch.setattr(backend, "SLICE", size)

    return slice_of


FILLER = "Queues hold the requests that wait for a worker of the service. "


@pytest.fixture
def broad_word(small_tree, monkeypatch):
    """Give five chapters the word "latency": in a title, in a heading, thirty times in a
    long body and once in two short ones; rank a first slice past 2 matches, 3 at a time."""
    write_pages(
        ("Latency Budgets", "Each service is given a share of what the reader waits. " * 3),
        ("Queues", FILLER * 6 + "\n\n## Latency under load\n\nIt grows with the queue."),
        ("Tail Notes", "latency " * 30 + FILLER * 20),
        ("Short A", "Latency matters."),
        ("Short B", "Mind the latency here."),
    )
    monkeypatch.setattr(postgresql_sql, "WIDE", 2)
    monkeypatch.setattr(postgresql_sql, "SLICE", 3)


def titles(nodes):
    """Return the titles of ``nodes``, in order."""
    return [node.title for node in nodes]


@pytest.mark.postgresql
@pytest.mark.django_db
def test_past_wide_matches_the_first_slice_holds_the_titles_headings_and_shortest(broad_word):
    with indexed():
        found = find_nodes("latency")
        # The title, then the heading (the keys before BM25), then the shorter of the two
        # short bodies: the long body saying it thirty times is not in the slice.
        assert titles(found[:3]) == ["Latency Budgets", "Queues", "Short A"]
        assert found.count() == 5


@pytest.mark.postgresql
@pytest.mark.django_db
def test_every_match_ranked_puts_the_long_body_the_first_slice_leaves_out_third(
    broad_word, monkeypatch
):
    monkeypatch.setattr(postgresql_sql, "WIDE", 1000)
    with indexed():
        found = find_nodes("latency")
        assert titles(found[:3]) == ["Latency Budgets", "Queues", "Tail Notes"]


@pytest.mark.postgresql
@pytest.mark.django_db
def test_a_page_past_the_first_slice_shows_the_rest_without_repeating_it(broad_word):
    with indexed():
        found = find_nodes("latency")
        # The rest in the order of every match ranked, less the slice's.
        assert titles(found[3:10]) == ["Tail Notes", "Short B"]
        assert titles(found[2:4]) == ["Short A", "Tail Notes"]


@pytest.mark.postgresql
@pytest.mark.django_db
def test_a_first_slice_keeps_the_conditions_of_every_word(broad_word):
    with indexed():
        found = find_nodes("latency queue")
        # Both words: the heading's page and the long body (its filler says "Queues").
        assert titles(found[:3]) == ["Queues", "Tail Notes"]
        assert found.count() == 2


@pytest.mark.django_db
def test_a_first_slice_can_leave_out_a_long_page_with_the_words_side_by_side(
    small_tree, wide, monkeypatch
):
    write_pages(
        ("Notes A", "Latency grows at the tail."),
        ("Notes B", "The tail of the latency curve."),
        ("Long", FILLER * 20 + "Tail latency matters."),
    )
    with indexed():
        # Every node ranked: the words side by side come first (ranking.ORDER).
        assert titles(find_nodes("tail latency")[:3]) == ["Long", "Notes A", "Notes B"]
        wide(2)
        found = find_nodes("tail latency")
        # The slice: the two shortest (PostgreSQL), of the highest bm25() (SQLite).
        assert sorted(titles(found[:2])) == ["Notes A", "Notes B"]
        assert (titles(found[2:5]), found.count()) == (["Long"], 3)


@pytest.mark.django_db
def test_past_wide_matches_the_count_is_of_those_meeting_every_condition(small_tree, wide):
    write_pages(
        ("Notes A", "Latency grows at the tail."),
        ("Notes B", "The tail of the latency curve."),
        ("Notes C", "Latency, measured."),
        ("Long", FILLER * 20 + "Tail latency matters."),
        ("Queued", "The latency of a queue."),
    )
    wide(2)
    with indexed():
        # The word alone: its index rows counted (sqlite._count_past_wide).
        assert find_nodes("latency").count() == 5
        # A word excluded ("Queues" in the long page's filler): the nodes meeting both.
        found = find_nodes("latency -queue")
        assert found.count() == 3
        assert sorted(titles(found[:10])) == ["Notes A", "Notes B", "Notes C"]
