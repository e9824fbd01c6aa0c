"""Trees of the curriculum's shape for the benchmark, written in bulk.

The real curriculum (``fixtures/curriculum.json``) has 222 nodes: 8 areas, 44 sections and
170 chapters. A tree of another size keeps those ratios (5.5 sections per area, about 3.9
chapters per section) and reuses the curriculum's titles. Rows are numbered by
``chapters.outline.build_fixture``, which numbers the nested sets as django-mptt does, and
every derived field ``Node.save()`` keeps (path, rendered body, text, headings, sections,
identifiers' parts) is filled in, so the tree is the one editors would have made. Generated
nodes have no revisions, which pages do not read.
"""

import json
from datetime import UTC, datetime

from django.conf import settings
from django.core.management.color import no_style
from django.db import connection, transaction

from chapters.models import Node
from chapters.outline import build_fixture, parse_outline
from chapters.words import identifier_parts, spaceless_grams

from . import bodies

__all__ = ["CURRICULUM_SIZE", "create_tree", "outline_of_size"]

CURRICULUM_SIZE = 222
AREAS, SECTIONS = 8, 44  # of the curriculum's 222 nodes; the rest are chapters
UPDATED = datetime(2026, 8, 9, 12, 0, tzinfo=UTC)
# Most chapters are drafts, as in a curriculum being written.
STATUSES = [Node.Status.DRAFT, Node.Status.DRAFT, Node.Status.IN_REVIEW, Node.Status.PUBLISHED]


def curriculum_rows():
    """Return the rows of ``fixtures/curriculum.json``."""
    fixture = settings.BASE_DIR / "fixtures" / "curriculum.json"
    return json.loads(fixture.read_text(encoding="utf-8"))


def outline_of_size(size):
    """Return an outline of ``size`` nodes with the curriculum's fan-out and titles.

    Sections are spread evenly over the areas and chapters over the sections, in order.

    Args:
        size: the number of nodes, at least 3.

    Returns:
        Outline text, as ``chapters.outline.parse_outline`` reads it.
    """
    titles = {depth: [] for depth in range(3)}
    for row in curriculum_rows():
        titles[row["fields"]["level"]].append(row["fields"]["title"])
    areas = max(1, round(size * AREAS / CURRICULUM_SIZE))
    sections = max(areas, round(size * SECTIONS / CURRICULUM_SIZE))
    chapters = size - areas - sections
    lines, section, chapter = [], 0, 0
    for area in range(areas):
        lines.append(f"{titles[0][area % AREAS]} {area // AREAS + 1}")
        while section < sections and section * areas // sections == area:
            lines.append(f"  {titles[1][section % len(titles[1])]}")
            while chapter < chapters and chapter * sections // chapters == section:
                lines.append(f"    {titles[2][chapter % len(titles[2])]}")
                chapter += 1
            section += 1
    return "\n".join(lines) + "\n"


def rendered_bodies():
    """Render each benchmark body once through ``Node.render_body``.

    Returns:
        A list of ``(body, body_html, body_text, headings, sections, text_parts)``, one per
        body.
    """
    rendered = []
    for number in range(bodies.BODY_COUNT):
        node = Node(title="Body", kind=Node.Kind.CHAPTER, body=bodies.body(number))
        node.render_body()
        rendered.append(
            (
                node.body, node.body_html, node.body_text, node.headings, node.sections,
                node.text_parts,
            )
        )  # fmt: skip
    return rendered


@transaction.atomic
def create_tree(size):
    """Write a tree of ``size`` nodes into the empty database; return its chapters' paths.

    The tree of 222 is the real curriculum, with the benchmark's bodies instead of the
    scaffold text.

    Args:
        size: the number of nodes.

    Returns:
        The paths of the chapters, in tree order.
    """
    if size == CURRICULUM_SIZE:
        rows = curriculum_rows()
    else:
        rows = build_fixture(parse_outline(outline_of_size(size)))
    pool, paths, nodes, chapters = rendered_bodies(), {}, [], []
    for row in rows:
        fields = dict(row["fields"])
        parent = fields.pop("parent")
        paths[row["pk"]] = f"{paths[parent]}/{fields['slug']}" if parent else fields["slug"]
        fields.update(pk=row["pk"], parent_id=parent, path=paths[row["pk"]], updated=UPDATED)
        fields["title_parts"] = identifier_parts(fields["title"])
        fields["grams"] = spaceless_grams(fields["title"])
        if fields["kind"] == Node.Kind.CHAPTER:
            body, html, text, headings, sections, parts = pool[len(chapters) % len(pool)]
            fields.update(
                body=body,
                body_html=html,
                body_text=text,
                headings=headings,
                sections=sections,
                text_parts=parts,
                grams=spaceless_grams(fields["title"], text),
            )
            fields["status"] = STATUSES[len(chapters) % len(STATUSES)]
            chapters.append(fields["path"])
        nodes.append(Node(**fields))
    Node.objects.bulk_create(nodes, batch_size=1000)
    # Rows written with their primary keys leave PostgreSQL's sequence behind.
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [Node]):
            cursor.execute(statement)
    return chapters
