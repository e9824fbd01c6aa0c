"""A model of what the tree should be, and the checks the property tests run against it.

``ExpectedTree`` keeps, independently of the app's code, each node's title, kind and parent
and each parent's children in order, applying edits as django-mptt documents them (a new
node or a node given a new parent becomes the last child; ``first-child``, ``last-child``,
``left`` and ``right`` moves). It also remembers, for every path a node has ever been served
at, the last node served there: that path must answer 200 while a node lives there, else 301
straight to that node's page while it exists, else 404.
"""

import sys
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.db import transaction
from django.urls import reverse
from django.utils.text import slugify
from hypothesis.stateful import RuleBasedStateMachine, invariant

from chapters import caching
from chapters.models import PATH_MAX_LENGTH, RESERVED_ROOT_SLUGS, REVISION_FIELDS, Node
from tests.helpers import run_ready_tasks, soup

POSITIONS = ["first-child", "last-child", "left", "right"]


@dataclass
class Expected:
    """What one node should be: its title, kind and parent's primary key (None for an area)."""

    title: str
    kind: str
    parent: int | None


class ExpectedTree:
    """The tree as the edits so far should have left it; see the module's docstring."""

    def __init__(self):
        self.nodes = {}
        self.children = defaultdict(list)
        self.slug, self.path, self.holders = {}, {}, {}

    @classmethod
    def from_database(cls):
        """Return the model of the tree now in the database."""
        tree = cls()
        for node in Node.objects.all():
            tree.add(node.pk, node.title, node.kind, node.parent_id)
        tree.observe()
        return tree

    def add(self, pk, title, kind, parent):
        """Add a node as the last child of ``parent`` (the last area for None)."""
        self.nodes[pk] = Expected(title, kind, parent)
        self.children[parent].append(pk)

    def subtree(self, pk):
        """Return ``pk`` and the primary keys of all its descendants."""
        found = [pk]
        for child in self.children[pk]:
            found += self.subtree(child)
        return found

    def remove(self, pk):
        """Remove the node ``pk`` and its descendants."""
        self.children[self.nodes[pk].parent].remove(pk)
        for gone in self.subtree(pk):
            del self.nodes[gone]
            self.children.pop(gone, None)

    def new_parent(self, target, position):
        """Return the parent a move to ``position`` of ``target`` gives (None: the top level)."""
        if target is None:
            return None
        return target if position.endswith("-child") else self.nodes[target].parent

    def placement_problem(self, pk, parent, slug, kind=None):
        """Return why node ``pk`` (None: a new node of ``kind``) with ``slug`` may not live
        under ``parent``, or None.

        The wiki's rules (docs/editing.md, "The admin"): not under itself or a descendant,
        not under a chapter, no chapter at the top level, no reserved slug at the top level,
        no slug a sibling has, no path longer than the column.
        """
        subtree = self.subtree(pk) if pk is not None else []
        kind = self.nodes[pk].kind if pk is not None else kind
        if parent is not None and parent in subtree:
            return "under itself"
        if parent is not None and self.nodes[parent].kind == Node.Kind.CHAPTER:
            return "under a chapter"
        if parent is None and kind == Node.Kind.CHAPTER:
            return "chapter at the top level"
        if parent is None and slug in RESERVED_ROOT_SLUGS:
            return "reserved slug"
        if slug in self.sibling_slugs(parent, pk):
            return "slug taken"
        deepest = max((len(self.path[n]) - len(self.path[pk]) for n in subtree), default=0)
        start = len(self.path[parent]) + 1 if parent is not None else 0
        if start + len(slug) + deepest > PATH_MAX_LENGTH:
            return "path too long"
        return None

    def sibling_slugs(self, parent, pk=None):
        """Return the slugs of the children of ``parent`` other than node ``pk``."""
        return {self.slug[other] for other in self.children[parent] if other != pk}

    def new_slug(self, title, kind, parent, pk=None):
        """Return the slug a node gets from ``title`` under ``parent`` (docs/editing.md: slugs).

        The title's slug, or "-2", "-3", ... appended while a sibling (or, at the top level,
        the site's own URLs) has it.
        """
        taken = self.sibling_slugs(parent, pk) | (RESERVED_ROOT_SLUGS if parent is None else set())
        base = slugify(title, allow_unicode=True)[:90].strip("-_") or kind
        slug, number = base, 2
        while slug in taken:
            slug, number = f"{base}-{number}", number + 1
        return slug

    def move(self, pk, target, position):
        """Move node ``pk`` to ``position`` of ``target`` (None: make it the last area)."""
        parent = self.new_parent(target, position)
        if parent is None and target is None and self.nodes[pk].parent is None:
            return
        self.children[self.nodes[pk].parent].remove(pk)
        siblings = self.children[parent]
        if target is None:
            siblings.append(pk)
        elif position == "first-child":
            siblings.insert(0, pk)
        elif position in ("left", "right"):
            siblings.insert(siblings.index(target) + (position == "right"), pk)
        else:
            siblings.append(pk)
        self.nodes[pk].parent = parent

    def rows(self, parent=None, level=0):
        """Return the expected tree in reading order: (pk, parent, title, kind, level) rows."""
        rows = []
        for pk in self.children[parent]:
            node = self.nodes[pk]
            rows.append((pk, node.parent, node.title, node.kind, level))
            rows += self.rows(pk, level + 1)
        return rows

    def observe(self):
        """Read the slugs and paths the app gave the nodes; remember who holds each path."""
        stored = Node.objects.values_list("pk", "slug", "path")
        self.slug = {pk: slug for pk, slug, _ in stored}
        self.path = {pk: path for pk, _, path in stored}
        self.holders.update({path: pk for pk, path in self.path.items()})

    def chapters_around(self, pk):
        """Return the chapters before and after chapter ``pk`` among its siblings, or None."""
        chapters = [
            sibling
            for sibling in self.children[self.nodes[pk].parent]
            if self.nodes[sibling].kind == Node.Kind.CHAPTER
        ]
        index = chapters.index(pk)
        return (
            chapters[index - 1] if index > 0 else None,
            chapters[index + 1] if index + 1 < len(chapters) else None,
        )

    def url(self, pk):
        """Return the URL of node ``pk`` at its current path."""
        return page_url(self.path[pk])


