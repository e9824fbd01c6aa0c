"""Search's ranking query on PostgreSQL, written as SQL.

The same conditions and keys as the Django expressions of :mod:`.postgresql` (``find``'s
queryset), which stays the reference for what they mean: compiling those expressions cost
several times what PostgreSQL takes to run the query on the curriculum (bench/README.md,
"Search"), so the query that ranks the first matches and counts them all is written here as
SQL, term by term. Each helper returns ``(sql, params)``.
"""

from django.db import connections

from ..words import spaceless_grams
from . import kept
from .query import HEADING_PUNCTUATION, MIN_PREFIX

__all__ = ["LENGTHS", "SLICE", "WIDE", "matches", "ranked"]

ENGLISH, SIMPLE = "chapters_english", "chapters_simple"
SLICE = 100  # matches ranked by relevance; the rest follow from the queryset (Found)
# The most matches ranked all: past it, a first slice of them is taken from the indexes and
# ranked (first_slice), as reading every match's vectors out of TOAST to rank it costs about
# 35 microseconds a match (bench/README.md, "Issue 26: a first slice").
WIDE = 1000
HELD = SLICE  # the most matches of a first slice with a term in the title or a heading
BM25_WEIGHTS = "'{0.0,0.25,1.0,0.0}'::float4[]"  # postgresql.BM25_WEIGHTS, as SQL
K1, B = 1.2, 0.75  # postgresql.K1, postgresql.B
# The number of nodes and their mean length: their words and their identifiers' parts' (the
# generated column part_words of migration 0033), which the index chapters_node_words holds.
LENGTHS = "SELECT count(words), coalesce(avg(words + part_words), 0) FROM chapters_node"
# The stored vectors searched, by configuration. The title's keys and the headings' are
# asked of them with each lexeme of the query restricted to the title's weight (A: the title
# and its identifiers' parts, migration 0033) or the headings' (B), which a vector answers as
# ts_filter() of it to that weight would: neither parsing the title again nor copying each
# match's vector for every key (at 20,000 nodes, most of a broad word's time).
WHOLE = {ENGLISH: "n.search_english", SIMPLE: "n.search_simple"}
TITLE, HEADINGS = "A", "B"
# A lexeme in a tsquery's text, with its prefix mark: 'it''s', 'latency':*.
LEXEME = r"'((?:[^']|'')*)'(?::(\*))?"

# A first slice's matches that hold a term of the query in the title or a heading, found by
# the index on the stored document's weights A and B (migration 0036): those with more terms
# in the title first (the title and its identifiers' parts, parsed again: a few words), then
# the shorter titles.
HOLDING = """SELECT n.id FROM chapters_node n CROSS JOIN LATERAL (
    SELECT to_tsvector('chapters_english'::regconfig, n.title || ' ' || n.title_parts)
        || to_tsvector('chapters_simple'::regconfig, n.title || ' ' || n.title_parts) AS vector
) title
WHERE ts_filter(n.search_document, '{{a,b}}') @@ ({held}) AND {conditions}
ORDER BY {in_title} DESC, length(n.title), n.tree_id, n.lft LIMIT {limit}"""
# The shortest matches, by the words of their headings and body, and the number of all.
SHORTEST = """SELECT n.id, COUNT(*) OVER () FROM chapters_node n WHERE {conditions}
ORDER BY n.words + n.part_words, n.tree_id, n.lft LIMIT {limit}"""
# The first SLICE matches in the order of ranking.ORDER, and the number of all matches.
RANKED = """SELECT id, COUNT(*) OVER () FROM (
    SELECT n.id, n.title, n.tree_id, n.lft, n.search_english, n.search_simple, n.words,
        n.part_words,
        n.headings, ({title_is_query}) AS title_is_query, {coverage} AS coverage,
        {title_coverage} AS title_coverage, {heading_coverage} AS heading_coverage,
        {adjacent} AS adjacent
    FROM chapters_node n WHERE {conditions}
) n
ORDER BY title_is_query DESC, coverage DESC, title_coverage DESC, {heading_is_query} DESC,
    adjacent DESC, heading_coverage DESC, {relevance},
    CASE WHEN title_coverage > 0 AND title_coverage < {every_term} THEN length(title) ELSE 0 END,
    tree_id, lft
LIMIT {slice}"""
# postgresql.HEADING_IS_QUERY, on the ranked rows.
HEADING_IS_QUERY = (
    "CASE WHEN heading_coverage = {every_term} THEN EXISTS (SELECT 1 FROM "
    "jsonb_array_elements(n.headings) AS heading WHERE lower(translate(heading->>'title', %s, "
    "'')) = %s) ELSE FALSE END"
)


