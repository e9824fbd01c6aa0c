"""What a page shows of the table of contents (:func:`page_navigation`) and the whole list
as one resource per version (:func:`whole_list`). See the package's docstring."""

import dataclasses
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.safestring import mark_safe

from ..caching.flight import single_flight
from ..models import Node, cache_trees
from ..navigation import ancestors, find, neighbours
from ..readiness import Readiness, count_chapters
from .html import (
    FRAGMENT_KEY,
    Contents,
    _digest,
    _fragments,
    _render,
    area_digests,
    entries,
    mark_current,
)
from .rows import (
    ID,
    LEVEL,
    PATH,
    Outline,
    Step,
    _branch_rows,
    _node,
    _nodes,
    _reading_path,
    _steps,
    _tree_rows,
    branch,
)

# Cache keys: the outline and the whole contents under the wiki's version; the reading path
# under the digest of what it holds.
OUTLINE_KEY = "contents-outline"
AREAS_KEY = "contents-areas"
CONTENTS_KEY = "contents"
BRIDGES_KEY = "contents-bridges:{}"


@dataclass(frozen=True)
class PageNavigation:
    """What a node's page shows of the tree around it; kept in the cache per version.

    Its nodes are detached copies with only the fields links and labels need (no cached
    parents or children, which would drag the tree into the cache entry). ``toc`` is the
    page's own contents, marked, when the tree is too large for pages to hold all of it
    (the areas and the page's branch); None when pages hold the whole contents.
    """

    ancestors: tuple  # from the area down to the parent
    previous: Node | None  # chapters only: the neighbours in the section
    next: Node | None
    children: tuple  # sections only, each with its ``readiness``
    readiness: Readiness | None  # sections only
    chapter_words: int  # sections only: the words of its chapters (0 for a chapter)
    came_from: Step | None = None  # chapters first in their section: the chapter read before
    continue_to: Step | None = None  # chapters last in their section: the chapter read after
    toc: str | None = None


def page_navigation(node, version):
    """Return the navigation of ``node``'s page and its contents' HTML, marked for it.

    The outline (:class:`Outline`) is read once per version across processes; when this
    request builds it, the page's navigation is worked out from the same read of the tree;
    otherwise from one query of the nodes around ``node`` (:func:`branch`), kept per page
    and version. Up to ``TOC_INLINE_MAX_NODES`` nodes, the HTML is the whole contents
    (kept per version, joined from the areas' fragments), marked by :func:`mark_current`;
    past it, the page's own (:attr:`PageNavigation.toc`).

    Args:
        node: the node of the page.
        version: the version of the pages (``caching.version()``: the wiki's version and
            the release, after the last ``-``).

    Returns:
        A ``(PageNavigation, html)`` pair; ``html`` marked safe.
    """
    key = f"navigation:{node.pk}"
    found = cache.get_many([OUTLINE_KEY, key], version=version)
    outline, navigation = found.get(OUTLINE_KEY), found.get(key)
    read = {}
    if outline is None:

        def build():
            read["rows"] = _tree_rows()
            read["bridges"] = _reading_path(read["rows"])
            return _outline(read["rows"], _release(version), read["bridges"])

        outline = single_flight(OUTLINE_KEY, version, build)
    rows = read.get("rows")
    if navigation is None:
        near = _branch_rows(rows, node) if rows is not None else branch(node)
        navigation = _page_navigation(near, outline, node, version, read.get("bridges"))
        cache.set(key, navigation, version=version)
    if navigation.toc is not None:
        return navigation, mark_safe(navigation.toc)
    contents = single_flight(
        CONTENTS_KEY,
        version,
        lambda: Contents.joined(_fragments(outline.areas, _release(version), rows)),
    )
    return navigation, mark_current(contents, node, navigation)


def whole_list(version):
    """Return the whole contents as one ``<ol>`` for the resource ``/contents/<version>.html``.

    Joined from the areas' fragments (those missing are rendered from one read of the
    tree), unmarked: the script that loads it marks the page it is put in. The areas'
    digests are worked out once per version (:func:`single_flight`), from one read of the
    tree; the joined list is not kept (megabytes per version: browsers and shared caches
    keep it).

    Args:
        version: the version of the pages.

    Returns:
        The HTML, a string.
    """
    contents = cache.get(CONTENTS_KEY, version=version)
    if contents is not None:
        return f"<ol>\n{contents.html}</ol>\n"
    release, read = _release(version), {}

    def build():
        read["rows"] = _tree_rows()
        return tuple(digest for digest, _ in area_digests(read["rows"], release))

    digests = single_flight(AREAS_KEY, version, build)
    html = "".join(each.html for each in _fragments(digests, release, read.get("rows")))
    return f"<ol>\n{html}</ol>\n"


