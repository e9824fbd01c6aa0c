"""The shared relevance set (``tests/search_relevance.py``): the same first results on both
databases."""

import pytest

from tests.search_relevance import QUERIES, add_relevance_nodes, found_titles


@pytest.mark.django_db
def test_search_relevance_set_finds_the_expected_page_first(curriculum):
    add_relevance_nodes()
    first = {query: (found_titles(query, 1) or [None])[0] for query, _ in QUERIES}
    misses = {
        query: (first[query], expected) for query, expected in QUERIES if first[query] != expected
    }
    assert misses == {}


def test_search_relevance_set_has_forty_queries_or_more():
    assert len(QUERIES) >= 40
    assert len(dict(QUERIES)) == len(QUERIES)
