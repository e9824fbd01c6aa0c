"""Turn a plain outline of titles into a fixture of the curriculum's tree.

The outline is one title per line, nested by indenting two spaces per level: areas at the
left margin, their sections below them, chapters below those. ``fixtures/curriculum.json`` is
made from ``fixtures/curriculum-outline.txt`` by ``manage.py build_curriculum_fixture``.
"""

import datetime

from .models import RESERVED_ROOT_SLUGS, Node, unique_slug

__all__ = ["OutlineError", "parse_outline", "build_fixture"]

INDENT = 2
CHAPTER_DEPTH = 2
SCAFFOLD_BODY = "This chapter is currently a scaffold."
SCAFFOLD_UPDATED = datetime.datetime(2026, 8, 9, 12, 0, tzinfo=datetime.UTC)


class OutlineError(ValueError):
    """An outline that does not describe a tree; the message names the line."""


def parse_outline(text):
    """Parse an outline into ``(depth, title)`` pairs in reading order.

    Args:
        text: the outline; blank lines are ignored.

    Returns:
        A list of ``(depth, title)`` with depth 0 for areas.

    Raises:
        OutlineError: a line is indented by a number of spaces that is not a multiple of two,
            skips a level, goes deeper than area > section > chapter, or uses tabs.
    """
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if stripped.startswith("\t") or indent % INDENT:
            raise OutlineError(f"line {number}: indent with two spaces per level: {line!r}")
        depth = indent // INDENT
        previous_depth = entries[-1][0] if entries else -1
        if depth > previous_depth + 1:
            raise OutlineError(f"line {number}: indented more than one level: {line!r}")
        if depth > CHAPTER_DEPTH:
            raise OutlineError(f"line {number}: deeper than area > section > chapter: {line!r}")
        entries.append((depth, stripped.rstrip()))
    return entries


def build_fixture(entries, body=SCAFFOLD_BODY, updated=SCAFFOLD_UPDATED):
    """Return fixture rows for the tree an outline describes.

    Entries at depth 0 and 1 become sections, deeper ones chapters with the scaffold body; all
    are Draft and dated ``updated``. Primary keys count up in reading order, and the nested-set
    fields are numbered the way django-mptt numbers them (a depth-first walk giving each node
    ``lft`` on the way down and ``rght`` on the way up; one ``tree_id`` per area, ``level`` =
    depth), so that ``Node.objects.rebuild()`` after loading changes nothing.

    Args:
        entries: ``(depth, title)`` pairs as :func:`parse_outline` returns them.
        body: the Markdown body of every chapter.
        updated: the ``updated`` date-time of every node.

    Returns:
        A list of dicts in Django's serialization format for ``chapters.node``.
    """
    rows, stack, siblings_slugs = [], [], {}
    counter, tree_id = 0, 0

    def close_until(depth):
        nonlocal counter
        while len(stack) > depth:
            counter += 1
            stack.pop()["fields"]["rght"] = counter

    for pk, (depth, title) in enumerate(entries, start=1):
        close_until(depth)
        if depth == 0:
            tree_id, counter = tree_id + 1, 0
        parent = stack[-1] if stack else None
        kind = Node.Kind.CHAPTER if depth >= CHAPTER_DEPTH else Node.Kind.SECTION
        taken = siblings_slugs.setdefault(
            parent["pk"] if parent else None, set() if parent else set(RESERVED_ROOT_SLUGS)
        )
        slug = unique_slug(title, taken, fallback=kind)
        taken.add(slug)
        counter += 1
        row = {
            "model": "chapters.node",
            "pk": pk,
            "fields": {
                "title": title,
                "slug": slug,
                "kind": kind,
                "status": Node.Status.DRAFT,
                "parent": parent["pk"] if parent else None,
                "body": body if kind == Node.Kind.CHAPTER else "",
                "updated": updated.isoformat().replace("+00:00", "Z"),
                "lft": counter,
                "rght": None,
                "tree_id": tree_id,
                "level": depth,
            },
        }
        rows.append(row)
        stack.append(row)
    close_until(0)
    return rows
