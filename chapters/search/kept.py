"""What search keeps from one query to the next, per version of the wiki.

Every query reads the editors' synonyms (``chapters.models.Synonym``), a table of a few dozen
rows that changes rarely: one query each time cost more than a search of the curriculum
otherwise costs in Python (bench/README.md, "Search"). The whole table is read once per
version of the wiki and kept in the process; migration 0015's triggers bump the version on
every change of a synonym, so a table kept under an older version is never used.

The version is read once per search (:func:`at_version`, entered by ``search.indexed()``),
before PostgreSQL's transaction starts: inside one, the version watch reads it with a query
(``chapters.caching.version_watch``), outside from memory or, on SQLite, from two pragmas.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from ..caching.version_watch import watch
from ..models import Node, Synonym

__all__ = ["at_version", "node_count", "synonyms_of"]

_VERSION = ContextVar("search_version", default=None)
# (the wiki's version token, {word: [its other spellings]}) of the table read last.
_table = (None, {})
# (the wiki's version token, a database alias, the number of its nodes) read last.
_nodes = (None, None, 0)


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
    global _nodes
    version = _VERSION.get() or watch.current()[0]
    if _nodes[:2] != (version, using):
        _nodes = (version, using, Node.objects.using(using).count())
    return _nodes[2]
