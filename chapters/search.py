"""Full-text search over the nodes' titles and body text, best matches first.

:func:`find_nodes` returns the matching nodes as a lazy queryset, ready for a ``Paginator``,
with one implementation per database, chosen by the connection's ``vendor``; :func:`snippet`
quotes one node of a page of results, matched words in ``<mark>``:

- PostgreSQL: ``django.contrib.postgres`` full-text search. The title (weight A) and the body
  text (weight B) are parsed with the ``english`` configuration, so words are stemmed
  ("optimizing" finds "Optimization") and stop words ignored; the query uses web-search syntax
  (``websearch_to_tsquery``: "quoted phrases", ``-excluded`` words, ``or``); results are ordered
  by ``ts_rank``; snippets are ``ts_headline`` fragments. Migration 0004 indexes the same
  vector expression with GIN.
- Anything else (SQLite, which has no text search types): each word, or quoted phrase, must
  occur in the title or the body text (case-insensitive substring); ``-word`` excludes.
  Nodes with every word in the title come first.

On both, a node whose title is the whole query (ignoring case) comes first, then the rest by
rank, then in tree order. Snippets are escaped text in which only ``<mark>`` is markup.
"""

import re

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank, SearchVector
from django.db import connections
from django.db.models import Case, F, Func, Q, TextField, Value, When
from django.utils.html import escape
from django.utils.safestring import mark_safe

from .models import Node

__all__ = ["MAX_QUERY_LENGTH", "find_nodes", "snippet"]

MAX_QUERY_LENGTH = 200  # longer queries are cut (forms.SearchForm); no title is longer
SEARCH_CONFIG = "english"
SNIPPET_WORDS = 30
SNIPPET_WORDS_BEFORE_MATCH = 8

# PostgreSQL's parser reads "<" as the start of an HTML tag and skips the tag ("<float>" in
# "vector<float>" is no word, and ts_headline drops it), but body text is text. So the parser
# gets the text with "<" turned into LESS_THAN, a control character it reads as a space, which
# snippets turn back into "<". ts_headline brackets matches with START_SEL and STOP_SEL. All
# three are deleted from the text first, so in a headline they can only mean what they say.
LESS_THAN, START_SEL, STOP_SEL = "\x01", "\x02", "\x03"

# One term of web-search syntax: an optional minus, then a "quoted phrase" (the closing quote
# may be missing, as websearch_to_tsquery allows) or a run of other characters.
WEB_TERM = re.compile(r'(?P<exclude>-?)(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s"]+))')


def parser_text(field):
    """Return the text of ``field`` as PostgreSQL's parser gets it (see LESS_THAN)."""
    return Func(
        F(field),
        Value(f"<{LESS_THAN}{START_SEL}{STOP_SEL}"),
        Value(LESS_THAN),
        function="translate",
        output_field=TextField(),
    )


def search_vector():
    """Return the weighted vector of a node's title (A) and body text (B), for PostgreSQL.

    Migration 0004 builds its GIN index on this very expression; PostgreSQL uses an
    expression index only for a query that repeats the expression exactly.
    """
    return SearchVector(parser_text("title"), weight="A", config=SEARCH_CONFIG) + SearchVector(
        parser_text("body_text"), weight="B", config=SEARCH_CONFIG
    )


def find_nodes(query, *, area="", status=""):
    """Return the nodes that match ``query``, best first.

    Args:
        query: what the reader typed, already cut to :data:`MAX_QUERY_LENGTH`.
        area: the slug of an area to search in, or "" for all.
        status: a ``Node.Status`` value to keep, or "" for all.

    Returns:
        A lazy queryset of nodes, without their Markdown body and HTML. Empty when the query
        has nothing to search for (only punctuation, or on PostgreSQL only stop words).
    """
    nodes = Node.objects.defer("body", "body_html")
    if area:
        nodes = nodes.in_area(area)
    if status:
        nodes = nodes.filter(status=status)
    if connections[nodes.db].vendor == "postgresql":
        return _find_postgresql(nodes, query)
    return _find_substrings(nodes, query)


