"""How far the curriculum is from ready: chapters counted by status, and the dashboard's reads.

Section pages and the table of contents show each section's :class:`Readiness`, counted in
memory from the tree they already read (:func:`count_chapters`). The dashboard adds reads for
editors, each one query: the readiness of every area and section, the chapters that still
hold only the scaffold text, the chapters not updated for the longest time, broken links.
"""

from collections import Counter
from dataclasses import dataclass

from django.db.models import Q

from .models import Link, MediaUse, Node
from .models.prerequisites import missing_prerequisites
from .navigation import table_of_contents
from .outline import SCAFFOLD_BODY

__all__ = [
    "Readiness",
    "count_chapters",
    "section_rows",
    "scaffold_chapters",
    "stalest_chapters",
    "broken_links",
]

STALEST = 10


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


def count_chapters(roots):
    """Give every section under ``roots`` a ``readiness`` attribute, and ``chapter_words``
    (the words of its chapters, for its reading time: ``chapters.reading_time``), without a
    query.

    Each section's chapters are counted from its ``cached_children``, deepest sections first,
    so any depth of the tree takes no recursion.

    Args:
        roots: nodes whose children are cached (:func:`navigation.table_of_contents`).

    Returns:
        ``roots``.
    """
    sections, stack = [], list(roots)
    while stack:
        node = stack.pop()
        if not node.is_chapter:
            sections.append(node)
            stack.extend(node.cached_children)
    counts = {}
    for section in reversed(sections):  # every section after the sections below it
        counted, section.chapter_words = Counter(), 0
        for child in section.cached_children:
            counted += Counter({child.status: 1}) if child.is_chapter else counts[child.pk]
            section.chapter_words += child.words if child.is_chapter else child.chapter_words
        counts[section.pk] = counted
        section.readiness = Readiness(**{status: counted[status] for status in Node.Status.values})
    return roots


def section_rows(area=None):
    """Return ``(node, depth)`` for every area and section, with ``node.readiness`` set.

    Args:
        area: a root node to keep only its subtree, or None for the whole curriculum.

    Returns:
        A list in tree order; depth 0 for an area.
    """
    roots = [root for root in table_of_contents() if area is None or root.pk == area.pk]
    rows, stack = [], [(root, 0) for root in reversed(count_chapters(roots))]
    while stack:
        node, depth = stack.pop()
        if not node.is_chapter:
            rows.append((node, depth))
            stack.extend((child, depth + 1) for child in reversed(node.cached_children))
    return rows


def _chapters(area):
    """Return the chapters, optionally of one area, in tree order."""
    chapters = Node.objects.for_navigation().filter(kind=Node.Kind.CHAPTER)
    return chapters.filter(tree_id=area.tree_id) if area is not None else chapters


def scaffold_chapters(area=None):
    """Return the chapters whose body is empty or only the scaffold text, in tree order."""
    return list(_chapters(area).filter(Q(body__in=["", SCAFFOLD_BODY]) | Q(body_text="")))


def stalest_chapters(area=None, limit=STALEST):
    """Return the ``limit`` chapters updated longest ago, oldest first."""
    return list(_chapters(area).order_by("updated", "tree_id", "lft")[:limit])


def broken_links(area=None):
    """Return the links that resolve to no node, the media references that find no item and
    the prerequisites that name a deleted page, with their sources, in the sources' order
    (links, then media, then prerequisites within a source): three queries, four when a
    chapter has prerequisites, five when one of them is missing
    (:func:`~chapters.models.prerequisites.missing_prerequisites`).

    All have ``source``, ``kind``, ``text`` and ``problem``.
    """
    order = ("source__tree_id", "source__lft", "pk")
    links = Link.objects.filter(target=None).select_related("source")
    media = MediaUse.objects.filter(media=None).select_related("source")
    if area is not None:
        links = links.filter(source__tree_id=area.tree_id)
        media = media.filter(source__tree_id=area.tree_id)
    found = [*links.order_by(*order), *media.order_by(*order), *missing_prerequisites(area)]
    return sorted(found, key=lambda row: (row.source.tree_id, row.source.lft))
