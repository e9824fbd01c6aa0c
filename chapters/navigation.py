"""Reads that span the tree: the table of contents, breadcrumbs, a chapter's neighbours,
the nodes linking to a node.

Each is one query, whatever the size of the tree, and returns nodes in tree order.
"""

from collections import Counter
from dataclasses import dataclass

from .models import Node

__all__ = [
    "Readiness",
    "table_of_contents",
    "breadcrumb",
    "breadcrumbs",
    "neighbours",
    "ancestors",
    "linked_from",
    "find",
    "open_path",
    "with_breadcrumbs",
]


@dataclass(frozen=True)
class Readiness:
    """How many chapters of a section (its whole subtree) have each status."""

    draft: int = 0
    review: int = 0
    published: int = 0

    @property
    def total(self):
        """Return the number of chapters."""
        return self.draft + self.review + self.published

    @property
    def percent_published(self):
        """Return the published share as a whole percentage (0 for a section without any)."""
        return round(100 * self.published / self.total) if self.total else 0

    def __str__(self):
        return f"{self.published} of {self.total} published"


def table_of_contents():
    """Return the whole tree as root nodes whose children are cached, in reading order.

    Uses django-mptt's ``get_cached_trees()``: one query, after which ``get_children()`` on any
    returned node costs none. Every section gets a ``readiness`` attribute
    (:class:`Readiness`), counted from the same nodes without another query.

    Returns:
        A list of the root nodes (the areas).
    """
    roots = Node.objects.for_navigation().get_cached_trees()
    for root in roots:
        _count_chapters(root)
    return roots


def _count_chapters(node):
    """Set ``node.readiness`` for ``node`` and the sections below it; return its counter."""
    counts = Counter()
    for child in node.get_children():
        counts += Counter({child.status: 1}) if child.is_chapter else _count_chapters(child)
    node.readiness = Readiness(**{status: counts[status] for status in Node.Status.values})
    return counts


def find(toc, pk):
    """Return the node with primary key ``pk`` in a table of contents, or None."""
    for node in toc:
        if node.pk == pk:
            return node
        found = find(node.get_children(), pk)
        if found is not None:
            return found
    return None


def open_path(node):
    """Mark ``node`` and its ancestors as open in a table of contents, without a query.

    Beside a page, the table of contents shows each section as a list that can be collapsed
    (``<details>``); those leading to the page, and the page itself when it is a section,
    start open (``toc_open``), the others closed.

    Args:
        node: a node as :func:`table_of_contents` returns it (its parents are cached).
    """
    node.toc_open = True
    for ancestor in ancestors(node):
        ancestor.toc_open = True


def breadcrumb(node):
    """Return the ancestors of ``node``, from its area down to its parent (one query).

    Args:
        node: any node.

    Returns:
        A list of nodes; empty for an area.
    """
    return list(node.get_ancestors().for_navigation())


def breadcrumbs(nodes):
    """Return the ancestors of each of ``nodes``, from its area down to its parent (one query).

    An ancestor's stored path is a prefix of the node's path ending at a slash, so the
    ancestors of a whole page of search results are one lookup of those prefixes (no query at
    all when every node is an area).

    Args:
        nodes: an iterable of nodes, e.g. a page of search results.

    Returns:
        A dict from each node's primary key to a list of nodes; empty for an area.
    """
    prefixes = {node.pk: node.ancestor_paths() for node in nodes}
    wanted = {prefix for paths in prefixes.values() for prefix in paths}
    found = {n.path: n for n in Node.objects.for_navigation().filter(path__in=wanted)}
    return {pk: [found[p] for p in paths if p in found] for pk, paths in prefixes.items()}


def neighbours(node):
    """Return the chapters just before and after ``node`` in its section, without a query.

    Only chapters of the same parent count, in tree order, as on the seed page ("Previous: ML
    Compiler Foundations" and no next for the last chapter of "ML Compilers").

    Args:
        node: a chapter as :func:`table_of_contents` returns it (its parent's children are
            cached).

    Returns:
        A ``(previous, next)`` pair; either is None at the ends of the section.
    """
    siblings = [sibling for sibling in node.parent.get_children() if sibling.is_chapter]
    index = next(i for i, sibling in enumerate(siblings) if sibling.pk == node.pk)
    previous = siblings[index - 1] if index > 0 else None
    following = siblings[index + 1] if index + 1 < len(siblings) else None
    return previous, following


def ancestors(node):
    """Return the ancestors of ``node``, from its area down, without a query.

    Args:
        node: a node as :func:`table_of_contents` returns it (its parents are cached).
    """
    chain = []
    while node.parent_id is not None:
        node = node.parent
        chain.append(node)
    return chain[::-1]


def linked_from(node):
    """Return the nodes whose bodies link to ``node``, in tree order (one query)."""
    return list(Node.objects.for_navigation().filter(outgoing_links__target=node).distinct())


def with_breadcrumbs(revisions):
    """Pair revisions with their nodes and the nodes' ancestors, in two queries in all.

    Args:
        revisions: historical records of nodes.

    Returns:
        A list of ``(revision, node, ancestors)``; ``node`` is None (and ``ancestors``
        empty) for a node that has since been deleted.
    """
    nodes = Node.objects.for_navigation().in_bulk({revision.id for revision in revisions})
    ancestors = breadcrumbs(nodes.values())
    return [
        (revision, nodes.get(revision.id), ancestors.get(revision.id, [])) for revision in revisions
    ]
