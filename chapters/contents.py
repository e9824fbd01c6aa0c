"""The table of contents' HTML: rendered once per version of the wiki, marked for each page.

Every page shows the whole tree ("All chapters"), so its HTML is rendered from
``chapters/_toc.html`` once per version of the wiki and kept in Django's cache, together with
what each page shows of the tree around it (:class:`PageNavigation`). Beside a page only the
sections leading to it are open, and its own link says ``aria-current="page"``.

Where those marks go is not searched for in the template's bytes: this module gives the
template, per entry, a mark for its link's opening tag and one for its ``<details>`` tag
(``link_mark`` and ``section_mark``), and renders the contents with them. It then takes the
marks out, keeping where each one was (:class:`Contents`), and complains at once when the
template did not write each mark once. Marking the contents for a page is then a few
insertions at known places, whatever the size of the tree and whatever else the template
writes.

The template renders the tree as one flat loop (:func:`entries`): each entry says how many
lists close after it, so a tree of any depth renders without recursion.
"""

import logging
import re
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from .models import Node
from .navigation import (
    ancestors,
    around,
    find,
    neighbours,
    reading_bridges,
    table_of_contents,
)
from .readiness import Readiness, count_chapters

__all__ = [
    "TEMPLATE",
    "Contents",
    "Entry",
    "PageNavigation",
    "Step",
    "entries",
    "mark_current",
    "page_navigation",
]

logger = logging.getLogger(__name__)

TEMPLATE = "chapters/_toc.html"

# The cache key of the contents (a Contents), under the wiki's version.
CONTENTS_KEY = "contents"

# The marks the template writes in an entry's tags: each holds a double quote, which no
# escaped title or URL does, so no text of the tree can be taken for one.
LINK_MARK = ' data-contents-link="{}"'
SECTION_MARK = ' data-contents-section="{}"'
MARKS = re.compile(r' data-contents-(?P<kind>link|section)="(?P<pk>[0-9]+)"')

# What a mark becomes: a section's list open, a link to the page shown.
OPEN = " open"
CURRENT = ' aria-current="page"'


@dataclass(frozen=True, slots=True)
class Entry:
    """One node of the table of contents, as the template renders it.

    ``closes`` counts the lists that end after the entry: nonzero only for the last entry
    of a section's list.
    """

    node: Node
    link_mark: str  # to write in its link's opening tag
    section_mark: str  # to write in its <details> tag; empty for a node without children
    closes: range


@dataclass(frozen=True, slots=True)
class Step:
    """A chapter of another section to read on to (or back to), with that section."""

    section: Node
    chapter: Node


@dataclass(frozen=True)
class Contents:
    """The table of contents' HTML with every section closed and no page marked, where the
    marks were, and the reading path across sections; all read from the whole tree.

    ``links`` and ``sections`` map a node's primary key to the offset in ``html`` where its
    link's mark, and its ``<details>``'s, stood. ``bridges`` maps the primary key of each
    node with chapters to the :class:`Step` read before its first chapter and the one read
    after its last (:func:`~chapters.navigation.reading_bridges`), either None.
    """

    html: str
    links: dict
    sections: dict
    bridges: dict

    def marked(self, insertions):
        """Return the HTML with each ``(offset, text)`` of ``insertions`` inserted, marked safe.

        The template's output is safe, and so is what is inserted: fixed attributes.
        """
        pieces, at = [], 0
        for offset, text in sorted(insertions):
            pieces += [self.html[at:offset], text]
            at = offset
        pieces.append(self.html[at:])
        return mark_safe("".join(pieces))


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
    came_from: Step | None = None  # chapters first in their section: the chapter read before
    continue_to: Step | None = None  # chapters last in their section: the chapter read after


def page_navigation(node, version):
    """Return the navigation of ``node``'s page and the contents' HTML marked for it.

    Both come from the cache, kept per version of the wiki. Whatever is missing is built and
    cached: from one query of the whole tree (:func:`~chapters.navigation.table_of_contents`)
    when the contents are missing, else from one query of the nodes around ``node``
    (:func:`~chapters.navigation.around`), so that each page after the first costs no query
    of the whole tree.

    Args:
        node: the node of the page.
        version: the wiki's version token (``WikiVersion.current()``).

    Returns:
        A ``(PageNavigation, html)`` pair; ``html`` as :func:`mark_current` makes it.
    """
    key = f"navigation:{node.pk}"
    found = cache.get_many([CONTENTS_KEY, key], version=version)
    contents, navigation = found.get(CONTENTS_KEY), found.get(key)
    in_tree = None
    if contents is None:
        toc = count_chapters(table_of_contents())
        contents = _render_contents(toc, version)
        in_tree = find(toc, node.pk)
    if navigation is None:
        if in_tree is None:
            in_tree = around(node)
            count_chapters([in_tree])  # its subtree is whole: its sections' counts are right
        navigation = _page_navigation(in_tree, contents.bridges.get(node.parent_id))
        cache.set(key, navigation, version=version)
    return navigation, mark_current(contents, node, navigation)


