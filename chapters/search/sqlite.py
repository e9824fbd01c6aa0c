"""Search on SQLite: two FTS5 indexes of the nodes' titles and body texts.

Migration 0014 makes them, as external-content FTS5 tables over ``chapters_node`` kept in
step by triggers on every insert, update and delete (from ``save()``, ``update()``,
``loaddata`` or a shell alike):

- ``chapters_node_search``, tokenized by ``porter unicode61 remove_diacritics 2``: words
  folded in every script and without the accents of Latin letters, with English stems (the
  Porter stemmer, close to PostgreSQL's Snowball); words, their variants and prefixes
  (``"backprop"*``) and phrases are matched here;
- ``chapters_node_trigram``, tokenized by ``trigram``: substrings of three characters or
  more, for text without spaces (Chinese, Japanese) and for spelling suggestions; a
  substring of one or two characters is looked for with ``LIKE``.

FTS5's ``bm25()`` divides by the length of a text, where PostgreSQL's ``ts_rank`` (without
normalization) does not, so it would order titles unlike PostgreSQL: after the title equal
to the query and the nodes with every term in the title, nodes stay in tree order.
"""

from contextlib import nullcontext

from django.db.models import Case, Q, Value, When
from django.db.models.expressions import RawSQL

from .query import MIN_PREFIX, trigrams

__all__ = ["find", "indexed", "title_candidates"]

CANDIDATES = 20  # titles read to correct one word

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


def find(nodes, query, title_is_query):
    """Return ``nodes`` filtered by ``query`` and ordered, best first (module docstring)."""
    words = [_expression(term) for term in query.terms if term.kind != "substring"]
    in_title = Q()
    if words:
        nodes = nodes.filter(_matching(" AND ".join(words)))
        in_title &= _matching("title : (" + " AND ".join(words) + ")")
    for term in query.terms:
        if term.kind == "substring":
            nodes = nodes.filter(_substring(term))
            in_title &= Q(title__contains=term.text)
    for term in query.excluded:
        nodes = nodes.exclude(
            _substring(term) if term.kind == "substring" else _matching(_expression(term))
        )
    # A query of excluded terms only has nothing to find in titles.
    all_in_title = (
        Case(When(in_title, then=Value(True)), default=Value(False)) if in_title else Value(False)
    )
    return nodes.alias(title_is_query=title_is_query, in_title=all_in_title).order_by(
        "-title_is_query", "-in_title", "tree_id", "lft"
    )


def title_candidates(nodes, word):
    """Return titles that share trigrams with ``word``, those sharing most first.

    The trigram index is asked for titles holding any of the word's trigrams (FTS5's
    ``bm25`` ranks those holding more, and rarer, first).
    """
    pieces = sorted({piece.strip() for piece in trigrams(word) if len(piece.strip()) == 3})
    if not pieces:
        return []
    expression = "title : (" + " OR ".join(_string(piece) for piece in pieces) + ")"
    ranked = RawSQL(
        "SELECT rowid FROM chapters_node_trigram WHERE chapters_node_trigram MATCH %s "
        "ORDER BY rank LIMIT %s",
        [expression, CANDIDATES],
    )
    return list(nodes.filter(pk__in=ranked).values_list("title", flat=True))
