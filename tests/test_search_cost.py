"""What search does to cost less (issue 26): the ranking written as SQL and the synonyms kept.

The ranking query of each database (``sqlite._ranked``, ``postgresql_sql.ranked``) writes as
SQL the order that the Django queryset of every match computes too (the queryset serves a
slice past the ranked matches and ``values_list()``), so the two are compared here on the
relevance set; the synonyms, the number of nodes and the results' ancestors are read once
per version of the wiki (``search.kept``). The cost itself is measured by
``bench/search.py``, never here.
"""

import pytest

from chapters.models import Node, Synonym
from chapters.search import find_nodes, indexed, kept
from tests.helpers import edit, node
from tests.search_relevance import QUERIES, add_relevance_nodes

# Broad words and questions with some words only, phrases, "or" and a possessive, besides
# the relevance set's queries.
MORE = [
    "chapter",
    "learning",
    "memory model",
    "binary search in a sorted list",
    "kernel -cuda",
    '"virtual memory"',
    "quantization or pruning",
    "compiler's graph",
]


@pytest.mark.django_db
def test_the_ranking_query_orders_as_the_queryset_of_every_match(curriculum):
    add_relevance_nodes()
    differ = {}
    with indexed():
        for query in [query for query, _ in QUERIES] + MORE:
            found = find_nodes(query)
            ranked = [node.pk for node in found[:100]]
            every = list(found.nodes.values_list("pk", flat=True)[:100])
            if ranked != every or len(found) != found.nodes.count():
                differ[query] = (ranked[:5], every[:5])
    assert differ == {}


@pytest.mark.django_db
def test_synonyms_are_read_once_per_version_and_again_after_a_change(
    curriculum, django_assert_num_queries, monkeypatch
):
    monkeypatch.setattr(kept, "_table", (None, {}))
    # The version (a query in a test's transaction), then the synonyms of that version.
    with django_assert_num_queries(2):
        assert kept.synonyms_of(["colour", "kernel"]) == {"colour": ["color"]}
    with django_assert_num_queries(1):
        assert kept.synonyms_of(["color"]) == {"color": ["colour"]}
    Synonym.objects.create(word="colour", same_as="kolor")
    with django_assert_num_queries(2):
        assert kept.synonyms_of(["colour"]) == {"colour": ["color", "kolor"]}
    with indexed(), django_assert_num_queries(0):
        assert kept.synonyms_of(["kolor"]) == {"kolor": ["colour"]}


@pytest.mark.django_db
def test_the_number_of_nodes_is_read_once_per_version_and_again_after_a_write(
    small_tree, django_assert_num_queries, monkeypatch
):
    monkeypatch.setattr(kept, "_read", {})
    with indexed(), django_assert_num_queries(1):  # the number, at the version read first
        assert kept.node_count("default") == 11
    with indexed(), django_assert_num_queries(0):
        assert kept.node_count("default") == 11
    Node.objects.filter(title="Chapter Six").delete()
    with indexed(), django_assert_num_queries(1):
        assert kept.node_count("default") == 10


def _titles(ancestors):
    """Return each node's ancestors (``kept.breadcrumbs``) as their titles, by node title."""
    titled = {found.pk: found.title for found in Node.objects.all()}
    return {titled[pk]: [ancestor.title for ancestor in above] for pk, above in ancestors.items()}


@pytest.mark.django_db
def test_the_results_ancestors_are_read_once_per_version_and_again_after_a_write(
    small_tree, django_assert_num_queries, monkeypatch
):
    monkeypatch.setattr(kept, "_read", {})
    one, two, five = node("Chapter One"), node("Chapter Two"), node("Chapter Five")
    with indexed(), django_assert_num_queries(1):  # Area A and Section A1
        found = kept.breadcrumbs([one])
    assert _titles(found) == {"Chapter One": ["Area A", "Section A1"]}
    with indexed(), django_assert_num_queries(0):  # the same, kept
        found = kept.breadcrumbs([two, one])
    assert _titles(found) == {
        "Chapter Two": ["Area A", "Section A1"],
        "Chapter One": ["Area A", "Section A1"],
    }
    with indexed(), django_assert_num_queries(1):  # Area B and Section B1 only
        found = kept.breadcrumbs([one, five])
    assert _titles(found) == {
        "Chapter One": ["Area A", "Section A1"],
        "Chapter Five": ["Area B", "Section B1"],
    }
    edit("Section A1", title="Basics")
    with indexed(), django_assert_num_queries(1):  # the new version's
        found = kept.breadcrumbs([one])
    assert _titles(found) == {"Chapter One": ["Area A", "Basics"]}
