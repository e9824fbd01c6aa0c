"""Full-text search over the nodes' titles and body text, best matches first.

:func:`find_nodes` returns the matching nodes (a :class:`.results.Found`, ready for a
``Paginator``); :func:`suggest` offers the query with its misspelt words corrected when
nothing matches; :func:`snippet` and :func:`highlight` quote a result's body and title with
the matched words in ``<mark>``, and :class:`.sections.Quoter` finds the heading a result
opens at. docs/search.md tells the whole story.

A query is read once for every database (:mod:`.query`: words, phrases, substrings, the
editors' synonyms and the spellings of :mod:`.spelling`, prefixes and stop words), then
matched by one implementation per database, chosen by the connection's ``vendor``:
:mod:`.postgresql` (full-text search in two configurations, and ``pg_trgm``) or
:mod:`.sqlite` (three FTS5 indexes). Both rank by the keys of :mod:`.ranking`: a title equal
to the query, more of the query's terms, more of them in the title, a heading equal to the
query, its words side by side, more of them in headings, then the BM25 of headings and body
(FTS5's ``bm25()`` on SQLite, the same formula over PostgreSQL's vectors), then tree order.
:func:`answer` is what the search page answers: a query's results, or its correction's.
Snippets and highlights are computed the same way on both, in Python, from the text readers
read.
"""

from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Case, Q, Value, When

from ..models import Node
from ..models.vocabulary import MAX_WORD_LENGTH
from . import kept, postgresql, sqlite
from .kept import breadcrumbs
from .query import edit_distance, parse, query_terms, similarity
from .results import Found, FoundLater
from .sections import Quoter, marked

__all__ = [
    "MAX_QUERY_LENGTH",
    "MIN_TYPED",
    "answer",
    "breadcrumbs",
    "Quoter",
    "find_nodes",
    "highlight",
    "indexed",
    "parse_query",
    "query_terms",
    "snippet",
    "suggest",
    "top_results",
]

MAX_QUERY_LENGTH = 200  # longer queries are cut (forms.SearchForm); no title is longer
MIN_SUGGESTION_SIMILARITY = 0.3  # below, a word is no likely correction
MAX_CORRECTED_WORDS = 4  # words of one query looked up for a correction
CLOSEST = 10  # of the words most like a typo, those whose edits are counted
MAX_LENGTH_DIFFERENCE = 3  # letters a correction may have more or fewer than the word
MIN_TYPED = 2  # characters typed before the header's box offers results (top_results)
TOP_RESULTS = 8
# What a result shows and links to (the search page, its top results, the API), and its
# snippets and heading (``sections``): decoding the other fields' JSON of a page of results
# cost 0.5 ms of a search's 3.5 ms of CPU at 222 nodes (bench/README.md, "Issue 26: what a
# search reads per query").
RESULT_FIELDS = ("title", "path", "kind", "status", "sections")


def _backend(nodes):
    """Return the module that searches the database of ``nodes``."""
    return _backend_of(nodes.db)


def _backend_of(using):
    """Return the module that searches database ``using``."""
    return postgresql if connections[using].vendor == "postgresql" else sqlite


@contextmanager
def indexed(using=DEFAULT_DB_ALIAS):
    """Run the block's searches on database ``using`` at one version of the wiki, indexed.

    The wiki's version is read first (:func:`.kept.at_version`: the synonyms are those of
    that version). Then, on PostgreSQL, its planner is told to use the indexes that serve
    the queries (:func:`.postgresql.indexed`, which says why), in a transaction; on SQLite
    nothing more.
    """
    with kept.at_version(), _backend_of(using).indexed(using):
        yield


def parse_query(query):
    """Return ``query`` parsed (:func:`.query.parse`) with the editors' synonyms of the
    wiki's version (:func:`.kept.synonyms_of`)."""
    return parse(query, synonyms=kept.synonyms_of)


