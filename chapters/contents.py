"""The table of contents: built by area, shared across processes, inline up to a size.

**What a page shows.** Up to ``settings.TOC_INLINE_MAX_NODES`` nodes (the seed curriculum
has 222), every page holds the whole tree ("All chapters"). Past it, a page holds the areas
and the branch it is on (the children of each of its ancestors, and its own when it is a
section); the whole list is one resource per version of the wiki,
``/contents/<version>.html`` (:func:`whole_list`), that ``static/js/toc.js`` loads and puts
in place when the reader turns to the contents; without JavaScript every section links to its
page, which lists its children. Every page embedding 20,000 entries made each page weigh
megabytes (mdBook cut its largest book from 88 to 15 MiB by not doing that; issue 19).

**Built by area.** The entries' HTML is rendered by area (:class:`Fragment`), from
``chapters/_toc_entries.html``, and kept in Django's cache under a digest of what it shows:
the area's nodes' fields the template reads, in tree order, and the release of the code
(:func:`area_digests`). A key that names its content is never stale: after an edit only the
area whose rows changed gets a new digest and is rendered again. A node moved between areas
changes both; a renamed or reordered area changes its own, and every area's rows keep their
own order. The whole list joins the areas' fragments (:meth:`Contents.joined`), shifting
their marks.

**Once per version.** What a page needs of the whole tree is one read of its rows (plain
tuples, no model instance per node), kept under the wiki's version as an :class:`Outline`:
the tree's size, each area's digest when pages hold the whole contents, and the key of the
reading path across sections (kept under its own digest, so versions share it). It is built
once across processes (:func:`single_flight`): the first process takes a lock in the shared
cache, the others wait for its result a short while and build it themselves only if it does
not come, so an edit under load costs one read of the tree, not one per worker. A page's
own branch is then one read of the nodes around it (:func:`branch`).

**Marks.** Where the marks of the page shown go is not searched for in the template's
bytes: the template writes, per entry, a mark for its link's opening tag and one for its
``<details>`` tag (``link_mark`` and ``section_mark``); rendering takes them out, keeping
where each one was (:class:`Contents`), and complains at once when the template did not
write each mark once. Marking the contents for a page is then a few insertions at known
places, whatever the size of the tree. The template renders the tree as one flat loop
(:func:`entries`): each entry says how many lists close after it, so a tree of any depth
renders without recursion.
"""

import dataclasses
import hashlib
import logging
import marshal
import re
import time
from dataclasses import dataclass
from operator import itemgetter

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from .models import Node, cache_trees
from .navigation import ancestors, find, neighbours, reading_bridges
from .readiness import Readiness, count_chapters

__all__ = [
    "LOCK_SECONDS",
    "TEMPLATE",
    "WAIT_SECONDS",
    "Contents",
    "Entry",
    "Fragment",
    "Outline",
    "PageNavigation",
    "Step",
    "area_digests",
    "branch",
    "entries",
    "mark_current",
    "page_navigation",
    "single_flight",
    "whole_list",
]

logger = logging.getLogger(__name__)

TEMPLATE = "chapters/_toc_entries.html"

# Cache keys: the outline and the whole contents under the wiki's version; an area's
# fragment under the digest of what it shows (no version: its key names its content).
OUTLINE_KEY = "contents-outline"
AREAS_KEY = "contents-areas"
CONTENTS_KEY = "contents"
FRAGMENT_KEY = "contents-area:{}"
BRIDGES_KEY = "contents-bridges:{}"

# The single flight of a build across processes (single_flight): the lock is given up after
# LOCK_SECONDS (a builder that died); the others wait up to WAIT_SECONDS for its result,
# looking every POLL_SECONDS, then build it themselves, so no reader waits on a lost lock.
LOCK_SECONDS = 30
WAIT_SECONDS = 0.5
POLL_SECONDS = 0.02

# The fields of a node the contents and the page's navigation read, in a row's order.
FIELDS = ("id", "parent_id", "title", "slug", "kind", "status", "path", "level")
ID, PARENT, TITLE, SLUG, KIND, STATUS, PATH, LEVEL = range(len(FIELDS))
CHAPTER = Node.Kind.CHAPTER

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


@dataclass(frozen=True, slots=True)
class Step:
    """A chapter of another section to read on to (or back to), with that section."""

    section: Node
    chapter: Node


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


def single_flight(key, version, build):
    """Return the value kept at ``key`` under ``version``; build and keep it once if missing.

    The first process to miss takes a lock in Django's cache (``cache.add``, atomic in
    Redis and in local memory), builds the value, keeps it and gives the lock up. A process
    that finds the lock taken waits while it is held, up to ``WAIT_SECONDS``, then takes
    the value, or builds it itself (the builder may have died, or be slow: a reader never
    waits longer on it). A cache that keeps nothing (a Redis that cannot be reached) holds
    no lock, so nobody waits. With the cache in local memory each process has its own lock,
    so the flight is single per process, not across them.

    Args:
        key: a cache key.
        version: the cache version to keep it under.
        build: a function of no arguments returning the value (not None).

    Returns:
        The value.
    """
    value = cache.get(key, version=version)
    if value is not None:
        return value
    lock = f"{key}:building"
    if cache.add(lock, True, timeout=LOCK_SECONDS, version=version):
        try:
            value = build()
            cache.set(key, value, version=version)
        finally:
            cache.delete(lock, version=version)
        return value
    # Another process holds the lock; or none does (it has just given it up, or the cache
    # keeps nothing: a Redis that cannot be reached), and there is nothing to wait for.
    start = time.monotonic()
    while cache.has_key(lock, version=version):
        if time.monotonic() - start >= WAIT_SECONDS:
            logger.warning(
                "Waited %s s for %s of version %s; building it too.", WAIT_SECONDS, key, version
            )
            return build()
        time.sleep(POLL_SECONDS)
    value = cache.get(key, version=version)
    return build() if value is None else value


def branch(node):
    """Return the rows of the nodes ``node``'s page shows, in tree order (one query).

    Those are the areas, its ancestors and each one's children (its siblings among them),
    and its whole subtree (for its children's readiness): closed under parents, so
    :func:`~chapters.models.cache_trees` links them, and only ``node``'s own subtree is
    whole. Rows (``FIELDS``), not model instances: on SQLite the read scans one index
    (migration ``0017_node_outline_index``). :func:`_branch_rows` picks the same rows from
    the whole tree's.

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
    )
    if hasattr(node, "readiness"):
        copy.readiness = node.readiness
    return copy
