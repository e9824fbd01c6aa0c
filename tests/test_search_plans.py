"""Search's queries on PostgreSQL are served by its indexes (issue 18: checked with EXPLAIN).

The queries checked are those the search page sends, captured as it answers a plain word, a
last word read as a prefix, a typo (corrected through the trigram index of the vocabulary),
Chinese substrings of four characters and of two (the index of migration 0037, which the
planner prefers to the trigram indexes here), and a word in most nodes (a first slice,
migration 0036), on a table of realistic size: the curriculum (with the relevance set's
nodes) copied until it holds 4,725 rows, each with a real title and body, analyzed, and with
the GIN indexes' pending entries merged, as autovacuum leaves a table.

They are explained with the settings search runs them with (``search.indexed()``:
sequential scans off). With the planner's own settings, on this table, every query but one
kind is planned on the indexes as well; the ``exists()`` of a word that is in no row (how
a typo is found out) is planned as a scan of the table, which reads and matches every row's
vector to find nothing, since the planner expects the ``LIMIT 1`` to stop it early and
counts no cost for reading the vectors: the reason for ``search.indexed()`` (its docstring,
bench/README.md). Its setting does not make this check pass by itself: it only adds a large
cost to a sequential scan, so a query no index can serve (a condition in a form the index
does not cover, a missing index) is still planned as a ``Seq Scan`` and fails here; and
among the indexes that could serve a query the planner still chooses by cost, so the index
named is the one a wiki gets.
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chapters.models import Node
from chapters.search import indexed
from tests.search_relevance import add_relevance_nodes

COPIES = 20  # of the 225 nodes of the curriculum and the relevance set: 4,725 rows

# A query of search: one that matches text in the node table or the vocabulary's words.
SEARCH_CONDITION = re.compile(r"@@|LIKE|chapters_search_word")
INDEX_SCAN = re.compile(r"Index (?:Only )?Scan (?:on|using) (\w+)")
SEQ_SCAN = re.compile(r"Seq Scan on (\w+)")


# How a copy's columns differ from the row copied (unique slugs and paths, a tree of its own
# as a root); every other column of the model is copied as it is, so that a column added
# later needs nothing here.
CHANGED = {
    "slug": "slug || '-' || copy || '-' || id",
    "path": "path || '-' || copy",
    "tree_id": "tree_id + copy * 100000",
    "parent_id": "NULL",
}


def copy_nodes(copies):
    """Add ``copies`` copies of every node (as areas of their own), then analyze the table
    and the vocabulary."""
    columns = [field.column for field in Node._meta.concrete_fields if not field.primary_key]
    values = [CHANGED.get(column, column) for column in columns]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO chapters_node ({', '.join(columns)}) "
            f"SELECT {', '.join(values)} FROM chapters_node, generate_series(1, %s) AS copy",
            [copies],
        )
        for index in [
            "chapters_node_document",
            "chapters_node_title_trgm",
            "chapters_node_body_text_trgm",
            "chapters_search_word_trgm",
            "chapters_node_title_headings",
            "chapters_node_grams",
        ]:
            cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        cursor.execute("ANALYZE chapters_node")
        cursor.execute("ANALYZE chapters_search_word")


def search_queries(client, query):
    """Return the SQL of the queries that match text, as the search page sends them."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/search/", {"q": query})
    assert response.status_code == 200
    return [sql for sql in (q["sql"] for q in captured) if SEARCH_CONDITION.search(sql)]


def plan(sql):
    """Return the plan of ``sql`` as search plans its queries (``search.indexed()``)."""
    with indexed(), connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}")
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.django_db
@pytest.mark.postgresql
def test_search_queries_use_their_indexes_on_postgresql(client, curriculum):
    add_relevance_nodes()
    copy_nodes(COPIES)
    assert Node.objects.count() == 225 * (COPIES + 1)
    queries = ["kernel", "backprop", "tranformer", "张量并行", "张量", "chapter"]
    sent = {query: search_queries(client, query) for query in queries}
    # A word: on a wiki of more than postgresql_sql.WIDE nodes, its matches counted in the
    # stored document, then the first results ranked and counted in one query (the page is
    # then read by id). The last word as a prefix: the same. A typo: the query, its word
    # alone, the vocabulary's words like it (pg_trgm's similarity), the correction alone,
    # then the correction's results. A substring: ranked at once (no word, no first
    # slice). A word matching more than WIDE nodes: counted, the first slice's matches with
    # it in the title or a heading, then the slice ranked.
    assert {query: len(sql) for query, sql in sent.items()} == {
        "kernel": 2,
        "backprop": 2,
        "tranformer": 8,
        "张量并行": 1,
        "张量": 1,
        "chapter": 3,
    }
    plans = {query: [plan(sql) for sql in sql_list] for query, sql_list in sent.items()}
    used = {
        q: sorted({i for p in each for i in INDEX_SCAN.findall(p)}) for q, each in plans.items()
    }
    scanned = {
        q: sorted({t for p in each for t in SEQ_SCAN.findall(p)}) for q, each in plans.items()
    }
    assert used == {
        "kernel": ["chapters_node_document"],
        "backprop": ["chapters_node_document"],
        "tranformer": ["chapters_node_document", "chapters_search_word_trgm"],
        "张量并行": ["chapters_node_grams"],
        "张量": ["chapters_node_grams"],
        "chapter": ["chapters_node_document", "chapters_node_pkey", "chapters_node_title_headings"],
    }
    assert scanned == {query: [] for query in queries}