def _release(version):
    """Return the release part of a version of the pages (``caching.version()``)."""
    return version.rpartition("-")[2]


def _page_navigation(near, outline, node, version, bridges):
    """Return the :class:`PageNavigation` of ``node`` from the rows read around it.

    Only the rows of the page's own area become model instances; the other areas' are
    rendered closed, once for every page (:func:`_branch_contents`).

    Args:
        near: the rows :func:`branch` reads for ``node``.
        outline: the tree's :class:`Outline`.
        node: the node of the page.
        version: the version of the pages.
        bridges: the reading path when this request worked it out, else None.
    """
    top = node.path.partition("/")[0]
    own = [row for row in near if row[PATH] == top or row[PATH].startswith(f"{top}/")]
    in_tree = find(cache_trees(_nodes(own)), node.pk)
    count_chapters([in_tree])  # its subtree is whole: its sections' counts are right
    bridge = _steps(outline, in_tree.parent_id, bridges) if in_tree.is_chapter else None
    previous, following = neighbours(in_tree) if in_tree.is_chapter else (None, None)
    before, after = bridge or (None, None)
    navigation = PageNavigation(
        ancestors=tuple(map(_detached, ancestors(in_tree))),
        previous=previous and _detached(previous),
        next=following and _detached(following),
        children=tuple(map(_detached, in_tree.cached_children)),
        readiness=getattr(in_tree, "readiness", None),
        chapter_words=getattr(in_tree, "chapter_words", 0),
        came_from=before if previous is None else None,
        continue_to=after if following is None else None,
    )
    if outline.inline():
        return navigation
    areas = [row for row in near if row[LEVEL] == 0]
    toc = _branch_contents(areas, in_tree, navigation, version)
    return dataclasses.replace(navigation, toc=toc)


def _branch_contents(areas, in_tree, navigation, version):
    """Return the contents a page holds past ``TOC_INLINE_MAX_NODES``, marked for it.

    Every area, closed, and the page's area listing its branch: each ancestor's children,
    and the page's own when it is a section. The closed areas are rendered once and kept
    under the digest of the areas' rows (each one's span in the HTML with them), so a page
    renders only its own area's branch.

    Args:
        areas: the rows of every area.
        in_tree: the page's node, in its area's branch.
        navigation: its :class:`PageNavigation`.
        version: the version of the pages.
    """
    area = in_tree
    while area.parent_id is not None:
        area = area.parent
    key = FRAGMENT_KEY.format(_digest(areas, f"closed-{_release(version)}"))
    kept = cache.get(key)
    if kept is None:
        pieces = [_render(entries([_node(row)], opened=set())).html for row in areas]
        spans, at = {}, 0
        for row, piece in zip(areas, pieces, strict=True):
            spans[row[ID]] = (at, at + len(piece))
            at += len(piece)
        kept = ("".join(pieces), spans)
        cache.set(key, kept)
    html, spans = kept
    opened = {each.pk for each in navigation.ancestors}
    if navigation.children:
        opened.add(in_tree.pk)
    own = mark_current(_render(entries([area], opened)), in_tree, navigation)
    start, end = spans[area.pk]
    return f"{html[:start]}{own}{html[end:]}"


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
        words=node.words,
    )
    if hasattr(node, "readiness"):
        copy.readiness, copy.chapter_words = node.readiness, node.chapter_words
    return copy


def _outline(rows, release, bridges=None):
    """Return the :class:`Outline` of the tree's ``rows``; keep its reading path.

    Args:
        rows: the tree's rows.
        release: the digest of the code and templates.
        bridges: the rows' reading path (:func:`_reading_path`), when worked out already.
    """
    bridges = _reading_path(rows) if bridges is None else bridges
    key = BRIDGES_KEY.format(_digest(bridges, release))
    if not cache.has_key(key):  # kept already, by a version before, for most edits
        cache.set(key, bridges)
    inline = len(rows) <= settings.TOC_INLINE_MAX_NODES
    areas = tuple(digest for digest, _ in area_digests(rows, release)) if inline else None
    return Outline(size=len(rows), areas=areas, bridges=key)
