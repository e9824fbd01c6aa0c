"""Reads that span the tree: the table of contents, breadcrumbs and a chapter's neighbours.

Each is one query, whatever the size of the tree, and returns nodes in tree order.
"""

from .models import Node

__all__ = ["table_of_contents", "breadcrumb", "breadcrumbs", "neighbours", "with_breadcrumbs"]


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
    prefixes = {}
    for node in nodes:
        parts = node.path.split("/")
        prefixes[node.pk] = ["/".join(parts[:end]) for end in range(1, len(parts))]
    wanted = {prefix for paths in prefixes.values() for prefix in paths}
    found = {n.path: n for n in Node.objects.for_navigation().filter(path__in=wanted)}
    return {pk: [found[p] for p in paths if p in found] for pk, paths in prefixes.items()}


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