def page_url(path):
    """Return the URL of a node page at stored path ``path``."""
    return reverse("chapters:node", kwargs={"path": path})


def check_database(tree):
    """Assert that the stored tree is the expected one, with right paths.

    Checks the nodes in reading order (django-mptt's ``tree_id`` and ``lft``) with their
    parents, titles, kinds and levels, each stored path (the parent's path and the slug), and
    that each node's latest revision holds its current content.
    """
    stored = [(n.pk, n.parent_id, n.title, n.kind, n.level) for n in Node.objects.all()]
    assert stored == tree.rows()
    tree.observe()
    for pk, expected in tree.nodes.items():
        prefix = f"{tree.path[expected.parent]}/" if expected.parent is not None else ""
        assert tree.path[pk] == prefix + tree.slug[pk]
    latest = {}
    for revision in Node.history.filter(id__in=tree.nodes).values("id", *REVISION_FIELDS):
        latest.setdefault(revision.pop("id"), revision)
    current = Node.objects.values("pk", *REVISION_FIELDS)
    assert {node.pop("pk"): node for node in current} == latest


def check_tree_and_pages(client, tree):
    """Assert that the tree is valid and what readers get: every page, its breadcrumb and
    pager, and every old URL.

    ``check_tree()`` finds nothing wrong (django-mptt's fields, the wiki's rules). Every node
    page answers 200 with the breadcrumb of its ancestors' titles and links;
    a chapter's previous and next links are the chapters beside it in its section (so
    previous/next are symmetric); every wiki link in a body answers 200 directly. Every path a
    node was served at answers 301 straight to a live page of the last node served there,
    or 404 when that node was deleted, never a redirect to a redirect.
    """
    assert Node.objects.check_tree() == []
    pagers = {}
    for pk, expected in tree.nodes.items():
        response = client.get(tree.url(pk))
        assert response.status_code == 200, tree.path[pk]
        page = soup(response)
        ancestors = []
        parent = expected.parent
        while parent is not None:
            ancestors.insert(0, parent)
            parent = tree.nodes[parent].parent
        crumbs = page.find("nav", class_="breadcrumb").find_all("li")
        assert [li.get_text() for li in crumbs] == [
            "Wiki",
            *(tree.nodes[a].title for a in ancestors),
            expected.title,
        ]
        assert [li.a["href"] for li in crumbs[:-1]] == ["/", *map(tree.url, ancestors)]
        pager = page.find("nav", class_="pager")
        links = {a["rel"][0]: a["href"] for a in pager.find_all("a")} if pager else {}
        if expected.kind == Node.Kind.CHAPTER:
            previous, following = tree.chapters_around(pk)
            pagers[pk] = (previous, following)
            wanted = {"prev": previous, "next": following}
            assert links == {rel: tree.url(n) for rel, n in wanted.items() if n is not None}
        else:
            assert links == {}
        for link in page.select("div.body a.wikilink"):
            assert client.get(link["href"]).status_code == 200, link["href"]
    for pk, (previous, following) in pagers.items():
        assert previous is None or pagers[previous][1] == pk
        assert following is None or pagers[following][0] == pk
    live = set(tree.path.values())
    for path, holder in tree.holders.items():
        if path in live:
            continue
        response = client.get(page_url(path))
        if holder in tree.nodes:
            assert (response.status_code, response["Location"]) == (301, tree.url(holder)), path
            assert client.get(urlsplit(response["Location"]).path).status_code == 200
        else:
            assert response.status_code == 404, path


class TreeMachine(RuleBasedStateMachine):
    """A state machine that edits the tree in a savepoint and checks it against the model.

    Each example starts from the tree the test loaded: its edits run in a savepoint that
    ``teardown`` rolls back. After every step the stored tree is compared with the model
    (:func:`check_database`); ``check_tree()``, which rebuilds the tree, and the pages,
    which cost a request each, are checked once at the end (:func:`check_tree_and_pages`),
    after the background tasks the edits left have run.
    """

    def __init__(self, client):
        super().__init__()
        self.client = client
        # Each example's edits are rolled back, and the wiki's version with them: the next
        # example's pages come at versions the last one's were kept at, so pages kept by one
        # example would be served to the next (as between tests: tests/conftest.py).
        caching.clear()
        self.savepoint = transaction.atomic()
        self.savepoint.__enter__()
        self.tree = ExpectedTree.from_database()

    @invariant()
    def stored_tree_is_the_expected_one(self):
        check_database(self.tree)

    def teardown(self):
        """Check the pages unless a step failed, then roll the example's edits back.

        Hypothesis calls this in a ``finally`` block: after a failed step an exception is
        on its way, and it alone should be reported.
        """
        try:
            if sys.exception() is None:
                # What the writes left to the workers (pages linking to a page moved or
                # deleted rendered again, broken links mended) is done first, as a worker
                # does once a write commits: the pages are checked as readers then get them.
                run_ready_tasks()
                check_tree_and_pages(self.client, self.tree)
        finally:
            transaction.set_rollback(True)
            self.savepoint.__exit__(None, None, None)
