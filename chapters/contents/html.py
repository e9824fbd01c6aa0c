"""The table of contents' HTML: the entries rendered by area from ``TEMPLATE``, kept under
digests of what they show, the marks taken out as they are rendered (:class:`Contents`) and
put back for the page shown (:func:`mark_current`). See the package's docstring."""

import hashlib
import logging
import marshal
import re
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from ..models import Node, cache_trees
from .rows import LEVEL, _nodes, _tree_rows

logger = logging.getLogger(__name__)

# An area's fragment is kept under the digest of what it shows (no version: its key names
# its content).
FRAGMENT_KEY = "contents-area:{}"


TEMPLATE = "chapters/_toc_entries.html"


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
    section_mark: str  # to write in its <details> tag; empty for an entry shown without children
    closes: range


@dataclass(frozen=True)
class Contents:
    """Entries' HTML with every section closed and no page marked, and where the marks were.

    ``links`` and ``sections`` map a node's primary key to the offset in ``html`` where its
    link's mark, and its ``<details>``'s, stood.
    """

    html: str
    links: dict
    sections: dict

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

    @classmethod
    def joined(cls, parts):
        """Return the contents of ``parts`` one after the other, their marks shifted."""
        html, links, sections, at = [], {}, {}, 0
        for part in parts:
            links.update((pk, at + offset) for pk, offset in part.links.items())
            sections.update((pk, at + offset) for pk, offset in part.sections.items())
            html.append(part.html)
            at += len(part.html)
        return cls("".join(html), links, sections)


# One area's entries: kept in the cache under the digest of its rows.
Fragment = Contents


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


def entries(toc, opened=None):
    """Return the entries of the table of contents in reading order, with their marks.

    Args:
        toc: root nodes whose children are cached.
        opened: primary keys of the nodes whose children are listed; None for every node.

    Returns:
        A list of :class:`Entry`, walked without recursion.
    """
    walk, stack = [], [(root, 0) for root in reversed(toc)]
    while stack:
        node, depth = stack.pop()
        children = node.cached_children if opened is None or node.pk in opened else []
        walk.append((node, depth, bool(children)))
        stack.extend((child, depth + 1) for child in reversed(children))
    depths = [depth for _, depth, _ in walk[1:]] + [0]
    return [
        Entry(
            node=node,
            link_mark=mark_safe(LINK_MARK.format(node.pk)),
            section_mark=mark_safe(SECTION_MARK.format(node.pk)) if listed else "",
            closes=range(max(0, depth - following)),
        )
        for (node, depth, listed), following in zip(walk, depths, strict=True)
    ]


def area_digests(rows, release):
    """Return each area's rows and the digest its fragment is kept under, in order.

    Args:
        rows: the tree's rows (``FIELDS``), in tree order.
        release: the digest of the code and templates, so a new template renders anew.

    Returns:
        A list of ``(digest, rows)``, one per area.
    """
    areas = []
    for row in rows:
        if row[LEVEL] == 0:
            areas.append([])
        areas[-1].append(row)
    return [(_digest(area, release), area) for area in areas]


def _digest(value, release):
    """Return a digest of ``value`` (rows, or a dict of them) and ``release``.

    ``marshal``'s version 2 writes equal values as equal bytes (unlike its later versions
    and ``pickle``, whose references follow which objects are shared), and is quicker than
    ``repr``; its format may change with Python's version, which only renders anew.

    Returns:
        32 hexadecimal digits of a SHA-256.
    """
    return hashlib.sha256(release.encode() + b"\0" + marshal.dumps(value, 2)).hexdigest()[:32]


def _render(listed):
    """Render ``listed`` entries, take their marks out and return the :class:`Contents`.

    Raises:
        ImproperlyConfigured: the template did not write each entry's marks exactly once.
    """
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
    return Contents(html="".join(pieces), links=found["link"], sections=found["section"])


def _fragments(digests, release, rows):
    """Return the fragments of the areas of ``digests``, in order; render those missing.

    When a fragment is missing (evicted, or never rendered), the tree's rows are read
    (unless given) and the areas missing are rendered from them, kept under the digests of
    what they show: a key never names other content than its own. The fragments returned
    are then those of the rows read, which are as new as the version or newer.

    Args:
        digests: the areas' digests (:attr:`Outline.areas`).
        release: the digest of the code and templates.
        rows: the tree's rows when the request read them, else None.
    """
    if rows is None:
        keys = [FRAGMENT_KEY.format(digest) for digest in digests]
        found = cache.get_many(keys)
        if len(found) == len(keys):
            return [found[key] for key in keys]
        rows = _tree_rows()
    areas = area_digests(rows, release)
    keys = [FRAGMENT_KEY.format(digest) for digest, _ in areas]
    found = cache.get_many(keys)
    missing = [(key, area) for key, (_, area) in zip(keys, areas, strict=True) if key not in found]
    if missing:
        fresh = {key: _render(entries(cache_trees(_nodes(area)))) for key, area in missing}
        cache.set_many(fresh)
        found.update(fresh)
    return [found[key] for key in keys]
