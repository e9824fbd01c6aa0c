"""Search on PostgreSQL: full-text search in two configurations, and ``pg_trgm``.

The document is the title and its identifiers' parts (weight A), the headings (B) and the
body text and its identifiers' parts (C; ``Node.title_parts`` and ``Node.text_parts``, made
by ``chapters.words.identifier_parts``: "thread pool executor" of ``ThreadPoolExecutor``),
each parsed
twice: with ``chapters_english`` (English stems, so "optimizing" finds "Optimization") and
with ``chapters_simple`` (words as written, in any language and script); both configurations
fold accents with ``unaccent``. Migrations 0015, 0029 and 0033 make them, and store the two vectors
in generated columns, so that ranking thousands of matches reads vectors rather than parsing
their bodies again. A word of the query is looked for in
both, its prefixes with ``simple`` (``'backprop':*``); a phrase in both, words in a row; a
substring (Chinese, Japanese) with ``LIKE``, which the trigram indexes serve. Migration 0014
indexes the document with GIN, and the title and body text with ``gin_trgm_ops``; typos are
corrected from the wiki's vocabulary (``Word``, migration 0034), whose words its own trigram
index finds (:func:`similar_words`). ``<`` in
the text reaches the parser as a blank, since it would otherwise read text such as
``vector<float>`` as an HTML tag and skip it; in the query too.

Search's queries run under :func:`indexed`, with the planner's sequential scans turned off:
the planner counts no cost for reading a row's stored vector out of TOAST, so it prices a
scan of the table far below what it costs (below).
"""

from contextlib import contextmanager
from functools import reduce
from operator import and_, or_