class SQL:
    """SQL text with its params, built piece by piece."""

    def __init__(self):
        self.params = []

    def add(self, piece):
        """Return the text of ``piece`` (``(sql, params)``), keeping its params in order."""
        sql, params = piece
        self.params.extend(params)
        return sql


def _combine(pieces, operator):
    """Return ``pieces`` (``(sql, params)``) joined by ``operator``, each in parentheses."""
    return (
        f" {operator} ".join(f"({sql})" for sql, _ in pieces),
        [param for _, params in pieces for param in params],
    )


def tsquery(term, configs=(ENGLISH, SIMPLE)):
    """Return the tsquery of a word, phrase or "any" term in ``configs``, as
    ``postgresql._term_query`` builds it (prefixes in ``chapters_simple`` only)."""
    if term.kind == "any":
        return _combine([tsquery(option, configs) for option in term.options], "||")
    text = term.text.replace("<", " ").replace("/", " ").replace(".", " ")
    if term.kind == "phrase":
        kinds = [("phraseto", text)]
    else:
        kinds = [("plainto", spelling) for spelling in term.spellings]
    kinds += [("phraseto", " ".join(words)) for words in term.alternatives]
    if SIMPLE in configs:
        kinds += [("to", f"{prefix}:*") for prefix in term.prefixes]
    pieces = [
        (f"{function}_tsquery('{config}'::regconfig, %s)", [value])
        for function, value in kinds
        for config in (configs if function != "to" else (SIMPLE,))
    ]
    return _combine(pieces, "||")


def own(term, weight=None):
    """Return the condition that ``term`` matches in its own configuration (English in the
    English vector, ``simple`` in the other): ``postgresql._own``; in the title alone with
    ``weight`` :data:`TITLE`, in the headings alone with :data:`HEADINGS`."""
    return _combine(
        [
            _at(WHOLE[config], _weighted(tsquery(term, (config,)), weight))
            for config in (ENGLISH, SIMPLE)
        ],
        "OR",
    )


def _weighted(query, weight):
    """Return the tsquery ``query`` (``(sql, params)``) with each of its lexemes restricted to
    ``weight`` (one of ``ABCD``), or ``query`` itself when ``weight`` is None.

    The label is written into the query's text, as ``to_tsquery('x:B')`` writes it, since
    PostgreSQL has no function that sets a tsquery's weights; the text and its casts are
    constants, which the planner computes once.
    """
    if weight is None:
        return query
    sql, params = query
    return (
        f"regexp_replace(({sql})::text, %s, %s, 'g')::tsquery",
        [*params, LEXEME, rf"'\1':\2{weight}"],
    )


def _at(vector, query):
    """Return the condition that ``vector`` matches the tsquery ``query``."""
    return f"{vector} @@ ({query[0]})", query[1]


