"""What search keeps from one query to the next, per version of the wiki.

Every query reads the editors' synonyms (``chapters.models.Synonym``), a table of a few dozen
rows that changes rarely: one query each time cost more than a search of the curriculum
otherwise costs in Python (bench/README.md, "Search"). The whole table is read once per
version of the wiki and kept in the process; migration 0015's triggers bump the version on
every change of a synonym, so a table kept under an older version is never used. So are the
number of nodes and the results' ancestors (their breadcrumbs: the areas and sections above
them, which many results share), each read when first needed: their
query and its Django queryset's compiling were a quarter of a search's CPU time at 222
nodes (bench/README.md, "Issue 26: what a search reads per query").

The version is read once per search (:func:`at_version`, entered by ``search.indexed()``),
before PostgreSQL's transaction starts: inside one, the version watch reads it with a query
(``chapters.caching.version_watch``), outside from memory or, on SQLite, from two pragmas.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import DEFAULT_DB_ALIAS

from ..caching.version_watch import watch
from ..models import Node, Synonym
from ..navigation import breadcrumbs as read_breadcrumbs

__all__ = ["at_version", "breadcrumbs", "node_count", "node_lengths", "synonyms_of"]

_VERSION = ContextVar("search_version", default=None)
# (the wiki's version token, {word: [its other spellings]}) of the table read last.
_table = (None, {})
# {(what, a database alias): (the wiki's version token, its value)} read last: the number
# of nodes (node_count), their number and mean length (node_lengths), the ancestors read so
# far by stored path (breadcrumbs).
_read = {}


@contextmanager
def at_version():
    """Read the wiki's version once, for the searches of the block (:func:`synonyms_of`).

    A block inside another keeps the version the outer one read.
    """
    if _VERSION.get() is not None:
        yield
        return
    token = _VERSION.set(watch.current()[0])
    try:
        yield
    finally:
        _VERSION.reset(token)


def synonyms_of(words):
    """Return the other spellings of each of ``words``, from the synonyms of this version.

    Args:
        words: folded words (``chapters.search.query.fold``).

    Returns:
        A dict from each of ``words`` that has synonyms to the list of its other spellings,
        as ``Synonym.objects.table()`` gives them (both ways).
    """
    global _table
    version = _VERSION.get() or watch.current()[0]
    kept_version, table = _table
    if kept_version != version:
        table = Synonym.objects.table()
        _table = (version, table)
    return {word: list(table[word]) for word in dict.fromkeys(words) if word in table}


def node_count(using):
    """Return the number of nodes in database ``using``, read once per version of the wiki.

    SQLite's search asks it to know whether a query may match more nodes than it ranks
    match by match (``sqlite.WIDE``): below that, it never counts the matches apart.
    """
    return _once("count", using, lambda: Node.objects.using(using).count())


def node_lengths(using, read):
    """Return the number of nodes in database ``using`` and their mean length, as ``read()``
    returns them, read once per version of the wiki.

    PostgreSQL's BM25 needs them (``postgresql_sql._lengths``), as SQLite's FTS5 keeps them.
    """
    return _once("lengths", using, read)


def _once(what, using, read):
    """Return ``read()``, called once per version of the wiki and database ``using`` for
    ``what`` and kept."""
    version = _VERSION.get() or watch.current()[0]
    version_read, value = _read.get((what, using), (None, None))
    if version_read != version:
        value = read()
        _read[what, using] = (version, value)
    return value


def breadcrumbs(nodes, using=DEFAULT_DB_ALIAS):
    """Return the ancestors of each of ``nodes`` (``navigation.breadcrumbs``), each ancestor
    read once per version of the wiki in database ``using`` and kept.

    The nodes kept are those of the version's pages, shared by the searches of the process:
    read them only.

    Args:
        nodes: an iterable of nodes, e.g. a page of search results.
        using: the alias of the database searched (by default, the default).

    Returns:
        A dict from each node's primary key to a list of nodes, from its area down to its
        parent; empty for an area.
    """
    return read_breadcrumbs(nodes, known=_once("ancestors", using, dict), using=using)
