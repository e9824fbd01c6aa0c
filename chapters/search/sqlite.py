"""Search on SQLite: four FTS5 indexes of the nodes' titles, headings and body texts.

Migrations 0015, 0029, 0033 and 0037 make them, kept in step with ``chapters_node`` by triggers on
every insert, update and delete (from ``save()``, ``update()``, ``loaddata`` or a shell
alike):

- ``chapters_node_search`` (external content: title, body text and the parts of their
  identifiers, ``Node.title_parts`` and ``Node.text_parts``), tokenized by ``porter
  unicode61 remove_diacritics 2``: words folded in every script and without the accents of
  Latin letters, with English stems (the Porter stemmer, close to PostgreSQL's Snowball);
  words, their variants and prefixes (``"backprop"*``) and phrases are matched here; a
  title is matched in ``{title title_parts}``;
- ``chapters_node_text`` (contentless: the headings' titles, the body text and its
  identifiers' parts), tokenized alike: what ``bm25()`` ranks bodies by, without the title,
  whose length FTS5 would count in the row's;
- ``chapters_node_trigram`` (external content), tokenized by ``trigram``: substrings of
  three characters or more, for text without spaces (Chinese, Japanese);
- ``chapters_node_grams`` (external content: ``Node.grams``, the characters and pairs of
  characters of those scripts), tokenized by ``ascii``: the nodes to look in, with
  ``instr()``, for a substring of one or two characters, which has no trigram.

Typos are corrected from the wiki's vocabulary (``Word``, migration 0034), whose words the
FTS5 table ``chapters_search_word_trigram`` finds by their trigrams (:func:`similar_words`).
"""

from contextlib import nullcontext
from functools import reduce
from math import ceil
from operator import or_

from django.db import connections
from django.db.models import F, IntegerField, Q
from django.db.models.expressions import RawSQL

from ..words import spaceless_grams
from . import kept
from .query import HEADING_PUNCTUATION, MIN_PREFIX, trigrams
from .results import Found

__all__ = ["find", "indexed", "matches", "similar_words"]

WORD_SIMILARITY = 0.3  # the least trigram similarity of a correction, as on PostgreSQL
TRIGRAM = "chapters_search_word_trigram"  # the vocabulary's words by trigram (migration 0034)
SLICE = 100  # matches ranked by relevance; the rest follow in tree order
WIDE = 1000  # the most matches ranked all: past it, a first slice of them (_first_slice)
HEADING_WEIGHT = 4.0  # bm25()'s weight of the headings, the body's (and its parts') being 1

# The bm25() of every node whose headings or body match, computed once in the index's own
# pass (as a correlated subquery, FTS5 would count each term's documents again per row). A
# node matching some terms in its title alone has none: it is ranked after those that do.
SCORED = (
    "WITH scored AS MATERIALIZED (SELECT rowid AS node, "
    "bm25(chapters_node_text, {weight}, 1.0, 1.0) AS score "
    "FROM chapters_node_text WHERE chapters_node_text MATCH %s) "
)
# Whether a heading of node n, lower-cased and without HEADING_PUNCTUATION, is the query's
# words run together (query.Query.joined), for nodes with every term in their headings.
HEADING_IS_QUERY = (
    "CASE WHEN ({heading_coverage}) = {every_term} THEN EXISTS (SELECT 1 FROM "
    "json_each(n.headings) WHERE lower({stripped}) = %s) ELSE 0 END"
)
# A node's place among the ranked ones, in a string of their ids: ",12,7,40,".
POSITION = "nullif(instr(%s, ',' || chapters_node.id || ','), 0)"

MATCH = "SELECT rowid FROM {table} WHERE {table} MATCH %s"
INDEX_MATCH = MATCH.format(table="chapters_node_search")
TITLE = "{title title_parts} : "  # the columns of the title and its identifiers' parts
TEXT_MATCH = MATCH.format(table="chapters_node_text")
GRAMS = "chapters_node_grams"  # Node.grams, by the ascii tokenizer (migration 0037)

# The first SLICE matches in the order of ranking.ORDER, and the number of all matches.
RANKED = """{scored}
SELECT id, COUNT(*) OVER () FROM (
    SELECT n.id, n.title, n.tree_id, n.lft,
        ({title_is_query}) AS title_is_query, {coverage} AS coverage,
        {title_coverage} AS title_coverage, {heading_coverage} AS heading_coverage,
        {heading_is_query} AS heading_is_query, {adjacent} AS adjacent, {score} AS score
    FROM chapters_node n {indexed} WHERE {conditions}
)
ORDER BY title_is_query DESC, coverage DESC, title_coverage DESC, heading_is_query DESC,
    adjacent DESC, heading_coverage DESC,
    coalesce(score, 0),
    CASE WHEN title_coverage > 0 AND title_coverage < {every_term} THEN length(title) ELSE 0 END,
    tree_id, lft
LIMIT {slice}"""