def find_nodes(query, *, area="", status=""):
    """Return the nodes that match ``query``, best first.

    The nodes with every term of the query; when none has them all, the nodes with any of
    them, those with more first (docs/search.md, "Ranking"), so that no query finds nothing
    while some of its words match (issue 26). When half of its terms or more are found
    nowhere, the result says so (``few``): a correction of them (:func:`suggest`) is tried
    first ("memory heirarchy", :func:`answer`).

    Args:
        query: what the reader typed, already cut to :data:`MAX_QUERY_LENGTH`, or a parsed
            query (:func:`parse_query`).
        area: the slug of an area to search in, or "" for all.
        status: a ``Node.Status`` value to keep, or "" for all.

    Returns:
        A :class:`.results.Found`: the lazy queryset of the nodes, with the fields of
        :data:`RESULT_FIELDS` only (their ``sections`` for the snippets), their number, whether they
        match every term (``every``) and whether half of the terms or more are found
        nowhere (``few``). Empty when the query has nothing to search for (only
        punctuation, or only stop words) or none of its terms is found. The nodes with
        some terms only are a :class:`.results.FoundLater`, ranked when first used: a
        correction may replace them unread (:func:`answer`).
    """
    nodes = _filtered(area, status)
    parsed = parse_query(query) if isinstance(query, str) else query
    if not parsed:
        return Found(nodes.none(), 0)
    title_is_query = Q()
    for title in parsed.titles():
        title_is_query |= Q(title__iexact=title)
    equal = (
        Case(When(title_is_query, then=Value(True)), default=Value(False))
        if title_is_query
        else Value(False)
    )
    backend = _backend(nodes)
    found = backend.find(nodes, parsed, equal)
    if len(parsed.terms) > 1 and found.empty():
        known = sum(backend.matches(nodes, term) for term in parsed.terms)
        return FoundLater(
            lambda: backend.find(nodes, parsed, equal, every=False),
            every=False,
            few=2 * known <= len(parsed.terms),
        )
    return found


def answer(query, *, area="", status=""):
    """Return what the search page answers ``query`` with: its results or its correction's.

    The nodes :func:`find_nodes` finds; when there are none, or they have some terms of the
    query only while half of its terms or more are found nowhere (``few``: a typo among few
    words, "memory heirarchy"), those of its correction (:func:`suggest`), if it has one.

    Args:
        query: what the reader typed, already cut to :data:`MAX_QUERY_LENGTH`.
        area: the slug of an area to search in, or "" for all.
        status: a ``Node.Status`` value to keep, or "" for all.

    Returns:
        A triple ``(parsed, found, corrected)``: the query searched (:func:`parse_query`),
        its :class:`.results.Found` (counted) and the correction searched instead, or "".
    """
    parsed = parse_query(query)
    found = find_nodes(parsed, area=area, status=status)
    corrected = ""
    if found.few or not found.count():
        corrected = suggest(query, area=area, status=status)
        if corrected:
            parsed = parse_query(corrected)
            found = find_nodes(parsed, area=area, status=status)
    return parsed, found, corrected


def _filtered(area, status):
    """Return the nodes of ``area`` and ``status`` ("" for all), with the fields a result
    shows only (:data:`RESULT_FIELDS`)."""
    nodes = Node.objects.only(*RESULT_FIELDS)
    if area:
        nodes = nodes.in_area(area)
    if status:
        nodes = nodes.filter(status=status)
    return nodes


def suggest(query, *, area="", status=""):
    """Return ``query`` with its unknown words replaced by the likeliest words of the wiki.

    For a query that finds nothing: each word of it (up to :data:`MAX_CORRECTED_WORDS`)
    that finds nothing on its own in the whole wiki is replaced by the word of the wiki's
    vocabulary most like it (:func:`_likeliest_word`: the most similar, then the most
    frequent), so a suggestion is built from the wiki's own words. The vocabulary is the
    whole wiki's, whatever ``area`` and ``status``: a correction that finds nothing there is
    not offered.

    Returns:
        The corrected query, in lower case, or "" when there is nothing to correct, or when
        the corrected query finds nothing or few of its words either (``few``, as
        :func:`find_nodes` says).
    """
    nodes, every_node = _filtered(area, status), _filtered("", "")
    backend = _backend(nodes)
    parsed = parse_query(query)
    corrected, changed = [], False
    for index, term in enumerate(parsed.terms):
        if term.kind != "word" or index >= MAX_CORRECTED_WORDS or backend.matches(every_node, term):
            corrected.append(term.text if term.kind == "word" else f'"{term.text}"')
            continue
        word = _likeliest_word(nodes.db, term.words[0])
        changed |= word is not None
        corrected.append(word or term.text)
    suggestion = " ".join(corrected + [f"-{term.text}" for term in parsed.excluded])
    if not changed:
        return ""
    found = find_nodes(suggestion, area=area, status=status)
    if found.few or found.empty():
        return ""
    return suggestion.lower()


