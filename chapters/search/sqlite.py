"""Search on SQLite: three FTS5 indexes of the nodes' titles, headings and body texts.

Migrations 0015 and 0027 make them, kept in step with ``chapters_node`` by triggers on every
insert, update and delete (from ``save()``, ``update()``, ``loaddata`` or a shell alike):

- ``chapters_node_search`` (external content: title and body text), tokenized by ``porter
  unicode61 remove_diacritics 2``: words folded in every script and without the accents of
  Latin letters, with English stems (the Porter stemmer, close to PostgreSQL's Snowball);
  words, their variants and prefixes (``"backprop"*``) and phrases are matched here;
- ``chapters_node_text`` (contentless: the headings' titles and the body text), tokenized
  alike: what ``bm25()`` ranks bodies by, without the title, whose length FTS5 would count
  in the row's;
- ``chapters_node_trigram`` (external content), tokenized by ``trigram``: substrings of
  three characters or more, for text without spaces (Chinese, Japanese) and for spelling
  suggestions; a substring of one or two characters is looked for with ``LIKE``.
"""

from contextlib import nullcontext
from functools import reduce
from operator import or_

from django.db import connections
from django.db.models import Case, Count, F, FloatField, IntegerField, Q, Value, When, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from .query import MIN_PREFIX, trigrams
from .ranking import ORDER, count_met, partial_title_length
from .results import Found

__all__ = ["body_candidates", "find", "indexed", "matches", "title_candidates"]

CANDIDATES = 20  # titles read to correct one word
SLICE = 100  # matches ranked by relevance; the rest follow in tree order
HEADING_WEIGHT = 4.0  # bm25()'s weight of the headings, the body's being 1

# The bm25() of every node whose headings or body match, computed once in the index's own
# pass (as a correlated subquery, FTS5 would count each term's documents again per row).
SCORED = (
    "WITH scored AS MATERIALIZED (SELECT rowid AS node, bm25(chapters_node_text, {weight}, 1.0) "
    "AS score FROM chapters_node_text WHERE chapters_node_text MATCH %s) "
)
# A node's place among the ranked ones, in a string of their ids: ",12,7,40,".
POSITION = "nullif(instr(%s, ',' || chapters_node.id || ','), 0)"

MATCH = "SELECT rowid FROM {table} WHERE {table} MATCH %s"


def indexed(using):
    """Return a context for search's queries: SQLite's planner needs no help to use FTS5."""
    return nullcontext()


def _string(text):
    """Return ``text`` as an FTS5 string, which matches its tokens as a phrase."""
    return '"' + text.replace('"', '""') + '"'


def _expression(term):
    """Return the FTS5 expression of a word or phrase term."""
    if term.kind == "any":
        return "(" + " OR ".join(_expression(option) for option in term.options) + ")"
    if term.kind == "phrase":
        return _string(" ".join(term.words))
    alternatives = [_string(spelling) for spelling in term.spellings]
    alternatives += [_string(prefix) + "*" for prefix in term.prefixes]
    return "(" + " OR ".join(alternatives) + ")"


def _matching(expression, table="chapters_node_search"):
    """Return a condition true for nodes whose row in ``table`` matches ``expression``."""
    return Q(pk__in=RawSQL(MATCH.format(table=table), [expression]))


def _substring(term):
    """Return a condition true for nodes whose title or body text contains ``term``."""
    if len(term.text) >= MIN_PREFIX:
        return _matching(_string(term.text), "chapters_node_trigram")
    return Q(title__contains=term.text) | Q(body_text__contains=term.text)


