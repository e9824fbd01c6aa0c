"""Reads that span the tree: the table of contents, the breadcrumb and a chapter's neighbours.

Each is one query, whatever the size of the tree, and returns nodes in tree order.
"""

from .models import Node

__all__ = ["table_of_contents", "breadcrumb", "neighbours", "with_breadcrumbs"]


def table_of_contents():
    """Return the whole tree as root nodes whose children are cached, in reading order.

    Uses django-mptt's ``get_cached_trees()``: one query, after which ``get_children()`` on any
    returned node costs none.

    Returns:
        A list of the root nodes (the areas).
    """
    return Node.objects.for_navigation().get_cached_trees()


def breadcrumb(node):
    """Return the ancestors of ``node``, from its area down to its parent (one query).

    Args:
        node: any node.

    Returns:
        A list of nodes; empty for an area.
    """
    return list(node.get_ancestors().for_navigation())


def neighbours(node):
    """Return the chapters just before and after ``node`` in its section.

    Only chapters of the same parent count, in tree order, as on the seed page ("Previous: ML
    Compiler Foundations" and no next for the last chapter of "ML Compilers").

    Args:
        node: a chapter.

    Returns:
        A ``(previous, next)`` pair; either is None at the ends of the section.
    """
    siblings = list(
        node.get_siblings(include_self=True).filter(kind=Node.Kind.CHAPTER).for_navigation()
    )
    index = next(i for i, sibling in enumerate(siblings) if sibling.pk == node.pk)
    previous = siblings[index - 1] if index > 0 else None
    following = siblings[index + 1] if index + 1 < len(siblings) else None
    return previous, following


def _ancestor_paths(path):
    """Return the stored paths of the ancestors of the node at ``path``, from the top."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def with_breadcrumbs(revisions):
    """Pair revisions with their nodes and the nodes' ancestors, in two queries in all.

    The ancestors are found by the prefixes of the nodes' stored paths.

    Args:
        revisions: historical records of nodes.

    Returns:
        A list of ``(revision, node, ancestors)``; ``node`` is None (and ``ancestors``
        empty) for a node that has since been deleted.
    """
    nodes = Node.objects.for_navigation().in_bulk({revision.id for revision in revisions})
    paths = {p for node in nodes.values() for p in _ancestor_paths(node.path)}
    by_path = {n.path: n for n in Node.objects.for_navigation().filter(path__in=paths)}
    rows = []
    for revision in revisions:
        node = nodes.get(revision.id)
        ancestors = [by_path[p] for p in _ancestor_paths(node.path)] if node else []
        rows.append((revision, node, ancestors))
    return rows