from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVectorField,
)
from django.db import connections, transaction
from django.db.models import (
    BooleanField,
    Case,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, NullIf, StrIndex
from django.db.models.lookups import GreaterThan

from ..models import Node
from . import postgresql_sql
from .query import HEADING_PUNCTUATION, MIN_PREFIX
from .ranking import ORDER, count_met, partial_title_length
from .results import Found

__all__ = ["DOCUMENT", "find", "indexed", "matches", "similar_words"]

ENGLISH, SIMPLE = "chapters_english", "chapters_simple"
WORD_SIMILARITY = 0.3  # pg_trgm.similarity_threshold: the least similarity of a correction
# BM25 as FTS5's bm25() has it: its constants, and the weights of D, C (the body: 1, scaled to
# the largest weight ts_rank_cd takes), B (the headings: sqlite.HEADING_WEIGHT) and A (the
# title, which BM25 leaves out, as SQLite's chapters_node_text does).
K1, B = 1.2, 0.75
BM25_WEIGHTS = [0.0, 0.25, 1.0, 0.0]

# Whether a heading of the node, lower-cased and without query.HEADING_PUNCTUATION, is the
# query's words run together (query.Query.joined), as sqlite.HEADING_IS_QUERY.
HEADING_IS_QUERY = (
    "EXISTS (SELECT 1 FROM jsonb_array_elements(chapters_node.headings) AS heading "
    "WHERE lower(translate(heading->>'title', %s, '')) = %s)"
)

# The stored vectors of migration 0014: generated columns, not model fields. The GIN index
# is on DOCUMENT, both joined.
ENGLISH_VECTOR, SIMPLE_VECTOR, DOCUMENT = "search_english", "search_simple", "search_document"


@contextmanager
def indexed(using):
    """Plan the queries of the block with the indexes that serve them, in a transaction.

    PostgreSQL's planner prices matching a row (``@@``) as one operator and reading the
    row's stored vector (out of TOAST, decompressed) as nothing, so a scan of the table looks
    cheap: for a word found in many rows, or under a ``LIMIT`` (``exists()``), it prefers
    the scan to the GIN index, though the scan reads and matches every row's vector; at
    20,000 nodes, hundreds of milliseconds where the index takes a few (bench/README.md,
    "Search"). ``enable_seqscan = off`` only adds a large cost to a sequential scan: the
    planner takes an index wherever one serves the query, and still scans a table when
    none does. ``SET LOCAL`` keeps it to the transaction: the block's own, or, when the
    block runs inside one (a test's), the enclosing one.

    Args:
        using: the alias of the database searched.
    """
    with transaction.atomic(using=using, savepoint=False):
        with connections[using].cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
        yield


def _vector(sql):
    """Return a stored vector (or an expression of them) as a query expression."""
    return RawSQL(sql, [], output_field=SearchVectorField())


def _bm25(using, terms):
    """Return the BM25 of the headings and body of each node for ``terms``, as SQLite's
    FTS5 ``bm25()`` computes it (sqlite.org/fts5.html, "The bm25() function").

    Summed over the phrases FTS5 is given (:func:`_phrases`: each spelling and prefix of a
    word, each phrase): the phrase's inverse document frequency ``ln((N - n + 0.5) /
    (n + 0.5))`` (at least 1e-6, as FTS5 has it), with ``N`` the nodes and ``n`` those that
    hold it, times ``f (k1 + 1) / (f + k1 (1 - b + b L / avgL))``, where ``f`` is the
    phrase's occurrences in the headings, weighted :data:`.sqlite.HEADING_WEIGHT`, and in
    the body, weighted 1 (``ts_rank_cd`` of one phrase, normalization 0, is the sum of its
    occurrences' weights), ``L`` the node's ``words`` and the words of its identifiers'
    parts (``part_words``, migration 0033: FTS5 counts them in the row's length), and
    ``avgL`` their mean. ``N`` and ``avgL`` are read first, in one query that the index
    ``chapters_node_words`` (migrations 0032 and 0033) answers alone; each phrase's inverse
    document frequency is a subquery of the ranking query, which PostgreSQL runs once (an
    ``InitPlan``) through the GIN index.
    """
    with connections[using].cursor() as cursor:
        cursor.execute(postgresql_sql.LENGTHS)
        total, mean = cursor.fetchone()
    words = F("words") + RawSQL('"chapters_node"."part_words"', [], output_field=FloatField())
    length = K1 * (1 - B + B * words / Value(max(float(mean), 1.0)))
    score = Value(0.0)
    for vector, query in (phrase for term in terms for phrase in _phrases(term)):
        held = _aliased(Node.objects.using(using).order_by()).filter(document=query)
        idf = Subquery(
            held.values(
                idf=Func(
                    Func(
                        (Value(total + 0.5) - Func(F("pk"), function="COUNT"))
                        / (Func(F("pk"), function="COUNT") + Value(0.5)),
                        function="LN",
                    ),
                    Value(1e-6),
                    function="GREATEST",
                    output_field=FloatField(),
                )
            )
        )
        # The title's weight (A) is 0: its occurrences count for nothing, without the cost
        # of ts_filter() for every phrase of every match.
        occurrences = SearchRank(
            _vector(vector), query, weights=BM25_WEIGHTS, normalization=0, cover_density=True
        ) * Value(1 / BM25_WEIGHTS[1])
        # f (k1 + 1) / (f + K) as (k1 + 1) / (1 + K / f), so that f is computed once: none
        # where the phrase is not in the text (f = 0).
        saturation = Value(K1 + 1) / (Value(1.0) + length / NullIf(occurrences, Value(0.0)))
        score = score + idf * Coalesce(saturation, Value(0.0), output_field=FloatField())
    return ExpressionWrapper(score, output_field=FloatField())


def _phrases(term):
    """Return the phrases FTS5 ranks ``term`` by on SQLite (``sqlite._expression``), each as
    ``(stored vector, SearchQuery)``: a word's spellings in English stems (as FTS5's Porter
    tokenizer stems them), its prefixes as written; a phrase's words in a row; then an
    identifier's alternatives, each a phrase in English stems."""
    if term.kind == "any":
        return [phrase for option in term.options for phrase in _phrases(option)]
    alternatives = [
        (ENGLISH_VECTOR, SearchQuery(" ".join(words), search_type="phrase", config=ENGLISH))
        for words in term.alternatives
    ]
    if term.kind == "phrase":
        text = term.text.replace("<", " ").replace("/", " ").replace(".", " ")
        return [(ENGLISH_VECTOR, SearchQuery(text, search_type="phrase", config=ENGLISH))] + (
            alternatives
        )
    english = [
        (ENGLISH_VECTOR, SearchQuery(spelling, search_type="plain", config=ENGLISH))
        for spelling in term.spellings
    ]
    prefixes = [
        (SIMPLE_VECTOR, SearchQuery(f"{prefix}:*", search_type="raw", config=SIMPLE))
        for prefix in term.prefixes
    ]
    return english + prefixes + alternatives


def _term_query(term, configs=(ENGLISH, SIMPLE)):
    """Return the ``SearchQuery`` of a word, phrase or "any" term, in ``configs``.

    Prefixes are looked for in ``chapters_simple`` only, among words as written; an
    identifier's alternatives (``Term.alternatives``) as phrases, like the term.
    """
    text = term.text.replace("<", " ").replace("/", " ").replace(".", " ")
    if term.kind == "any":
        result = _term_query(term.options[0], configs)
        for option in term.options[1:]:
            result |= _term_query(option, configs)
        return result
    kinds = [("phrase", text)] if term.kind == "phrase" else [("plain", s) for s in term.spellings]
    kinds += [("phrase", " ".join(words)) for words in term.alternatives]
    if SIMPLE in configs:
        # A prefix is letters and digits only (query.WORD), so it is safe as raw syntax.
        kinds += [("raw", f"{prefix}:*") for prefix in term.prefixes]
    result = None
    for search_type, value in kinds:
        for config in configs if search_type != "raw" else (SIMPLE,):
            query = SearchQuery(value, search_type=search_type, config=config)
            result = query if result is None else result | query
    return result


def _substring(term):
    """Return a condition true for nodes whose title or body text contains ``term``.

    Case matters: the scripts written without spaces have none. ``LIKE``, which the trigram
    indexes serve, from three characters on; a shorter substring has no trigram, so the
    indexes would offer every row to check again, and ``strpos()`` (which no index serves)
    has the table scanned once instead, as SQLite does with ``LIKE`` (:mod:`.sqlite`).
    """
    if len(term.text) >= MIN_PREFIX:
        return Q(title__contains=term.text) | Q(body_text__contains=term.text)
    return Q(GreaterThan(StrIndex("title", Value(term.text)), 0)) | Q(
        GreaterThan(StrIndex("body_text", Value(term.text)), 0)
    )


def find(nodes, query, title_is_query, *, every=True):
    """Return the :class:`.results.Found` ``nodes`` that match every term of ``query`` (or
    any of them, when not ``every``), best first.

    Order (docs/search.md, "Ranking"): the keys of :data:`.ranking.ORDER`, as on SQLite,
    with this ``relevance``: the BM25 of the headings and body (:func:`_bm25`), computed as
    SQLite's FTS5 computes it, so that both databases rank alike. The first ``SLICE`` are
    ranked in one query written as SQL (:func:`.postgresql_sql.ranked`), which also counts the
    matches; past ``WIDE`` matches, among a first slice of them read from the indexes
    (:func:`.postgresql_sql.first_slice`). The queryset of them all, in the same order, is
    made only when asked for (:class:`.results.Found`).
    """
    if not query.terms:
        return Found(_ordered(nodes, query, title_is_query, every))
    ids, count, first_slice = postgresql_sql.ranked(nodes, query, every)
    return Found(
        lambda: _ordered(nodes, query, title_is_query, every),
        count,
        ranked=ids,
        by_id=nodes,
        first_slice=first_slice,
    )


def _ordered(nodes, query, title_is_query, every):
    """Return the queryset of ``nodes`` that match ``query``, in the order of :func:`find`.

    What :func:`.postgresql_sql.ranked` computes as SQL, as Django expressions: for a slice past the
    ranked nodes, and for the queryset's own methods (``values_list()``, ...).
    """
    words = [term for term in query.terms if term.kind != "substring"]
    substrings = [term for term in query.terms if term.kind == "substring"]
    queries = [_term_query(term) for term in words]
    nodes = _aliased(nodes)
    if queries:
        # The index finds the rows; each term is then checked in its own configuration.
        nodes = nodes.filter(document=reduce(and_ if every else or_, queries))
        nodes = nodes.filter(reduce(and_ if every else or_, map(_own, words)))
    if every:
        for term in substrings:
            nodes = nodes.filter(_substring(term))
    elif substrings and not words:
        nodes = nodes.filter(reduce(or_, (_substring(term) for term in substrings)))
    for term in query.excluded:
        if term.kind == "substring":
            nodes = nodes.exclude(_substring(term))
        else:
            nodes = nodes.exclude(document=_term_query(term))
    if not query.terms:
        return nodes.order_by("tree_id", "lft")
    matched, in_title, in_headings = [], [], []
    for term in query.terms:
        if term.kind == "substring":
            matched.append(_substring(term))
            in_title.append(Q(title__contains=term.text))
        else:
            matched.append(_own(term))
            in_title.append(_own(term.as_typed(), "title_"))
            in_headings.append(_own(term.as_typed(), "headings_"))
    # Side by side as SQLite's index finds a phrase: in English stems, or as written.
    pairs = [
        Q(english=SearchQuery(f"{first} {second}", search_type="phrase", config=ENGLISH))
        | Q(simple=SearchQuery(f"{first} {second}", search_type="phrase", config=SIMPLE))
        for first, second in query.pairs()
    ]
    every_term = len(query.terms)
    relevance = Value(0.0)
    if words:
        relevance = -_bm25(nodes.db, words)
    joined = query.joined()
    heading_is_query = Value(False)
    if joined:
        heading_is_query = Case(
            When(
                Q(heading_coverage=every_term),
                then=RawSQL(
                    HEADING_IS_QUERY, [HEADING_PUNCTUATION, joined], output_field=BooleanField()
                ),
            ),
            default=Value(False),
        )
    return (
        nodes.alias(
            title_is_query=title_is_query,
            coverage=Value(every_term) if every else count_met(matched),
            title_coverage=count_met(in_title),
            heading_coverage=count_met(in_headings),
            adjacent=count_met(pairs),
        )
        .alias(heading_is_query=heading_is_query)
        .alias(title_length=partial_title_length(every_term), relevance=relevance)
        .order_by(*ORDER)
    )


def matches(nodes, term):
    """Return whether any of ``nodes`` matches ``term`` (one query, written as SQL:
    :func:`.postgresql_sql.matches`)."""
    return postgresql_sql.matches(nodes, term)


def _aliased(nodes):
    """Return ``nodes`` with the stored vectors as aliases: ``document`` (both
    configurations, which the GIN index covers), ``english`` and ``simple``, and the
    latter two of the title alone (``title_english``, ``title_simple``) and of the headings
    alone (``headings_english``, ``headings_simple``)."""
    vectors = {"english": ENGLISH_VECTOR, "simple": SIMPLE_VECTOR}
    return nodes.alias(
        document=_vector(DOCUMENT),
        **{name: _vector(vector) for name, vector in vectors.items()},
        **{f"title_{name}": _vector(f"ts_filter({v}, '{{a}}')") for name, v in vectors.items()},
        **{f"headings_{name}": _vector(f"ts_filter({v}, '{{b}}')") for name, v in vectors.items()},
    )


def _own(term, prefix=""):
    """Return a condition true where ``term`` matches in its own configuration.

    Its English query in the English vector, or its ``simple`` query in the ``simple`` one:
    in the document that joins both, an English stem could match a word as written in the
    other ("differentation" stems to "different", which finds the word "different"), or
    the reverse. ``prefix`` "title_" checks the title alone.
    """
    return Q(**{f"{prefix}english": _term_query(term, (ENGLISH,))}) | Q(
        **{f"{prefix}simple": _term_query(term, (SIMPLE,))}
    )


def similar_words(using, word, shortest, longest):
    """Return the words of the vocabulary (``Word``) that are at least
    :data:`WORD_SIMILARITY` alike ``word`` (``pg_trgm``'s similarity, ``%``, which the
    trigram index ``chapters_search_word_trgm`` serves), of ``shortest`` to ``longest``
    characters.

    Args:
        using: the alias of the database searched.
        word: a folded word.
        shortest: the fewest characters a word returned has.
        longest: the most.

    Returns:
        A list of ``(word, documents, titles)``, as ``Word`` counts them, in no order.
    """
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT set_config('pg_trgm.similarity_threshold', %s, false)", [str(WORD_SIMILARITY)]
        )
        cursor.execute(
            "SELECT word, documents, titles FROM chapters_search_word "
            "WHERE word %% %s AND length(word) BETWEEN %s AND %s",
            [word, shortest, longest],
        )
        return cursor.fetchall()