def _like(text):
    """Return the ``LIKE`` pattern of a text containing ``text``, as Django's ``contains``."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def substring(term, title=False):
    """Return the condition that the title or body text (the title alone when ``title``)
    contains ``term``: ``postgresql._substring``."""
    if title:
        return "n.title::text LIKE %s", [_like(term.text)]
    if len(term.text) >= MIN_PREFIX:
        return "n.title::text LIKE %s OR n.body_text::text LIKE %s", [_like(term.text)] * 2
    return "STRPOS(n.title, %s) > 0 OR STRPOS(n.body_text, %s) > 0", [term.text] * 2


def found_substring(term):
    """Return the condition that the title or body text contains ``term``, as a search's
    filter: :func:`substring`, in the nodes holding every character and pair of ``term``
    in the scripts written without spaces (``Node.grams``, ``words.spaceless_grams``), when
    it has any.

    Their GIN index (migration 0037) gives the few nodes to look in, where ``strpos()``
    alone (no index serves it) reads every body, and ``LIKE`` the trigram index, which a
    substring of fewer than three characters has no trigram for.
    """
    sql, params = substring(term)
    grams = spaceless_grams(term.text).split()
    if not grams:
        return sql, params
    return f"string_to_array(n.grams, ' ') @> %s::text[] AND ({sql})", [grams, *params]


def _met(conditions):
    """Return how many of ``conditions`` a node meets (``ranking.count_met``), as SQL."""
    if not conditions:
        return "0", []
    return (
        " + ".join(f"(CASE WHEN ({sql}) THEN 1 ELSE 0 END)" for sql, _ in conditions),
        [param for _, params in conditions for param in params],
    )


def _phrases(term):
    """Return the phrases of ``term`` (``postgresql._phrases``), each as ``(vector, tsquery)``."""
    if term.kind == "any":
        return [phrase for option in term.options for phrase in _phrases(option)]
    phrase = f"phraseto_tsquery('{ENGLISH}'::regconfig, %s)"
    alternatives = [("search_english", (phrase, [" ".join(w)])) for w in term.alternatives]
    if term.kind == "phrase":
        text = term.text.replace("<", " ").replace("/", " ").replace(".", " ")
        return [("search_english", (phrase, [text])), *alternatives]
    english = [
        ("search_english", (f"plainto_tsquery('{ENGLISH}'::regconfig, %s)", [spelling]))
        for spelling in term.spellings
    ]
    prefixes = [
        ("search_simple", (f"to_tsquery('{SIMPLE}'::regconfig, %s)", [f"{prefix}:*"]))
        for prefix in term.prefixes
    ]
    return english + prefixes + alternatives


def _lengths(using):
    """Return the number of nodes and their mean length (:data:`LENGTHS`), in one query."""
    with connections[using].cursor() as cursor:
        cursor.execute(LENGTHS)
        total, mean = cursor.fetchone()
    return total, max(float(mean), 1.0)


def _bm25(words, total, mean):
    """Return the BM25 of the headings and body of the ranked rows (``postgresql._bm25``),
    for ``total`` nodes of mean length ``mean`` (:func:`_lengths`)."""
    length = f"({K1} * ({1 - B} + {B} * (n.words + n.part_words) / {mean}::float8))"
    sql = SQL()
    parts = []
    for vector, query in (phrase for term in words for phrase in _phrases(term)):
        held = sql.add(query)
        idf = (
            f"(SELECT greatest(ln(({total} + 0.5 - count(*)) / (count(*) + 0.5)), 1e-6) "
            f"FROM chapters_node WHERE search_document @@ ({held}))"
        )
        rank = sql.add(query)
        occurrences = f"(ts_rank_cd({BM25_WEIGHTS}, n.{vector}, ({rank}), 0) * 4.0::float8)"
        parts.append(
            f"({idf} * coalesce({K1 + 1} / (1.0 + {length} / nullif({occurrences}, 0.0)), 0.0))"
        )
    return "(0.0::float8 + " + " + ".join(parts) + ")", sql.params


def conditions(nodes, query, every, own_configuration=True):
    """Return the condition the nodes found meet: ``postgresql.find``'s filters, as SQL.

    Without ``own_configuration``, a word is looked for in the stored document only, which
    the GIN index answers without reading a vector: an English stem may then match the same
    letters written as a word, and the reverse.
    """
    words = [term for term in query.terms if term.kind != "substring"]
    substrings = [term for term in query.terms if term.kind == "substring"]
    found = []
    if words:
        joined = _combine([tsquery(term) for term in words], "&&" if every else "||")
        found.append(_at("n.search_document", joined))
        if own_configuration:
            found.append(_combine([own(term) for term in words], "AND" if every else "OR"))
    if every:
        found += [found_substring(term) for term in substrings]
    elif substrings and not words:
        found.append(_combine([found_substring(term) for term in substrings], "OR"))
    for term in query.excluded:
        sql, params = (
            substring(term) if term.kind == "substring" else _at("n.search_document", tsquery(term))
        )
        found.append((f"NOT ({sql})", params))
    if nodes.query.where:
        sql, params = nodes.values("pk").order_by().query.sql_with_params()
        found.append((f"n.id IN ({sql})", list(params)))
    return _combine(found, "AND") if found else ("TRUE", [])


def ranked(nodes, query, every):
    """Return the ids of the first :data:`SLICE` of ``nodes`` that match ``query``, in
    order, the number of all that match, and whether the ids were ranked among a first
    slice of the matches (:func:`first_slice`, past :data:`WIDE` matches) rather than among
    them all.

    The keys of ``ranking.ORDER`` as ``postgresql.find`` computes them, written as SQL, in
    one query; with the nodes' number and mean length first, when the query has words
    (read once per version of the wiki: ``kept.node_lengths``), and on a wiki of more than
    :data:`WIDE` nodes the queries of :func:`first_slice`.
    """
    words = [term for term in query.terms if term.kind != "substring"]
    total, mean = kept.node_lengths(nodes.db, lambda: _lengths(nodes.db)) if words else (0, 1.0)
    sliced = first_slice(nodes, query, every) if words and total > WIDE else None
    ids, count = _ranked(nodes, query, every, (total, mean), sliced and sliced[0])
    if sliced:
        return ids, sliced[1], True
    return ids, count, False


def first_slice(nodes, query, every):
    """Return the ids of a first slice of ``nodes`` that match ``query``, and the number of
    all that match, or None when they are :data:`WIDE` or fewer.

    The slice holds the matches with a term of the query in the title or a heading, whose
    keys come first in ``ranking.ORDER`` (:data:`HELD` at most, more terms in the title
    first, then the shorter titles), and
    the :data:`SLICE` shortest matches, whose BM25 is the highest for as many occurrences
    (its normalization by length: Robertson and Zaragoza, 2009). Both are read from the GIN
    indexes and the rows, without reading a vector out of TOAST; the slice is then ranked by
    every key. A page mentioning a broad word often in a long body, without a heading about
    it, can be left out. The number counts the matches of the stored document
    (:func:`conditions` without ``own_configuration``).
    """
    loose = conditions(nodes, query, every, own_configuration=False)
    sql = SQL()
    text = SHORTEST.format(conditions=sql.add(loose), limit=SLICE)
    with connections[nodes.db].cursor() as cursor:
        cursor.execute(text, sql.params)
        shortest = cursor.fetchall()
        count = shortest[0][1] if shortest else 0
        if count <= WIDE:
            return None
        sql = SQL()
        words = [term for term in query.terms if term.kind != "substring"]
        queries = [tsquery(term) for term in words]
        text = HOLDING.format(
            held=sql.add(_combine(queries, "||")),
            conditions=sql.add(loose),
            in_title=sql.add(_met([_at("title.vector", query) for query in queries])),
            limit=HELD,
        )
        cursor.execute(text, sql.params)
        holding = [pk for (pk,) in cursor.fetchall()]
    return list(dict.fromkeys([*holding, *(pk for pk, _ in shortest)])), count


def _ranked(nodes, query, every, lengths, among):
    """Return the ids of the first :data:`SLICE` of ``nodes`` that match ``query``, in
    order, and the number of all that match, among the ids ``among`` when not None
    (:func:`ranked`); ``lengths`` as :func:`_lengths` returns them."""
    sql = SQL()
    words = [term for term in query.terms if term.kind != "substring"]
    every_term = len(query.terms)
    titles = query.titles()
    title_is_query = sql.add(
        _combine([("UPPER(n.title::text) = UPPER(%s)", [t]) for t in titles], "OR")
        if titles
        else ("FALSE", [])
    )
    matched = [substring(t) if t.kind == "substring" else own(t) for t in query.terms]
    coverage = str(every_term) if every else sql.add(_met(matched))
    in_title = [
        substring(t, title=True) if t.kind == "substring" else own(t.as_typed(), TITLE)
        for t in query.terms
    ]
    title_coverage = sql.add(_met(in_title))
    heading_coverage = sql.add(_met([own(t.as_typed(), HEADINGS) for t in words]))
    pairs = [
        _combine(
            [
                _at(WHOLE[config], (f"phraseto_tsquery('{config}'::regconfig, %s)", [f"{a} {b}"]))
                for config in (ENGLISH, SIMPLE)
            ],
            "OR",
        )
        for a, b in query.pairs()
    ]
    adjacent = sql.add(_met(pairs))
    where = sql.add(conditions(nodes, query, every))
    if among is not None:
        where = f"({where}) AND n.id = ANY (%s)"
        sql.params.append(among)
    # In the order of the ORDER BY: the heading equal to the query, then the relevance.
    joined = query.joined()
    heading_is_query = "FALSE::boolean"
    if joined:
        heading_is_query = HEADING_IS_QUERY.format(every_term=every_term)
        sql.params.extend([HEADING_PUNCTUATION, joined])
    relevance = "0.0::float8"
    if words:
        relevance = "-" + sql.add(_bm25(words, *lengths))
    text = RANKED.format(
        title_is_query=title_is_query,
        coverage=coverage,
        title_coverage=title_coverage,
        heading_coverage=heading_coverage,
        heading_is_query=heading_is_query,
        adjacent=adjacent,
        conditions=where,
        every_term=every_term,
        relevance=relevance,
        slice=SLICE,
    )
    with connections[nodes.db].cursor() as cursor:
        cursor.execute(text, sql.params)
        rows = cursor.fetchall()
    return [pk for pk, _ in rows], rows[0][1] if rows else 0


def matches(nodes, term):
    """Return whether any of ``nodes`` matches ``term`` (one query): ``postgresql.matches``."""
    sql = SQL()
    if term.kind == "substring":
        condition = sql.add(found_substring(term))
    else:
        condition = sql.add(_combine([_at("n.search_document", tsquery(term)), own(term)], "AND"))
    if nodes.query.where:
        inner, params = nodes.values("pk").order_by().query.sql_with_params()
        condition = f"({condition}) AND n.id IN ({sql.add((inner, list(params)))})"
    with connections[nodes.db].cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM chapters_node n WHERE {condition} LIMIT 1", sql.params)
        return cursor.fetchone() is not None
