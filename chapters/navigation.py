"""Reads that span the tree: the table of contents, breadcrumbs, a chapter's neighbours,
the nodes linking to a node.

Each is one query, whatever the size of the tree, and returns nodes in tree order. What a
page shows of the tree (the contents' HTML, and a page's breadcrumb, neighbours and children)
is also kept in Django's cache, keyed by the wiki's version (``WikiVersion``): built once per
change of the tree and reused by every page until the next change.
"""

from collections import Counter
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.safestring import mark_safe

from .models import Node, cache_trees

__all__ = [
    "Readiness",
    "table_of_contents",
    "breadcrumb",
    "breadcrumbs",
    "neighbours",
    "ancestors",
    "linked_from",
    "find",
    "PageNavigation",
    "contents_html",
    "page_navigation",
    "mark_current",
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

    One query, after which ``cached_children``, ``get_children()``, ``parent`` and
    ``get_ancestors()`` on any returned node cost none (:func:`cache_trees`). Every section
    gets a ``readiness`` attribute (:class:`Readiness`), counted from the same nodes without
    another query.

    Returns:
        A list of the root nodes (the areas).
    """
    roots = cache_trees(Node.objects.for_navigation())
    for root in roots:
        _count_chapters(root)
    return roots


def _count_chapters(node):
    """Set ``node.readiness`` for ``node`` and the sections below it; return its counter."""
    counts = Counter()
    for child in node.cached_children:
        counts += Counter({child.status: 1}) if child.is_chapter else _count_chapters(child)
    node.readiness = Readiness(**{status: counts[status] for status in Node.Status.values})
    return counts


def find(toc, pk):
    """Return the node with primary key ``pk`` in a table of contents, or None."""
    for node in toc:
        if node.pk == pk:
            return node
        found = find(node.cached_children, pk)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class PageNavigation:
    """What a node's page shows of the tree around it; kept in the cache per version.

    Its nodes are detached copies with only the fields links and labels need (no cached
    parents or children, which would drag the whole tree into the cache entry).
    """

    ancestors: tuple  # from the area down to the parent
    previous: Node | None  # chapters only: the neighbours in the section
    next: Node | None
    children: tuple  # sections only, each with its ``readiness``
    readiness: Readiness | None  # sections only


def contents_html(version):
    """Return the table of contents' HTML with every section open, as on the home page.

    Rendered from ``chapters/_toc.html`` once per version of the wiki and then read from
    the cache (one query for the tree when it is not there).

    Args:
        version: the wiki's version token (``WikiVersion.current()``).
    """
    html = cache.get("contents", version=version)
    if html is None:
        html = _render_contents(table_of_contents(), version)
    return html


def page_navigation(node, version):
    """Return the navigation of ``node``'s page and the contents' HTML marked for it.

    Both come from the cache, kept per version of the wiki. Whatever is missing is built and
    cached: from one query of the whole tree (:func:`table_of_contents`) when the contents
    are missing, else from one query of the nodes around ``node`` (:func:`_around`), so that
    each page after the first costs no query of the whole tree.

    Args:
        node: the node of the page.
        version: the wiki's version token (``WikiVersion.current()``).

    Returns:
        A ``(PageNavigation, html)`` pair; ``html`` as :func:`mark_current` makes it.
    """
    key = f"navigation:{node.pk}"
    found = cache.get_many(["contents", key], version=version)
    html, navigation = found.get("contents"), found.get(key)
    in_tree = None
    if html is None:
        toc = table_of_contents()
        html = _render_contents(toc, version)
        in_tree = find(toc, node.pk)
    if navigation is None:
        navigation = _page_navigation(in_tree or _around(node))
        cache.set(key, navigation, version=version)
    return navigation, mark_current(html, node, navigation)


def _render_contents(toc, version):
    """Render the table of contents (every section open), cache it and return it."""
    html = render_to_string("chapters/_toc.html", {"toc": toc})
    cache.set("contents", html, version=version)
    return html


def _around(node):
    """Return ``node`` with the nodes its page shows cached around it (one query).

    Those are its ancestors (by the prefixes of its path), its siblings when it is a chapter
    (for the neighbours) and its whole subtree (for its children's readiness), in tree order:
    :func:`cache_trees` links them, as they are closed under parents. Only
    ``node`` and its descendants get a right ``readiness``; its ancestors' children are
    partial, and their readiness is not used.
    """
    near = Q(path__in=node.ancestor_paths()) | Q(pk=node.pk) | Q(path__startswith=f"{node.path}/")
    if node.is_chapter:
        near |= Q(parent_id=node.parent_id)
    roots = cache_trees(Node.objects.for_navigation().filter(near))
    for root in roots:
        _count_chapters(root)
    return find(roots, node.pk)


def _page_navigation(in_toc):
    """Return the :class:`PageNavigation` of a node as :func:`table_of_contents` returns it."""
    previous, following = neighbours(in_toc) if in_toc.is_chapter else (None, None)
    return PageNavigation(
        ancestors=tuple(map(_detached, ancestors(in_toc))),
        previous=previous and _detached(previous),
        next=following and _detached(following),
        children=tuple(map(_detached, in_toc.cached_children)),
        readiness=getattr(in_toc, "readiness", None),
    )


def _detached(node):
    """Return a copy of a node of the tree with only what links and labels need."""
    copy = Node(
        id=node.pk,
        title=node.title,
        slug=node.slug,
        kind=node.kind,
        status=node.status,
        path=node.path,
        parent_id=node.parent_id,
    )
    if hasattr(node, "readiness"):
        copy.readiness = node.readiness
    return copy


def mark_current(html, node, navigation):
    """Return the contents' HTML as shown beside ``node``'s page.

    The cached HTML has every section open (``<details open>``, as ``_toc.html`` writes it).
    Beside a page, only the sections leading to it, and the page itself when it is a section
    with children, stay open, and its link gets ``aria-current="page"``. Each entry's link
    (``<a href="...">``, its URL escaped as the template escapes it) occurs once, since paths
    are unique, and an entry's ``<details>`` is the first one after its link; titles are
    escaped, so neither string can come from text. A few string operations, whatever the
    size of the tree, instead of rendering the contents for each page. (A link is missing
    only when the contents were read from the database just after a write that the page's
    own reads had not seen; the page is then left unmarked there, not failed.)

    Args:
        html: the contents' HTML from :func:`contents_html`.
        node: the node of the page.
        navigation: its :class:`PageNavigation`.

    Returns:
        The HTML, marked safe: it is the template's output with fixed attributes added.
    """
    html = html.replace("<details open>", "<details>")
    opened = [*navigation.ancestors, node] if navigation.children else navigation.ancestors
    for each in opened:
        start = html.find(_link(each))
        at = html.find("<details>", start)
        if start != -1 and at != -1:  # missing only if a write came between the two reads
            html = f"{html[:at]}<details open>{html[at + len('<details>') :]}"
    link = _link(node)
    return mark_safe(html.replace(link, f'{link[:-1]} aria-current="page">', 1))


def _link(node):
    """Return the opening tag of ``node``'s link in the contents, as ``_toc_list.html`` has it."""
    return f'<a href="{escape(node.get_absolute_url())}">'


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
    siblings = [sibling for sibling in node.parent.cached_children if sibling.is_chapter]
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
