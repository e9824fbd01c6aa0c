"""What the home page shows: each area as a card, where to start, what changed lately.

Two queries: the whole tree (:func:`~chapters.navigation.table_of_contents`), from which the
areas' chapters are counted (:func:`~chapters.readiness.count_chapters`) and the chapters
updated last are picked, and the areas' own text for their descriptions.
"""

import textwrap
from dataclasses import dataclass

from .models import Node
from .navigation import table_of_contents
from .readiness import Readiness, count_chapters

__all__ = ["AREA_DESCRIPTION_LENGTH", "RECENT_CHAPTERS", "Area", "Landing", "landing"]

# An area card's description: the start of the area's text, about two lines of a card.
AREA_DESCRIPTION_LENGTH = 140

RECENT_CHAPTERS = 6


@dataclass(frozen=True)
class Area:
    """One card of the home page."""

    node: Node
    description: str  # the start of the area's own text; empty when it has none
    sections: tuple  # its sections (not chapters), in tree order
    readiness: Readiness  # its chapters, at any depth, by status


@dataclass(frozen=True)
class Landing:
    """The home page's content."""

    areas: tuple  # of Area, in tree order
    first_chapter: Node | None  # "Start here": the first chapter in tree order
    recent: tuple  # the chapters updated last, newest first, each with its parent cached


def landing(recent=RECENT_CHAPTERS):
    """Return what the home page shows (two queries).

    Args:
        recent: how many of the chapters updated last to list.

    Returns:
        A :class:`Landing`.
    """
    roots = count_chapters(table_of_contents())
    texts = dict(
        Node.objects.filter(parent=None).exclude(body_text="").values_list("pk", "body_text")
    )
    chapters = _chapters(roots)
    # Newest first; among chapters updated at once, in tree order (sorted() is stable).
    latest = sorted(chapters, key=lambda chapter: chapter.updated, reverse=True)[:recent]
    return Landing(
        areas=tuple(
            Area(
                node=root,
                description=textwrap.shorten(
                    texts.get(root.pk, ""), AREA_DESCRIPTION_LENGTH, placeholder="…"
                ),
                sections=tuple(child for child in root.cached_children if not child.is_chapter),
                readiness=root.readiness,
            )
            for root in roots
        ),
        first_chapter=chapters[0] if chapters else None,
        recent=tuple(latest),
    )


def _chapters(roots):
    """Return every chapter under ``roots`` in tree order, without a query."""
    found, stack = [], list(reversed(roots))
    while stack:
        node = stack.pop()
        if node.is_chapter:
            found.append(node)
        stack.extend(reversed(node.cached_children))
    return found