def snippet(node, query):
    """Return a quote of ``node``'s body text with the words ``query`` matched in ``<mark>``.

    Args:
        node: a node as :func:`find_nodes` returned it.
        query: the query given to :func:`find_nodes`.

    Returns:
        Safe HTML: escaped text and ``<mark>`` elements; "" for a node without a body.
    """
    if hasattr(node, "headline"):  # computed by PostgreSQL in _find_postgresql
        parts = re.split(f"{START_SEL}(.*?){STOP_SEL}", node.headline, flags=re.DOTALL)
        return _marked([part.replace(LESS_THAN, "<") for part in parts])
    return _substring_snippet(node.body_text, query_terms(query)[0])


def query_terms(query):
    """Split ``query`` in web-search syntax into the terms to find and the terms to exclude.

    Terms without a letter or digit are dropped, as PostgreSQL's parser drops punctuation.

    Returns:
        A pair of lists of strings ``(terms, excluded)``; whitespace inside a phrase is one
        space.
    """
    terms, excluded = [], []
    for match in WEB_TERM.finditer(query):
        term = " ".join((match["phrase"] or match["word"] or "").split())
        if any(character.isalnum() for character in term):
            (excluded if match["exclude"] else terms).append(term)
    return terms, excluded


def _title_is(query):
    """Return a condition that is True for nodes titled ``query``, ignoring case."""
    return Case(When(title__iexact=query, then=Value(True)), default=Value(False))


def _find_postgresql(nodes, query):
    """Search with PostgreSQL's full-text search; see the module's docstring."""
    vector = search_vector()
    # "<" in the query is a blank too, as in the text: "vector<float>" is two words.
    words = query.replace("<", " ")
    tsquery = SearchQuery(words, search_type="websearch", config=SEARCH_CONFIG)
    return (
        nodes.defer("body_text")
        .alias(document=vector, title_is_query=_title_is(query))
        .filter(document=tsquery)
        .annotate(
            rank=SearchRank(vector, tsquery),
            headline=SearchHeadline(
                parser_text("body_text"),
                tsquery,
                config=SEARCH_CONFIG,
                start_sel=START_SEL,
                stop_sel=STOP_SEL,
                max_words=SNIPPET_WORDS,
                min_words=SNIPPET_WORDS // 2,
            ),
        )
        # Relevance first; ties stay in reading order, django-mptt's (tree_id, lft).
        .order_by("-title_is_query", "-rank", "tree_id", "lft")
    )


def _find_substrings(nodes, query):
    """Search by case-insensitive substrings (SQLite); see the module's docstring."""
    terms, excluded = query_terms(query)
    if not terms and not excluded:
        return nodes.none()
    all_in_title = Value(False)
    if terms:
        in_title = Q(*(Q(title__icontains=term) for term in terms))
        all_in_title = Case(When(in_title, then=Value(True)), default=Value(False))
    return (
        nodes.containing(terms, excluded)
        .alias(title_is_query=_title_is(query), all_in_title=all_in_title)
        .order_by("-title_is_query", "-all_in_title", "tree_id", "lft")
    )


def _substring_snippet(text, terms):
    """Return about :data:`SNIPPET_WORDS` words of ``text`` around the first of ``terms``.

    The quote starts a few words before the first match (or at the start of the text when
    nothing matches, e.g. for a title match); "…" marks where the text was cut.
    """
    pattern = "|".join(re.escape(term) for term in sorted(terms, key=len, reverse=True))
    first = re.search(pattern, text, flags=re.IGNORECASE) if pattern else None
    words = text.split(" ") if text else []
    start = max(0, text.count(" ", 0, first.start()) - SNIPPET_WORDS_BEFORE_MATCH) if first else 0
    end = start + SNIPPET_WORDS
    quote = " ".join(
        (["…"] if start > 0 else []) + words[start:end] + (["…"] if end < len(words) else [])
    )
    if not pattern:
        return _marked([quote])
    return _marked(re.split(f"({pattern})", quote, flags=re.IGNORECASE))


def _marked(parts):
    """Return text in which every odd-numbered part (a match) is wrapped in ``<mark>``.

    This is where search output becomes HTML: every part is escaped and ``<mark>`` is the
    only markup added, so neither a body nor a query can inject any, which makes the result
    safe to mark so.

    Args:
        parts: plain-text strings alternating between unmatched and matched text, as
            ``re.split`` with one capturing group returns them.
    """
    html = "".join(
        f"<mark>{escape(part)}</mark>" if index % 2 else escape(part)
        for index, part in enumerate(parts)
    )
    return mark_safe(html)