def _likeliest_word(using, word):
    """Return the word of the wiki most like ``word``, or None when none is like enough.

    The candidates are the words of the vocabulary (``Word``: every word of the titles,
    headings and bodies) that the database finds at least :data:`MIN_SUGGESTION_SIMILARITY`
    alike (:func:`.query.similarity`, ``pg_trgm``'s), with at most
    :data:`MAX_LENGTH_DIFFERENCE` letters more or fewer. Of the :data:`CLOSEST` most similar
    (of equally similar ones, those more nodes hold), the one fewest edits away wins
    (:func:`.query.edit_distance`: "evaulated" is one from "evaluated", two from the more
    similar "emulated"); of those as many edits away, the most similar, then the one more
    titles hold, then more nodes, then the first in alphabetical order. A word the
    vocabulary holds is not corrected.

    Args:
        using: the alias of the database searched.
        word: a folded word that finds nothing.

    Returns:
        The correction, or None.
    """
    lengths = (len(word) - MAX_LENGTH_DIFFERENCE, len(word) + MAX_LENGTH_DIFFERENCE)
    if lengths[0] > MAX_WORD_LENGTH:
        return None  # no word of the vocabulary is so long
    alike = []
    for candidate, documents, titles in _backend_of(using).similar_words(using, word, *lengths):
        if candidate == word:
            return None
        score = similarity(word, candidate)
        if score >= MIN_SUGGESTION_SIMILARITY:
            alike.append((-score, -documents, -titles, candidate))
    closest = sorted(alike)[:CLOSEST]
    return min(
        (
            (edit_distance(word, candidate), score, titles, documents, candidate)
            for score, documents, titles, candidate in closest
        ),
        default=(None,) * 5,
    )[-1]


def top_results(query):
    """Return the best few results for ``query``, for the search box as the reader types.

    The first :data:`TOP_RESULTS` nodes :func:`find_nodes` finds, or those of the query's
    correction (:func:`suggest`) when it finds none or few (as :func:`answer`); nothing for
    a query shorter than :data:`MIN_TYPED` characters. The queries run under :func:`indexed`.

    Returns:
        A dict: ``corrected`` (the correction shown, or "") and ``results``, a list of dicts
        with the node's ``title``, ``title_html`` (the title with matched words in
        ``<mark>``, escaped: :func:`highlight`), ``heading`` and ``heading_html`` (its
        best-matching heading, or "" for none: :class:`.sections.Quoter`), ``url`` (with
        the heading's ``#id``) and ``path`` (the titles of its area and sections, joined by
        " › ").
    """
    query = " ".join(query.split())
    corrected = ""
    nodes = []
    if len(query) >= MIN_TYPED:
        with indexed():
            parsed = parse_query(query)
            found = find_nodes(parsed)
            corrected = suggest(query) if found.few else ""
            nodes = [] if corrected else list(found[:TOP_RESULTS])
            if not nodes and not found.few:
                corrected = suggest(query)
            if corrected:
                parsed = parse_query(corrected)
                nodes = list(find_nodes(parsed)[:TOP_RESULTS])
    ancestors = breadcrumbs(nodes)
    quote = Quoter(parsed) if nodes else None
    results = []
    for node in nodes:
        quoted = quote(node, snippet=False)
        results.append(
            {
                "title": node.title,
                "title_html": str(highlight(node.title, parsed)),
                "heading": quoted.heading,
                "heading_html": str(quoted.heading_html),
                "url": quoted.url,
                "path": " › ".join(ancestor.title for ancestor in ancestors[node.pk]),
            }
        )
    return {"corrected": corrected, "results": results}


def snippet(node, query):
    """Return a quote of ``node``'s text with the words ``query`` matches in ``<mark>``.

    About 30 words of its best-matching section (:class:`.sections.Quoter`), from a few
    words before the first match there (or from the start of the text when no section holds
    a term, e.g. for a title match); "…" marks where the text was cut.

    Args:
        node: a node as :func:`find_nodes` returned it.
        query: the query given to :func:`find_nodes`.

    Returns:
        Safe HTML: escaped text and ``<mark>`` elements; "" for a node without a body.
    """
    return Quoter(parse_query(query) if isinstance(query, str) else query)(node).snippet


def highlight(title, query):
    """Return ``title`` with the words ``query`` matches in ``<mark>``, as safe HTML."""
    return marked(title, _spans(query)(title))


def _spans(query):
    """Return the highlighter of ``query`` (a string, or a parsed query: its own, kept)."""
    return (parse_query(query) if isinstance(query, str) else query).spans