def find(nodes, query, title_is_query, *, every=True):
    """Return the :class:`.results.Found` ``nodes`` that match every term of ``query`` (or
    any of them, when not ``every``), best first.

    Order (docs/search.md, "Ranking"): the keys of :data:`.ranking.ORDER`, with this
    ``relevance``: for nodes with every term in the title, none (tree order); for the
    others, FTS5's ``bm25()`` of their headings and body (``chapters_node_text``), headings
    weighted :data:`HEADING_WEIGHT` times the body. The first :data:`SLICE` are ranked so in
    one query, which also counts the matches; the rest follow in tree order.
    """
    words = [term for term in query.terms if term.kind != "substring"]
    substrings = [term for term in query.terms if term.kind == "substring"]
    if words:
        joined = (" AND " if every else " OR ").join(_expression(term) for term in words)
        nodes = nodes.filter(_matching(joined))
    if every:
        for term in substrings:
            nodes = nodes.filter(_substring(term))
    elif substrings and not words:
        nodes = nodes.filter(reduce(or_, (_substring(term) for term in substrings)))
    for term in query.excluded:
        nodes = nodes.exclude(
            _substring(term) if term.kind == "substring" else _matching(_expression(term))
        )
    nodes = nodes.order_by("tree_id", "lft")
    if not query.terms:
        return Found(nodes)
    ids, count = _ranked(nodes, query, title_is_query, every, words)
    position = RawSQL(POSITION, [",".join(["", *map(str, ids), ""])], output_field=IntegerField())
    return Found(
        nodes.alias(position=position).order_by(
            F("position").asc(nulls_last=True), "tree_id", "lft"
        ),
        count,
    )


def matches(nodes, term):
    """Return whether any of ``nodes`` matches ``term`` (one query)."""
    return nodes.filter(
        _substring(term) if term.kind == "substring" else _matching(_expression(term))
    ).exists()


def _ranked(nodes, query, title_is_query, every, words):
    """Return the ids of the first :data:`SLICE` of ``nodes`` in order, and their number."""
    every_term = len(query.terms)
    in_title = [
        Q(title__contains=t.text)
        if t.kind == "substring"
        else _matching("title : " + _expression(t))
        for t in query.terms
    ]
    pairs = [_matching(_string(f"{first} {second}")) for first, second in query.pairs()]
    score = Value(0.0)
    if words:
        score = RawSQL(
            "(SELECT score FROM scored WHERE scored.node = chapters_node.id)",
            [],
            output_field=FloatField(),
        )
    ranked = (
        nodes.alias(
            title_is_query=title_is_query,
            coverage=Value(every_term) if every else count_met(_matched(query.terms)),
            title_coverage=count_met(in_title),
            adjacent=count_met(pairs),
        )
        .alias(
            title_length=partial_title_length(every_term),
            relevance=Case(
                When(title_coverage=every_term, then=Value(0.0)),
                default=Coalesce(score, Value(0.0)),
                output_field=FloatField(),
            ),
        )
        .order_by(*ORDER)
        .annotate(total=Window(Count("pk")))
        .values_list("pk", "total")[:SLICE]
    )
    sql, params = ranked.query.sql_with_params()
    if words:
        expression = " OR ".join(_expression(term) for term in words)
        sql, params = SCORED.format(weight=HEADING_WEIGHT) + sql, (expression, *params)
    with connections[nodes.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [pk for pk, _ in rows], rows[0][1] if rows else 0


def _matched(terms):
    """Return a condition per term, true for the nodes that match it."""
    return [_substring(t) if t.kind == "substring" else _matching(_expression(t)) for t in terms]


def title_candidates(nodes, word):
    """Return titles that share trigrams with ``word``, those sharing most first.

    The trigram index is asked for titles holding any of the word's trigrams (FTS5's
    ``bm25`` ranks those holding more, and rarer, first).
    """
    return _candidates(nodes, word, "title")


def body_candidates(nodes, word):
    """Return body texts that share trigrams with ``word``, as :func:`title_candidates`."""
    return _candidates(nodes, word, "body_text")


def _candidates(nodes, word, column):
    """Return the ``column`` of the :data:`CANDIDATES` nodes sharing most trigrams with
    ``word``."""
    pieces = sorted({piece.strip() for piece in trigrams(word) if len(piece.strip()) == 3})
    if not pieces:
        return []
    expression = f"{column} : (" + " OR ".join(_string(piece) for piece in pieces) + ")"
    ranked = RawSQL(
        "SELECT rowid FROM chapters_node_trigram WHERE chapters_node_trigram MATCH %s "
        "ORDER BY rank LIMIT %s",
        [expression, CANDIDATES],
    )
    return list(nodes.filter(pk__in=ranked).values_list(column, flat=True))
