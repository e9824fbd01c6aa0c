"""The shared relevance set (``tests/search_relevance.py``): the same first results on both
databases."""

import pytest
from django.core.management import call_command
from django.db import connection

from tests.django_relevance import CORPUS, scores, wiki_answers
from tests.django_relevance import QUERIES as QUERIES_DJANGO
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


# The relevance set on Django's documentation (tests/django_relevance.py): the share of its
# queries answered first and in the first three, and the mean reciprocal rank, as measured on
# each database when the floor was last raised (bench/README.md, "Relevance on Django's
# documentation"). A change to search that drops below them fails here; one that rises above
# them raises them.
DJANGO_FLOORS = {"sqlite": (0.76, 0.88, 0.82), "postgresql": (0.81, 0.90, 0.86)}


@pytest.mark.django_db
def test_relevance_on_django_documentation_stays_above_its_floor(curriculum):
    call_command("import_markdown", str(CORPUS), verbosity=0)
    _n, at_1, at_3, mrr = scores(wiki_answers(QUERIES_DJANGO), QUERIES_DJANGO)["all"]
    floor = DJANGO_FLOORS[connection.vendor]
    measured = (round(at_1, 2), round(at_3, 2), round(mrr, 2))
    assert all(m >= f for m, f in zip(measured, floor, strict=True)), (measured, floor)


def test_relevance_set_on_django_documentation_is_large_and_real():
    assert len(QUERIES_DJANGO) >= 150
    assert len({query for _, query, _ in QUERIES_DJANGO}) == len(QUERIES_DJANGO)
    assert {category for category, _, _ in QUERIES_DJANGO} == {
        "question", "typo", "british", "identifier", "prefix", "phrase", "curriculum",
    }  # fmt: skip
    assert len(list(CORPUS.rglob("*.md"))) == 291  # the pages and SUMMARY.md
