"""Links between nodes: ``[[wiki links]]`` and Markdown links to the wiki's own paths.

A node's links are derived from its body when it is saved, as its HTML is: each becomes a
``Link`` row (source, target or none, the text as written), from which pages show "Linked
from" and the broken-links report lists what does not resolve. A ``[[title]]`` that no longer
matches (the target was renamed) keeps pointing at the node it pointed at before, so links
keep working; and when a node's path changes or it is deleted, the nodes linking to it are
rendered again, so their links never go through a redirect or to a 404.

This module resolves ``[[...]]`` targets; the wiki paths that Markdown links point at are
read from the rendered HTML by ``internal_paths``, which lives in :mod:`chapters.markdown.text`
and is imported here for models.py. This module asks the database only through the models it
is given, so models.py can use it.
"""

import re

from django.db.models import Q

from .markdown import WIKI_LINK, internal_paths

__all__ = ["LinkResolver", "internal_paths"]


class LinkResolver:
    """Resolve the ``[[...]]`` targets of one node's body, and remember what was resolved.

    A target is the title of a node, or a path of titles ending in it (its section, its area
    and section, ...), compared without regard to case: ``[[Graph Optimization and Kernel
    Fusion]]`` or ``[[ML Compilers/Graph Optimization and Kernel Fusion]]``. A title shared
    by several nodes ("Fundamentals") needs the path form; alone it is reported as ambiguous.

    Use: create it for the source node, call :meth:`prepare` with the body (two queries for
    all its links), pass the resolver to ``render_markdown``, then read :attr:`resolved`.
    """

    def __init__(self, source):
        self.node_model = type(source)
        self.previous = {}
        if source.pk is not None:
            self.previous = {
                link.text: link.target
                for link in source.outgoing_links.select_related("target").exclude(target=None)
            }
        self.candidates = {}
        self.resolved = {}

    def prepare(self, text):
        """Look up every node that a ``[[...]]`` in ``text`` could mean: two queries."""
        targets = {" ".join(m.group(1).split()) for m in re.finditer(WIKI_LINK, text)}
        written = {target.rsplit("/", 1)[-1].strip() for target in targets}
        if not written:
            return
        # iexact ignores case only for ASCII on SQLite, so the title as written is asked too.
        query = self.node_model.objects.none()
        for title in written:
            query |= self.node_model.objects.filter(Q(title__iexact=title) | Q(title=title))
        nodes = list(query.only("pk", "title", "path"))
        prefixes = {p for node in nodes for p in node.ancestor_paths()}
        titles_by_path = dict(
            self.node_model.objects.filter(path__in=prefixes).values_list("path", "title")
        )
        for node in nodes:
            chain = [titles_by_path.get(p, "") for p in node.ancestor_paths()]
            node.title_path = [t.casefold() for t in [*chain, node.title]]
            self.candidates.setdefault(node.title.casefold(), []).append(node)

    def __call__(self, target):
        """Return ``(href, problem)`` for ``target``, as ``render_markdown`` expects."""
        wanted = [part.strip().casefold() for part in target.split("/")]
        matches = [
            node
            for node in self.candidates.get(wanted[-1], [])
            if node.title_path[-len(wanted) :] == wanted
        ]
        if len(matches) > 1:
            paths = ", ".join(f"“{n.path}”" for n in matches)
            problem = f"“{target}” could mean several pages ({paths}): write its section too."
            self.resolved[target] = (None, problem)
            return None, problem
        node = matches[0] if matches else self.previous.get(target)
        if node is None:
            problem = f"There is no page “{target}”."
            self.resolved[target] = (None, problem)
            return None, problem
        self.resolved[target] = (node, "")
        return node.get_absolute_url(), None
