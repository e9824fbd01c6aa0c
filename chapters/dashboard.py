"""The readiness dashboard: how far each part of the curriculum is from ready.

Reads for editors, each one query: readiness of every area and section, chapters that still
hold only the scaffold text, chapters not updated for the longest time, broken links.
"""

from django.db.models import Q

from .models import Link, Node
from .navigation import table_of_contents
from .outline import SCAFFOLD_BODY

__all__ = ["section_rows", "scaffold_chapters", "stalest_chapters", "broken_links"]

STALEST = 10


def section_rows(area=None):
    """Return ``(node, depth)`` for every area and section, with ``node.readiness`` set.

    Args:
        area: a root node to keep only its subtree, or None for the whole curriculum.
    """
    rows = []

    def walk(nodes, depth):
        for node in nodes:
            if not node.is_chapter:
                rows.append((node, depth))
                walk(node.cached_children, depth + 1)

    roots = table_of_contents()
    walk([root for root in roots if area is None or root.pk == area.pk], 0)
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
    """Return the links that resolve to no node, with their sources, in the sources' order."""
    links = Link.objects.filter(target=None).select_related("source")
    if area is not None:
        links = links.filter(source__tree_id=area.tree_id)
    return list(links.order_by("source__tree_id", "source__lft", "pk"))
