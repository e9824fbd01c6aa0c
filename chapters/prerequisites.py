"""What readers see of prerequisites: "Before this" and "A path to this chapter" on a chapter's
page, and an area's prerequisite graph at ``/prerequisites/<area>/``.

What a chapter builds on is stored on it (``Node.requires``, the rules in
``chapters.models.prerequisites``). Its page lists them in their order ("Before this"), and
the path to it: every chapter it builds on, directly or through others, in an order where
each comes after what it builds on (:func:`reading_order`). The server sends the whole path,
the same for every reader; ``static/js/progress.js`` ticks the chapters done and hides them
from the path, from the reader's progress as it does in the contents.

An area's graph is drawn by Graphviz's ``dot`` (``chapters.markdown.graphviz``, the runner of
diagrams in bodies, with its bounds), from a source the wiki writes itself: each chapter of
the area with a prerequisite or one that others build on is a node, labelled by its title and
linking to its page, and an arrow goes from each prerequisite to the chapter that builds on
it. The drawing is kept in the cache per version of the wiki. Without ``dot`` on the server
the page lists the same chapters and their prerequisites as text.
"""

import re
from html import escape

from django.core.cache import cache
from django.http import Http404
from django.shortcuts import render

from .caching import cached_page, version
from .markdown.graphviz import DiagramBudget, DiagramError, draw_dot
from .models import Node
from .models.prerequisites import prerequisite_edges

__all__ = ["area_graph", "area_prerequisites", "chapter_prerequisites", "reading_order"]


def reading_order(edges, start):
    """Return the ids of the chapters ``start`` builds on, directly or not, each after what
    it builds on: a depth-first walk of ``edges`` (``{pk: [pk, ...]}``) from ``start``, each
    list in its order, a chapter listed once it has been left (post-order). ``start`` is
    left out; so is a cycle's way back, though the rules refuse cycles.
    """
    order, seen = [], {start}

    def walk(pk):
        for target in edges.get(pk, ()):
            if target not in seen:
                seen.add(target)
                walk(target)
                order.append(target)

    walk(start)
    return order


def chapter_prerequisites(node):
    """Return what ``node``'s page shows of its prerequisites: ``(before, path)``, the chapters
    it names in order, and the path to it (:func:`reading_order`); deleted ones left out.

    No query for a chapter without prerequisites; else two (every node's prerequisites, and
    the titles and paths of those on the path).
    """
    if not node.requires:
        return [], []
    edges = prerequisite_edges()
    edges[node.pk] = node.requires
    order = reading_order(edges, node.pk)
    found = {each.pk: each for each in Node.objects.filter(pk__in=order).only("title", "path")}
    before = [found[pk] for pk in node.requires if pk in found]
    return before, [found[pk] for pk in order if pk in found]


def area_graph(area):
    """Return the prerequisite graph of ``area``'s chapters: ``(chapters, edges)``.

    ``chapters`` are those of the area that name a prerequisite or are named as one by a
    chapter of the area, and the prerequisites in other areas that its chapters name, in
    tree order; ``edges`` are ``(prerequisite, chapter)`` pairs of ids, in the chapters'
    order and each list's. Two queries.
    """
    inside = Node.objects.in_area(area.slug).filter(kind=Node.Kind.CHAPTER).exclude(requires=[])
    sources = list(inside.only("pk", "requires"))
    edges = [(pk, source.pk) for source in sources for pk in source.requires]
    wanted = {pk for edge in edges for pk in edge}
    chapters = list(Node.objects.filter(pk__in=wanted).only("title", "path", "tree_id"))
    present = {chapter.pk for chapter in chapters}
    return chapters, [(a, b) for a, b in edges if a in present and b in present]


def _quoted(text):
    """Return ``text`` as a quoted DOT string (DOT's escapes: ``\\"`` and ``\\\\``)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def graph_source(chapters, edges):
    """Return the DOT source of a prerequisite graph: top to bottom, prerequisites first;
    each node named ``n<id>`` (the ``title`` Graphviz gives its group in the SVG, so that a
    node can be found) and labelled by its title."""
    lines = [
        "digraph prerequisites {",
        "  graph [rankdir=TB, fontname=sans];",
        "  node [shape=box, style=rounded, fontname=sans, fontsize=12];",
    ]
    for chapter in chapters:
        lines.append(f"  n{chapter.pk} [label={_quoted(chapter.title)}];")
    lines.extend(f"  n{a} -> n{b};" for a, b in edges)
    lines.append("}")
    return "\n".join(lines)


NODE_GROUP = re.compile(r'<g class="node"><title>n(\d+)</title>(.*?)</g>', re.S)


def graph_svg(label, chapters, edges):
    """Return the graph drawn as SVG, named ``label`` for screen readers, each chapter's node
    a link to its page with its id in ``data-chapter`` (for ``progress.js``); None when
    Graphviz cannot draw it.

    ``dot`` runs as for a diagram in a body, and its SVG is allowlisted as a diagram's
    (``chapters.markdown.svg``), which unwraps links and drops ids; each node's group is then
    wrapped in a link here, its ``title`` the chapter's title, escaped, and the drawing is a
    ``group`` of them for screen readers rather than one ``img``.
    """
    try:
        svg = draw_dot(graph_source(chapters, edges), DiagramBudget(diagrams=1))
    except DiagramError:
        return None
    by_pk = {chapter.pk: chapter for chapter in chapters}

    def linked(match):
        chapter = by_pk[int(match[1])]
        return (
            f'<a href="{escape(chapter.get_absolute_url())}" class="prerequisite-node" '
            f'data-chapter="{chapter.pk}"><g class="node"><title>{escape(chapter.title)}'
            f"</title>{match[2]}</g></a>"
        )

    # A drawing of links is a group of them, not one image (axe's nested-interactive), named
    # ``label`` (the page's heading says it; the drawing does not repeat it).
    named = f'<svg role="group" aria-label="{escape(label)}"'
    return NODE_GROUP.sub(linked, svg.replace('<svg role="img" aria-label="Diagram"', named, 1))


@cached_page
def area_prerequisites(request, slug):
    """Render an area's prerequisite graph (see the module); 404 for no area.

    The drawing is kept in the cache under the version of the wiki, per area.
    """
    area = Node.objects.filter(parent=None, slug=slug).first()
    if area is None:
        raise Http404("There is no such area.")
    chapters, edges = area_graph(area)
    key = f"prerequisites:{area.pk}"
    svg = cache.get(key, version=version(request))
    if svg is None and edges:
        label = f"Prerequisites in {area.title}"
        svg = graph_svg(label, chapters, edges) or ""
        cache.set(key, svg, version=version(request))
    by_pk = {chapter.pk: chapter for chapter in chapters}
    listed = [
        (by_pk[b], [by_pk[a] for a, to in edges if to == b])
        for b in dict.fromkeys(to for _, to in edges)
    ]
    context = {"area": area, "svg": svg, "listed": listed}
    return render(request, "chapters/prerequisites.html", context)