def indexed(using):
    """Return a context for search's queries: SQLite's planner needs no help to use FTS5."""
    return nullcontext()


def _string(text):
    """Return ``text`` as an FTS5 string, which matches its tokens as a phrase."""
    return '"' + text.replace('"', '""') + '"'


def _expression(term):
    """Return the FTS5 expression of a word, phrase or "any" term: any of its forms (a
    word's spellings and prefixes, or the phrase; an identifier's alternatives)."""
    if term.kind == "any":
        return "(" + " OR ".join(_expression(option) for option in term.options) + ")"
    if term.kind == "phrase":
        forms = [_string(" ".join(term.words))]
    else:
        forms = [_string(spelling) for spelling in term.spellings]
        forms += [_string(prefix) + "*" for prefix in term.prefixes]
    forms += [_string(" ".join(words)) for words in term.alternatives]
    return "(" + " OR ".join(forms) + ")"


def _matching(expression, table="chapters_node_search"):
    """Return a condition true for nodes whose row in ``table`` matches ``expression``."""
    return Q(pk__in=RawSQL(MATCH.format(table=table), [expression]))


def _substring(term):
    """Return a condition true for nodes whose title or body text contains ``term``."""
    if len(term.text) >= MIN_PREFIX:
        return _matching(_string(term.text), "chapters_node_trigram")
    contains = Q(title__contains=term.text) | Q(body_text__contains=term.text)
    grams = _grams(term)
    return _matching(grams, GRAMS) & contains if grams else contains


def _grams(term):
    """Return the FTS5 expression of the characters and pairs of ``term`` in the scripts
    written without spaces (``words.spaceless_grams``), or "" for none.

    A node holding ``term`` holds them all in ``Node.grams``, which :data:`GRAMS` indexes
    (migration 0037): the nodes to look in for a substring too short for a trigram.
    """
    return " AND ".join(_string(gram) for gram in spaceless_grams(term.text).split())


def find(nodes, query, title_is_query, *, every=True):
    """Return the :class:`.results.Found` ``nodes`` that match every term of ``query`` (or
    any of them, when not ``every``), best first.

    Order (docs/search.md, "Ranking"): the keys of :data:`.ranking.ORDER`, with this
    ``relevance``: FTS5's ``bm25()`` of the headings and body (``chapters_node_text``),
    headings weighted :data:`HEADING_WEIGHT` times the body. The first :data:`SLICE` are
    ranked so in one query, which also counts the matches (past :data:`WIDE` matches,
    among a first slice of them, counted apart: :func:`_first_slice`); the rest follow in
    tree order.

    ``title_is_query``, the expression PostgreSQL orders by, is not used: the ranking query
    compares the titles of :meth:`.query.Query.titles` itself, as SQL.
    """
    words = [term for term in query.terms if term.kind != "substring"]
    if not query.terms:
        return Found(_matching_nodes(nodes, query, every, words))
    ids, count = _ranked(nodes, query, every, words)

    def ordered():
        """The matching nodes, the ranked ones first in their order, then in tree order."""
        position = RawSQL(
            POSITION, [",".join(["", *map(str, ids), ""])], output_field=IntegerField()
        )
        return (
            _matching_nodes(nodes, query, every, words)
            .alias(position=position)
            .order_by(F("position").asc(nulls_last=True), "tree_id", "lft")
        )

    return Found(ordered, count, ranked=ids, by_id=nodes)


def _matching_nodes(nodes, query, every, words):
    """Return the queryset of ``nodes`` that match ``query`` (its ``words``, every one or
    any, as :func:`find`), in tree order."""
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
    return nodes.order_by("tree_id", "lft")


def matches(nodes, term):
    """Return whether any of ``nodes`` matches ``term`` (one query).

    Of every node, the index alone is asked (as SQL: the queryset's compiling cost more
    than the lookup); of some, the queryset.
    """
    if nodes.query.where:
        return nodes.filter(
            _substring(term) if term.kind == "substring" else _matching(_expression(term))
        ).exists()
    sql, params = _sql(term)
    with connections[nodes.db].cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM chapters_node n WHERE {sql} LIMIT 1", params)
        return cursor.fetchone() is not None


