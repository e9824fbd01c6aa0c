"""Reads that span the tree: the table of contents, breadcrumbs, a chapter's neighbours,
the reading path across sections, the nodes linking to a node.

Each read is one query, whatever the size of the tree, and returns nodes in tree order; the
walks over what a read returned (:func:`find`, :func:`ancestors`, :func:`neighbours`) make
none. What a page shows of them is kept in the cache by :mod:`chapters.contents`; how many
chapters of a section are ready is counted by :mod:`chapters.readiness`.
"""

from operator import attrgetter

from .models import Node, cache_trees

__all__ = [
    "table_of_contents",
    "breadcrumb",
    "breadcrumbs",
    "neighbours",
    "reading_bridges",
    "ancestors",
    "linked_from",
    "printed",
    "find",
    "title_paths",
    "with_breadcrumbs",
]


def table_of_contents():
    """Return the whole tree as root nodes whose children are cached, in reading order.

    One query, after which ``cached_children``, ``get_children()``, ``parent`` and
    ``get_ancestors()`` on any returned node cost none (:func:`~chapters.models.cache_trees`).

    Returns:
        A list of the root nodes (the areas).
    """
    return cache_trees(Node.objects.for_navigation())


def find(toc, pk):
    """Return the node with primary key ``pk`` in a table of contents, or None.

    Args:
        toc: root nodes whose children are cached (:func:`table_of_contents`).
        pk: a node's primary key.
    """
    stack = list(reversed(toc))
    while stack:
        node = stack.pop()
        if node.pk == pk:
            return node
        stack.extend(reversed(node.cached_children))
    return None


def breadcrumb(node):
    """Return the ancestors of ``node``, from its area down to its parent (one query).

    Args:
        node: any node.

    Returns:
        A list of nodes; empty for an area.
    """
    return list(node.get_ancestors().for_navigation())


def breadcrumbs(nodes, known=None, using=None):
    """Return the ancestors of each of ``nodes``, from its area down to its parent (one query).

    An ancestor's stored path is a prefix of the node's path ending at a slash, so the
    ancestors of a whole page of search results are one lookup of those prefixes (no query at
    all when every node is an area, or every ancestor is ``known``).

    Args:
        nodes: an iterable of nodes, e.g. a page of search results.
        known: a dict from stored paths to nodes read before (``chapters.search.kept``
            keeps one per version of the wiki); those read now are added to it.
        using: the alias of the database read; by default the router's.

    Returns:
        A dict from each node's primary key to a list of nodes; empty for an area.
    """
    found = {} if known is None else known
    prefixes = {node.pk: node.ancestor_paths() for node in nodes}
    wanted = {prefix for paths in prefixes.values() for prefix in paths if prefix not in found}
    if wanted:
        read = Node.objects.db_manager(using).for_navigation().filter(path__in=wanted)
        found.update((node.path, node) for node in read)
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
    siblings = [sibling for sibling in node.parent.cached_children if sibling.is_chapter]
    index = next(i for i, sibling in enumerate(siblings) if sibling.pk == node.pk)
    previous = siblings[index - 1] if index > 0 else None
    following = siblings[index + 1] if index + 1 < len(siblings) else None
    return previous, following


def reading_bridges(chapters, parent_of=attrgetter("parent_id")):
    """Return, for each node with chapters, the chapters read just before and after them.

    The reading order is every chapter in tree order. Previous/Next stay among one section's
    chapters (:func:`neighbours`); at the ends of a section the reader goes on across
    sections: from the chapter read before the section's first chapter, to the chapter read
    after its last. Without a query.

    Args:
        chapters: every chapter of the tree in tree order: nodes, or rows of their fields
            (``chapters.contents`` passes rows).
        parent_of: a function returning a chapter's parent's primary key; by default its
            ``parent_id``.

    Returns:
        A dict from the primary key of each node with chapters among its children to a
        ``(before, after)`` pair of items of ``chapters``; either is None at the start or
        the end of the whole reading order.
    """
    first, last = {}, {}
    for index, chapter in enumerate(chapters):
        first.setdefault(parent_of(chapter), index)
        last[parent_of(chapter)] = index
    return {
        pk: (
            chapters[first[pk] - 1] if first[pk] > 0 else None,
            chapters[last[pk] + 1] if last[pk] + 1 < len(chapters) else None,
        )
        for pk in first
    }


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


def printed(node):
    """Return the nodes under ``node`` in reading order, with their bodies (one query).

    What a print page shows: each subsection and chapter, with its depth below ``node`` (1
    for a child); or, for the whole curriculum, every node, an area at depth 1.

    Args:
        node: a section or an area, or None for the whole curriculum.

    Returns:
        A list of ``(node, depth)``.
    """
    if node is None:
        return [(each, each.level + 1) for each in Node.objects.all()]
    return [(each, each.level - node.level) for each in node.get_descendants()]


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


def title_paths():
    """Return every node's titles from its area down to it, by primary key (one query).

    How editors tell apart nodes that share a title ("Fundamentals"): the parent choices of
    the site's editor and of the admin, and the title completion of wiki links.

    Returns:
        A dict from each node's primary key to the list of titles, its area's first.
    """
    paths = {}
    for pk, title, parent_id in Node.objects.values_list("pk", "title", "parent_id"):
        paths[pk] = [*paths.get(parent_id, []), title]  # tree order: parents come first
    return paths
