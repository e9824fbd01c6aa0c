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
once across processes (``chapters.caching.flight.single_flight``): the first process takes
a lock in the shared cache, the others wait for its result a short while and build it
themselves only if it does not come, so an edit under load costs one read of the tree, not
one per worker. A page's
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

from .html import TEMPLATE, Contents, Entry, Fragment, area_digests, entries, mark_current
from .pages import PageNavigation, page_navigation, whole_list
from .rows import Outline, Step, branch

__all__ = [
    "TEMPLATE",
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
    "whole_list",
]