def _ranked(base, query, every, words):
    """Return the ids of the first :data:`SLICE` nodes of ``base`` that match ``query``, in
    order, and the number of all that match.

    The keys of :data:`.ranking.ORDER`, written as SQL (:data:`RANKED`) rather than built as
    Django expressions, whose compiling cost more than running the query. The nodes are
    read from the index ``chapters_node_outline`` (tree order, title, status and path), and
    every condition is a lookup in a set of ids the FTS5 tables give: a row of the node
    table, with its body and HTML, is not read, though a broad word matches thousands
    (but for a substring too short for the trigram index, looked for in the bodies of the
    nodes holding its characters and pairs, ``chapters_node_grams``).
    """
    params = []

    def met(conditions, join=" + "):
        """Return the SQL of ``conditions`` (SQL and params) joined, keeping their params."""
        for _, condition_params in conditions:
            params.extend(condition_params)
        return join.join(f"({sql})" for sql, _ in conditions)

    titles = query.titles()
    title_is_query = " OR ".join([r"n.title LIKE %s ESCAPE '\'"] * len(titles)) or "0"
    params.extend(_like(title) for title in titles)
    every_term = len(query.terms)
    coverage = str(every_term) if every else met([_sql(term) for term in query.terms])
    title_coverage = met([_sql(term.as_typed(), title=True) for term in query.terms])
    in_headings = [
        (f"n.id IN ({TEXT_MATCH})", ["headings : " + _expression(term.as_typed())])
        for term in query.terms
        if term.kind != "substring"
    ]
    heading_coverage = met(in_headings) or "0"
    joined = query.joined()
    heading_is_query = "0"
    if joined:
        stripped = "json_extract(value, '$.title')"
        for character in HEADING_PUNCTUATION:
            stripped = f"replace({stripped}, '{character}', '')"
        heading_is_query = HEADING_IS_QUERY.format(
            heading_coverage=heading_coverage, every_term=every_term, stripped=stripped
        )
        # The heading coverage again, then the joined words.
        params.extend(params[-len(in_headings) :] + [joined])
    pairs = [(f"n.id IN ({INDEX_MATCH})", [_string(f"{a} {b}")]) for a, b in query.pairs()]
    adjacent = met(pairs) or "0"
    conditions = []
    if words:
        joined = (" AND " if every else " OR ").join(_expression(term) for term in words)
        conditions.append((f"n.id IN ({INDEX_MATCH})", [joined]))
    if every or not words:
        substrings = [_sql(term) for term in query.terms if term.kind == "substring"]
        conditions += [(met(substrings, " AND " if every else " OR "), [])] if substrings else []
    conditions += [(f"NOT ({sql})", sql_params) for sql, sql_params in map(_sql, query.excluded)]
    if base.query.where:
        sql, sql_params = base.values("pk").order_by().query.sql_with_params()
        conditions.append((f"n.id IN ({sql})", sql_params))
    # A substring shorter than a trigram: the nodes its grams give, read by rowid (the planner
    # chooses; the outline index would be read whole).
    short = [
        t
        for t in query.terms + query.excluded
        if t.kind == "substring" and len(t.text) < MIN_PREFIX
    ]
    indexed = "" if short else "INDEXED BY chapters_node_outline"
    wide = words and kept.node_count(base.db) > WIDE
    count = _count_past_wide(base.db, indexed, conditions, joined) if wide else None
    if count is not None:
        conditions.append(_first_slice(words))
    sql = RANKED.format(
        indexed=indexed,
        scored=SCORED.format(weight=HEADING_WEIGHT) if words else "",
        score="(SELECT score FROM scored WHERE scored.node = n.id)" if words else "NULL",
        title_is_query=title_is_query,
        coverage=coverage,
        title_coverage=title_coverage,
        heading_coverage=heading_coverage,
        heading_is_query=heading_is_query,
        adjacent=adjacent,
        conditions=met(conditions, " AND "),
        every_term=every_term,
        slice=SLICE,
    )
    if words:
        # Bodies with every word only, when every word must match: a broad word's bodies
        # are not scored for nothing.
        params.insert(0, (" AND " if every else " OR ").join(_expression(t) for t in words))
    with connections[base.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if count is not None:
        return [pk for pk, _ in rows], count
    return [pk for pk, _ in rows], rows[0][1] if rows else 0


def _count_past_wide(using, indexed, conditions, words):
    """Return the number of nodes meeting ``conditions`` (SQL and params) when they are more
    than :data:`WIDE`, else None.

    The nodes whose index row matches ``words`` (the FTS5 expression of the query's words)
    are counted first, up to :data:`WIDE` and one: the nodes meeting every condition are
    among them, and a word found in few nodes costs a few index lookups. When the words are
    the only condition, their index rows are the nodes counted: they are counted all at
    once (at 20,000 nodes, "kernel launch" 3 ms, where reading the outline index for the
    same count took 12).
    """
    where = " AND ".join(f"({sql})" for sql, _ in conditions)
    params = [param for _, condition_params in conditions for param in condition_params]
    only_words = len(conditions) == 1
    with connections[using].cursor() as cursor:
        limit = "" if only_words else f" LIMIT {WIDE + 1}"
        cursor.execute(f"SELECT count(*) FROM ({INDEX_MATCH}{limit})", [words])
        count = cursor.fetchone()[0]
        if count > WIDE and not only_words:
            cursor.execute(f"SELECT count(*) FROM chapters_node n {indexed} WHERE {where}", params)
            count = cursor.fetchone()[0]
    return count if count > WIDE else None


def _first_slice(words):
    """Return the condition (SQL and params) of a first slice of the matches, which
    :func:`_ranked` ranks past :data:`WIDE` matches rather than every match.

    The slice holds the :data:`SLICE` matches of the highest ``bm25()`` (FTS5's pass computes
    it for every match at once, the ``scored`` of :data:`SCORED`) and those with a word of
    the query in the title or a heading, whose keys come first in ``ranking.ORDER``; the
    rest of the keys, read for each node ranked, are read for them only. A page with the
    query's words side by side but few of them in a long body can be left out, as on
    PostgreSQL (``postgresql_sql.first_slice``).
    """
    any_word = "(" + " OR ".join(_expression(term.as_typed()) for term in words) + ")"
    return (
        f"n.id IN (SELECT node FROM (SELECT node FROM scored ORDER BY score LIMIT {SLICE}) "
        f"UNION {INDEX_MATCH} UNION {TEXT_MATCH})",
        [TITLE + any_word, "headings : " + any_word],
    )


def _sql(term, title=False):
    """Return the SQL condition (and its params) true for the nodes that match ``term``, in
    their title alone when ``title``."""
    if term.kind != "substring":
        expression = _expression(term)
        return f"n.id IN ({INDEX_MATCH})", [TITLE + expression if title else expression]
    if title:
        return "instr(n.title, %s) > 0", [term.text]
    if len(term.text) >= MIN_PREFIX:
        trigram = MATCH.format(table="chapters_node_trigram")
        return f"n.id IN ({trigram})", [_string(term.text)]
    contains = "instr(n.title, %s) > 0 OR instr(n.body_text, %s) > 0"
    grams = _grams(term)
    if not grams:
        return contains, [term.text, term.text]
    return f"n.id IN ({MATCH.format(table=GRAMS)}) AND ({contains})", [grams, *[term.text] * 2]


def _like(text):
    """Return a ``LIKE`` pattern equal to ``text`` ignoring case, as Django's ``iexact``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def similar_words(using, word, shortest, longest):
    """Return the words of the vocabulary (``Word``) that may be at least
    :data:`WORD_SIMILARITY` alike ``word``, of ``shortest`` to ``longest`` characters.

    Those that share at least :data:`WORD_SIMILARITY` of the word's trigrams (as
    ``pg_trgm`` pads and cuts it: :func:`.query.trigrams`), which every word so alike does
    (with ``s`` trigrams shared of ``a`` and ``b``, ``s / (a + b - s) >= t`` and ``b >= s``
    give ``s >= t a``), found in the FTS5 table ``chapters_search_word_trigram``
    (migration 0034): a trigram's words, counted per word. The caller computes the
    similarity of each.

    Args:
        using: the alias of the database searched.
        word: a folded word.
        shortest: the fewest characters a word returned has.
        longest: the most.

    Returns:
        A list of ``(word, documents, titles)``, as ``Word`` counts them, in no order.
    """
    pieces = sorted(trigrams(word))
    if not pieces:
        return []
    shared = " UNION ALL ".join(
        [f"SELECT rowid FROM {TRIGRAM} WHERE {TRIGRAM} MATCH %s"] * len(pieces)
    )
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT word, documents, titles FROM chapters_search_word WHERE id IN ("
            f"SELECT rowid FROM ({shared}) GROUP BY rowid HAVING count(*) >= %s"
            ") AND length(word) BETWEEN %s AND %s",
            [*map(_string, pieces), ceil(WORD_SIMILARITY * len(pieces) - 1e-9), shortest, longest],
        )
        return cursor.fetchall()
