"""Links between nodes, and the paths nodes were once served at.

A node's links are derived from its body when it is rendered, as its HTML is: each
``[[wiki link]]`` or Markdown link to one of the wiki's own paths becomes a :class:`Link`
(source, target or none, the text as written), from which pages show "Linked from" and the
broken-links report lists what does not resolve. A ``[[title]]`` that no longer matches (the
target was renamed) keeps pointing at the node it pointed at before (:class:`LinkResolver`),
so links keep working; and when a node's path changes or it is deleted, the nodes linking to
it are rendered again, so their links never go through a redirect or to a 404.

A path a node leaves (a rename or a move) becomes a :class:`PathRedirect` to the node.
"""

import re

from django.apps import apps
from django.db import models
from django.db.models import Q

from chapters.markdown import WIKI_LINK

__all__ = [
    "BodyReferences",
    "Link",
    "LinkResolver",
    "PathRedirect",
    "linking_into",
    "mend_broken_links",
]


class PathRedirect(models.Model):
    """A URL path a node was once served at, answered with a 301 to its current URL.

    Pointing at the node rather than at a path collapses chains (renamed twice, both old
    paths lead straight to the current one), and deleting the node deletes its redirects.
    A node that later takes the path over wins: its page is looked up first.
    """

    old_path = models.CharField(max_length=1000, unique=True)
    node = models.ForeignKey("chapters.Node", on_delete=models.CASCADE, related_name="redirects")

    def __str__(self):
        return f"{self.old_path} → {self.node.path}"

    @classmethod
    def record(cls, moved, taken):
        """Keep old paths as redirects, and drop redirects from paths nodes now use.

        Args:
            moved: a mapping of old path to the primary key of the node that left it.
            taken: paths that nodes have just come to use.
        """
        cls.objects.filter(old_path__in=[*moved, *taken]).delete()
        cls.objects.bulk_create(cls(old_path=path, node_id=pk) for path, pk in moved.items())


class BodyReferences:
    """What a node's body refers to, as rows derived from the body (links, media uses): all of
    a node's rows are replaced at once each time its body is rendered. A mixin of models with
    a ``source`` foreign key to the node."""

    @classmethod
    def replace(cls, source, rows):
        """Make ``rows`` (unsaved) the stored rows of ``source``."""
        cls.objects.filter(source=source).delete()
        for row in rows:
            row.source = source
        cls.objects.bulk_create(rows)


class Link(BodyReferences, models.Model):
    """A link in a node's body to a node: a ``[[wiki link]]`` or a Markdown link to a path.

    Derived from the body whenever it is rendered; ``target`` is None for a broken link, and
    ``problem`` says why.
    """

    class Kind(models.TextChoices):
        WIKI = "wiki", "Wiki link"
        PATH = "path", "Link to a path"

    source = models.ForeignKey(
        "chapters.Node", on_delete=models.CASCADE, related_name="outgoing_links"
    )
    target = models.ForeignKey(
        "chapters.Node",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="incoming_links",
    )
    kind = models.CharField(max_length=4, choices=Kind.choices)
    text = models.TextField(help_text="As written in the body.")
    problem = models.TextField(blank=True)

    def __str__(self):
        return f"{self.source} → {self.target or self.text}"


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


def linking_into(node):
    """Return the primary keys of the nodes linking to ``node`` or a descendant: their URLs
    changed, so they are rendered again.

    ``node`` itself is among them when it links into its own subtree: it was rendered before
    its new path was stored.
    """
    subtree = node.get_descendants(include_self=True).values("pk")
    linking = Link.objects.filter(target__in=subtree).values("source")
    return set(type(node).objects.filter(pk__in=linking).values_list("pk", flat=True))


def mend_broken_links(titles, paths):
    """Render again the nodes with a broken link that a node titled or placed anew may mend.

    A broken ``[[wiki link]]`` can only come to resolve to a node whose title is the link's
    last segment (as :class:`~chapters.models.links.LinkResolver` compares them, ignoring
    case), and an ambiguous one only when a node of that title went elsewhere; a broken link
    to a path only to a node now at that path. So after a node is added, renamed, moved or
    deleted, only the nodes with such links are rendered again, not every node with a broken
    link. The task ``chapters.tasks.mend_links`` calls this once the write that asked for it
    (``tree_write``) has committed, outside the tree's lock: rendering a slow body then holds
    up no other editor. Each node is rendered in a transaction of its own.

    Args:
        titles: the titles the change gave or took away (of the node and its descendants).
        paths: the stored paths the change gave nodes.
    """
    wanted = {title.casefold() for title in titles}
    linked = {f"/{path}/" for path in paths}

    def may_mend(kind, text):
        if kind == Link.Kind.PATH:
            return text in linked
        return text.rsplit("/", 1)[-1].strip().casefold() in wanted

    broken = Link.objects.filter(target=None).values_list("source", "kind", "text")
    sources = {source for source, kind, text in broken if may_mend(kind, text)}
    for node in apps.get_model("chapters", "Node").objects.filter(pk__in=sources):
        node.refresh_body()
