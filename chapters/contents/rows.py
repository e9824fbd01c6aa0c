"""The tree as the table of contents reads it: plain rows of :data:`FIELDS`, the outline
kept once per version (:class:`Outline`), the reading path across sections, and a page's
branch (:func:`branch`). See the package's docstring."""

from dataclasses import dataclass
from operator import itemgetter

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Q

from ..models import Node
from ..navigation import reading_bridges

# The fields of a node the contents and the page's navigation read, in a row's order.
FIELDS = ("id", "parent_id", "title", "slug", "kind", "status", "path", "level", "words")


ID, PARENT, TITLE, SLUG, KIND, STATUS, PATH, LEVEL, WORDS = range(len(FIELDS))


CHAPTER = Node.Kind.CHAPTER


@dataclass(frozen=True, slots=True)
class Step:
    """A chapter of another section to read on to (or back to), with that section."""

    section: Node
    chapter: Node


@dataclass(frozen=True)
class Outline:
    """What a page needs of the whole tree, read once per version (:func:`page_navigation`).

    ``size`` is the number of nodes; ``areas`` the digest of each area, in order
    (:func:`area_digests`), for the pages that hold the whole contents (else None: the
    whole list's resource works them out when it is asked for, :func:`whole_list`);
    ``bridges`` the digest the reading path across sections is kept
    under (:func:`_bridges`): it changes only when a chapter at the end of a section does,
    so versions share one copy, and an outline weighs a few kilobytes per version.
    """

    size: int
    areas: tuple
    bridges: str

    def inline(self):
        """Return True when pages hold the whole contents (``TOC_INLINE_MAX_NODES``)."""
        return self.size <= settings.TOC_INLINE_MAX_NODES


def branch(node):
    """Return the rows of the nodes ``node``'s page shows, in tree order (one query).

    Those are the areas, its ancestors and each one's children (its siblings among them),
    and its whole subtree (for its children's readiness): closed under parents, so
    :func:`~chapters.models.cache_trees` links them, and only ``node``'s own subtree is
    whole. Rows (``FIELDS``), not model instances: on SQLite the read scans one index
    (migration ``0017_node_outline_index``, with ``words`` since ``0027_progress``).
    :func:`_branch_rows` picks the same rows from the whole tree's.

    Args:
        node: any node.

    Returns:
        A list of rows.
    """
    paths = node.ancestor_paths()
    near = Q(level=0) | Q(path__in=paths) | Q(pk=node.pk) | Q(path__startswith=f"{node.path}/")
    for level, path in enumerate(paths, start=1):
        near |= Q(level=level, path__startswith=f"{path}/")
    return list(Node.objects.filter(near).values_list(*FIELDS))


def _reading_path(rows):
    """Return the reading path across sections of the tree's ``rows``.

    Returns:
        A dict from the primary key of each node with chapters to the chapters read before
        its first chapter and after its last (:func:`~chapters.navigation.reading_bridges`),
        each a ``(section row, chapter row)`` pair of plain tuples (``FIELDS``) or None:
        tuples, not model instances, keep the entry small.
    """
    by_pk = {row[ID]: row for row in rows}
    chapters = [row for row in rows if row[KIND] == CHAPTER]
    return {
        pk: tuple(chapter and (by_pk[chapter[PARENT]], chapter) for chapter in pair)
        for pk, pair in reading_bridges(chapters, itemgetter(PARENT)).items()
    }


def _steps(outline, pk, bridges):
    """Return the ``(before, after)`` :class:`Step` pair of node ``pk``, or None.

    Args:
        outline: the tree's :class:`Outline`.
        pk: a node's primary key.
        bridges: the reading path when this request worked it out; else None, and it is
            the one kept under ``outline.bridges``, or worked out again from the tree when
            the cache lost it.
    """
    if bridges is None:
        bridges = cache.get(outline.bridges)
    if bridges is None:
        bridges = _reading_path(_tree_rows())
    pair = bridges.get(pk)
    return pair and tuple(step and Step(*map(_node, step)) for step in pair)


def _tree_rows():
    """Return every node's ``FIELDS``, in tree order (one query, no model instances).

    The queryset's SQL, run on a cursor: 20,000 plain tuples, without the queryset's work
    per row.
    """
    sql, params = Node.objects.values_list(*FIELDS).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _branch_rows(rows, node):
    """Return the rows :func:`branch` reads for ``node``, picked from the tree's rows.

    One pass in tree order: every area, and in the page's area its ancestors (whose rows
    come before their children's), their children and its subtree.
    """
    top, below = node.path.partition("/")[0], f"{node.path}/"
    ancestors_ = set(node.ancestor_paths())
    near, opened, inside = [], set(), False
    for row in rows:
        if row[LEVEL] == 0:
            inside = row[PATH] == top
            near.append(row)
        elif inside and (
            row[ID] == node.pk
            or row[PARENT] in opened
            or row[PATH] in ancestors_
            or row[PATH].startswith(below)
        ):
            near.append(row)
        else:
            continue
        if row[PATH] in ancestors_:
            opened.add(row[ID])
    return near


def _nodes(rows):
    """Return unsaved copies of the nodes of ``rows``, with the fields the pages read."""
    return [_node(row) for row in rows]


def _node(row):
    """Return a node with the fields of ``row`` (``FIELDS``)."""
    return Node(**dict(zip(FIELDS, row, strict=True)))