def mark_current(contents, node, navigation):
    """Return the contents' HTML as shown beside ``node``'s page.

    Only the sections leading to the page, and the page itself when it is a section with
    children, are open, and its link gets ``aria-current="page"``. A mark is missing only when
    the tree was written between the request's read of the version and its reads of the
    nodes (a page added just then), so that the contents kept under that version lack it;
    the page is then left unmarked there, not failed, and a warning is logged.

    Args:
        contents: the :class:`Contents`.
        node: the node of the page.
        navigation: its :class:`PageNavigation`.

    Returns:
        The HTML, marked safe.
    """
    opened = [*navigation.ancestors, node] if navigation.children else navigation.ancestors
    wanted = [(contents.sections, each.pk, OPEN) for each in opened]
    wanted.append((contents.links, node.pk, CURRENT))
    insertions = [(marks[pk], text) for marks, pk, text in wanted if pk in marks]
    if len(insertions) < len(wanted):
        logger.warning("The table of contents has no place for page %s; not marked.", node.pk)
    return contents.marked(insertions)


def entries(toc):
    """Return the entries of the table of contents in reading order, with their marks.

    Args:
        toc: root nodes whose children are cached.

    Returns:
        A list of :class:`Entry`, walked without recursion.
    """
    walk, stack = [], [(root, 0) for root in reversed(toc)]
    while stack:
        node, depth = stack.pop()
        walk.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(node.cached_children))
    depths = [depth for _, depth in walk[1:]] + [0]
    return [
        Entry(
            node=node,
            link_mark=mark_safe(LINK_MARK.format(node.pk)),
            section_mark=mark_safe(SECTION_MARK.format(node.pk)) if node.cached_children else "",
            closes=range(max(0, depth - following)),
        )
        for (node, depth), following in zip(walk, depths, strict=True)
    ]


def _render_contents(toc, version):
    """Render the table of contents, take its marks out, cache it and return it.

    Raises:
        ImproperlyConfigured: the template did not write each entry's marks exactly once.
    """
    listed = entries(toc)
    html = render_to_string(TEMPLATE, {"entries": listed})
    pieces, at, length = [], 0, 0
    found = {"link": {}, "section": {}}
    for match in MARKS.finditer(html):
        pieces.append(html[at : match.start()])
        length += len(pieces[-1])
        at = match.end()
        marks, pk = found[match["kind"]], int(match["pk"])
        if pk in marks:
            raise ImproperlyConfigured(f"{TEMPLATE} writes the {match['kind']} mark of {pk} twice.")
        marks[pk] = length
    pieces.append(html[at:])
    for kind, expected in [
        ("link", [entry.node for entry in listed]),
        ("section", [entry.node for entry in listed if entry.section_mark]),
    ]:
        missing = [node for node in expected if node.pk not in found[kind]]
        if missing:
            raise ImproperlyConfigured(
                f"{TEMPLATE} must write each entry's {kind}_mark; it wrote none for "
                f"{len(missing)} of {len(expected)} entries, the first “{missing[0]}”."
            )
    bridges = {
        pk: tuple(
            chapter and Step(_detached(chapter.parent), _detached(chapter)) for chapter in pair
        )
        for pk, pair in reading_bridges(toc).items()
    }
    contents = Contents(
        html="".join(pieces), links=found["link"], sections=found["section"], bridges=bridges
    )
    cache.set(CONTENTS_KEY, contents, version=version)
    return contents


def _page_navigation(in_toc, bridge):
    """Return the :class:`PageNavigation` of a node whose neighbourhood is cached.

    Args:
        in_toc: the node, as the tree read around it holds it.
        bridge: the ``(before, after)`` steps of its parent (:attr:`Contents.bridges`), or
            None.
    """
    previous, following = neighbours(in_toc) if in_toc.is_chapter else (None, None)
    before, after = bridge if in_toc.is_chapter and bridge else (None, None)
    return PageNavigation(
        ancestors=tuple(map(_detached, ancestors(in_toc))),
        previous=previous and _detached(previous),
        next=following and _detached(following),
        children=tuple(map(_detached, in_toc.cached_children)),
        readiness=getattr(in_toc, "readiness", None),
        came_from=before if previous is None else None,
        continue_to=after if following is None else None,
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
