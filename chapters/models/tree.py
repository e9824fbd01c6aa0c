"""The tree's machinery: its one write path, its lock, its querysets and manager, its check,
and the in-memory trees that pages walk.

Every write to the tree goes through :func:`tree_write`: a transaction that takes
:func:`lock_tree` first, in which the writer reads the tree fields it works from, checks the
tree's rules, writes and records revisions, and which hands the work that follows from a
write (e-mail to watchers, pages rendered again) to background tasks as it ends.
django-mptt's private API is touched in this module only, in the two functions at its end.
"""

from contextlib import contextmanager

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.transaction import TransactionManagementError
from mptt.exceptions import InvalidMove
from mptt.managers import TreeManager
from mptt.querysets import TreeQuerySet
from mptt.signals import node_moved

from chapters import queue

from .prerequisites import find_cycle, requires_shape_problem
from .rendering import render_unresolved
from .vocabulary import fold_vocabulary

__all__ = [
    "TREE_FIELDS",
    "TREE_LOCK_KEY",
    "NodeManager",
    "NodeQuerySet",
    "TreeWrite",
    "cache_trees",
    "current_write",
    "lock_tree",
    "move_by_mptt",
    "set_mptt_memory",
    "tree_write",
]

# django-mptt's nested-set fields: a node's place in the tree.
TREE_FIELDS = ("lft", "rght", "tree_id", "level")

# The key of the PostgreSQL advisory lock that lock_tree() takes. Advisory-lock keys are one
# 64-bit space per database, shared by every application using that database, so the key is
# the eight ASCII bytes of "wikitree" rather than a small number another program may also
# pick; nothing else in this project takes an advisory lock.
TREE_LOCK_KEY = int.from_bytes(b"wikitree", "big")


def lock_tree(using=None):
    """Wait until no other transaction writes the tree, and keep others out until commit.

    Every write to the nested-set fields (an insert, a move, a reorder, a delete) reads the
    numbers first and shifts ranges of them by what it read. Two such writes at once, from
    two server processes, each work from numbers the other is changing: the tree's fields end
    up wrong, or the two deadlock on each other's rows. So each write takes this lock first,
    inside its transaction, and only then reads the tree fields it depends on.

    On PostgreSQL this is the transaction-level advisory lock
    ``pg_advisory_xact_lock(TREE_LOCK_KEY)`` (PostgreSQL's manual, "Advisory Locks" in
    "Explicit Locking", and "Advisory Lock Functions"): it is released when the transaction
    commits or rolls back, taking it again in the same transaction is allowed, and readers,
    who never take it, are not held up.

    On SQLite it does nothing, as the database lock is enough: SQLite lets one connection
    write at a time, and the settings make Django begin every transaction with ``BEGIN
    IMMEDIATE``, which takes that write lock at the start (waiting for it up to the
    connection's timeout), so a transaction has it before it reads anything. With SQLite's
    default deferred ``BEGIN``, two transactions could read at once and then the second to
    write would fail with "database is locked" instead of waiting. Other databases are not
    supported.

    Args:
        using: the database alias; None for the default database.

    Raises:
        django.db.transaction.TransactionManagementError: not inside
            ``transaction.atomic()``, where the lock would be let go as soon as it was taken.
    """
    connection = transaction.get_connection(using)
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_tree() must be called inside an atomic block.")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [TREE_LOCK_KEY])


class TreeWrite:
    """One write to the tree, open in :func:`tree_write`: who writes, why, and the work that
    follows from it once it commits.

    Writers (``Node.save()``, ``Node.delete()``, ``NodeManager.move_node``) add to it the
    pages to render again and the titles and paths whose broken links may mend; the
    revisions it recorded are found by their ids when it ends. Then :meth:`finish` enqueues
    one task for each kind of work (``chapters.tasks``), in the write's transaction.

    Attributes:
        user: the author of the write's revisions, unless a node names its own; or None.
        summary: the revisions' summary, unless a node gives its own; or None.
        base_url: the site's address for links in e-mail, ``https://host/``.
        first_revision: the id of the latest revision before the write (0 when none).
        render: primary keys of nodes to render again (their links' targets moved).
        mend_titles, mend_paths: what the write gave or took away, for broken links.
        watchers: per deleted node's id, the users who watched it (their watches go with
            it), so that they hear of the deletion.
        tell_watchers: whether the watchers hear of its revisions (a review's approval
            tells them itself).
        rendered: the bodies rendered before the lock was taken, by their text
            (:class:`~.rendering.RenderedBody`), which ``Node.save()`` and ``Node.clean()``
            take instead of rendering.
    """

    def __init__(self, *, user, summary, base_url, using, rendered=None):
        self.user, self.summary, self.using = user, summary, using
        self.rendered = rendered or {}
        self.base_url = base_url or settings.WIKI_BASE_URL
        self.first_revision = self._latest_revision()
        self.render, self.mend_titles, self.mend_paths = set(), set(), set()
        self.watchers = {}
        self.tell_watchers = True

    def _latest_revision(self):
        revisions = apps.get_model("chapters", "HistoricalNode").objects.using(self.using)
        return revisions.aggregate(latest=models.Max("history_id"))["latest"] or 0

    def _webhooks(self):
        webhooks = apps.get_model("chapters", "Webhook").objects.using(self.using)
        return webhooks.filter(active=True).exists()

    def finish(self):
        """Enqueue the write's work as tasks, in its transaction: e-mail to the watchers of
        the revisions it recorded, their webhooks' events (when a webhook is active), the
        pages to render again, the broken links to mend (see ``chapters.tasks``)."""
        last = self._latest_revision()
        if self.tell_watchers and last > self.first_revision:
            watchers = {str(pk): sorted(users) for pk, users in self.watchers.items()}
            queue.enqueue("tell_watchers", self.first_revision, last, self.base_url, watchers)
        if last > self.first_revision and self._webhooks():
            queue.enqueue("announce_revisions", self.first_revision, last, self.base_url)
        if self.render:
            queue.enqueue("render_pages", sorted(self.render))
        if self.mend_titles or self.mend_paths:
            queue.enqueue("mend_links", sorted(self.mend_titles), sorted(self.mend_paths))


def current_write(using=None):
    """Return the :class:`TreeWrite` open on the database connection, or None."""
    return getattr(transaction.get_connection(using), "tree_write", None)


@contextmanager
def tree_write(*, user=None, summary=None, base_url=None, request=None, using=None, bodies=()):
    """Open the one write to the tree: a transaction under :func:`lock_tree`, whose work that
    follows (e-mail, renders) is enqueued as tasks when it ends.

    Every writer opens one: the site's editor and its review, the admin's forms, drag and
    deletes, reverts, restores, both imports and ``loaddata``; ``Node.save()``,
    ``Node.delete()`` and ``move_node`` open one of their own when called outside of one
    (a script, the shell). Inside it the writer reads what it works from (the lock is held,
    so no other write changes it meanwhile), checks and writes; nothing slow may run in it:
    the bodies the writer will save are named in ``bodies`` and rendered before the lock is
    taken (:func:`~.rendering.render_unresolved`), and under it only their wiki links are
    resolved. A write opened inside another joins it, as ``transaction.atomic`` does, and
    renders nothing: a body saved in it that was not rendered before the lock is rendered
    with its code plain, and again, highlighted, by a task (``Node.save()``). At its end the
    vocabulary's counts of the words written are added (:func:`~.vocabulary.fold_vocabulary`).

    Args:
        user: the author of the revisions recorded, where a node names none.
        summary: their summary, where a node gives none.
        base_url: the site's address for links in e-mail; by default the request's, else
            ``WIKI_BASE_URL``.
        request: the request writing, if any: its user is the author where ``user`` is
            None, and its address the one e-mail links to.
        using: the database alias; None for the default.
        bodies: the Markdown texts the write will save, to render before the lock.

    Yields:
        The :class:`TreeWrite`.
    """
    connection = transaction.get_connection(using)
    opened = getattr(connection, "tree_write", None)
    if opened is not None:
        yield opened
        return
    rendered = {body: render_unresolved(body) for body in set(bodies)}
    if request is not None:
        user = user if user is not None else request.user
        base_url = base_url or request.build_absolute_uri("/")
    if user is not None and not user.is_authenticated:
        user = None
    with transaction.atomic(using=using):
        lock_tree(using)
        write = TreeWrite(
            user=user, summary=summary, base_url=base_url, using=using, rendered=rendered
        )
        connection.tree_write = write
        try:
            yield write
            # A write rolled back on purpose (a dry run) leaves nothing to do.
            if not connection.needs_rollback:
                fold_vocabulary(using)
                write.finish()
        finally:
            connection.tree_write = None


def _mentions(term):
    """Return a condition: ``term`` occurs in the node's title or body text, in any case."""
    return models.Q(title__icontains=term) | models.Q(body_text__icontains=term)


class NodeQuerySet(TreeQuerySet):
    """Querysets of nodes, in tree order (django-mptt's default ordering)."""

    def for_navigation(self):
        """Return the nodes with only the fields links and the table of contents need.

        Returns:
            A queryset that defers the Markdown body, its HTML, its text (and its
            identifiers' parts), its headings and sections, and the prerequisites (not its
            ``words``: sections sum them for their reading time).
        """
        return self.defer(
            "body",
            "body_html",
            "body_text",
            "headings",
            "sections",
            "requires",
            "text_parts",
            "grams",
        )

    def in_area(self, slug):
        """Return the nodes of one area: the area itself and every node under it.

        Uses the stored paths (an area's descendants' paths start with its slug and a slash),
        so it needs no query for the area's tree id.

        Args:
            slug: the slug of an area (a root node).
        """
        return self.filter(models.Q(path=slug) | models.Q(path__startswith=f"{slug}/"))

    def containing(self, terms, excluded=()):
        """Return the nodes whose title or body text contains every term and no excluded one.

        Matching ignores case as the database's ``icontains`` does: on SQLite, that is only for
        ASCII letters (SQLite's ``LIKE``).

        Args:
            terms: strings that must each occur in the title or the body text.
            excluded: strings that must occur in neither.
        """
        nodes = self
        for term in terms:
            nodes = nodes.filter(_mentions(term))
        for term in excluded:
            nodes = nodes.exclude(_mentions(term))
        return nodes


class NodeManager(TreeManager.from_queryset(NodeQuerySet)):
    """The tree manager; refuses moves that would break the wiki's rules."""

    def get_by_natural_key(self, path):
        """Return the node at ``path`` (its natural key, ``Node.natural_key``)."""
        return self.get(path=path)

    def move_node(self, node, target, position="last-child"):
        """Move ``node`` relative to ``target``, as django-mptt's ``TreeManager.move_node``.

        This is what the admin's drag-and-drop calls. It is one :func:`tree_write`: after
        the lock, both nodes' tree fields are read again (django-mptt moves by the
        numbers in memory, which other moves make stale), and the node's new place is checked
        with the model's ``validate_placement`` before anything is written. Then it does what
        django-mptt's ``move_node`` does (move, save, send ``node_moved``), and stores the new
        parent before the save, as the model's ``save()`` takes the stored parent for the
        node's current one.

        Args:
            node: the node to move.
            target: the node to move relative to, or None to make ``node`` a root.
            position: ``first-child``, ``last-child``, ``left`` or ``right`` of ``target``.

        Raises:
            mptt.exceptions.InvalidMove: the move would put a node under itself or one of its
                descendants, put anything under a chapter, make a chapter a root, or give the
                node a slug a new sibling already has; or either node was deleted meanwhile.
                Nothing is written.
        """
        with tree_write(using=self.db):
            tree_fields = ["parent", *TREE_FIELDS]
            try:
                node.refresh_from_db(fields=tree_fields)
                if target is not None:
                    target.refresh_from_db(fields=[*tree_fields, "kind", "title", "path"])
            except self.model.DoesNotExist:
                raise InvalidMove("A page was deleted by someone else meanwhile.") from None
            if target is None or position in ("left", "right"):
                parent = target.parent if target is not None else None
            else:
                parent = target
            try:
                node.validate_placement(parent)
            except ValidationError as error:
                raise InvalidMove(" ".join(error.messages)) from error
            move_by_mptt(node, target, position)
            node.save()
            node_moved.send(sender=self.model, instance=node, target=target, position=position)

    def check_tree(self):
        """Return what is wrong with the stored tree, for data that bypassed ``save()``.

        Fixtures are saved raw, so nothing checked their rows. This checks, in order: that no
        node is its own ancestor; that the nested-set fields are what django-mptt's
        ``rebuild()`` makes of the parents (run in a savepoint that is rolled back), comparing
        the trees' order and not their ``tree_id`` numbers, which have gaps where a tree was
        deleted or moved and ``rebuild()`` numbers from 1; that every node's fields are right
        (the model's ``field_problems``) and it keeps the rules of its ``check_placement``;
        and that the prerequisites are lists of ids making no cycle. It reads the tree under
        :func:`lock_tree`, so no write happens halfway.

        Returns:
            A list of sentences, empty when the tree is valid.
        """
        with transaction.atomic(using=self.db):
            lock_tree(self.db)
            return self._check_tree()

    def _check_tree(self):
        nodes = {node.pk: node for node in self.for_navigation()}
        for node in nodes.values():
            seen, ancestor = {node.pk}, nodes.get(node.parent_id)
            while ancestor is not None:
                if ancestor.pk in seen:
                    return [f"“{node.title}” (pk {node.pk}) is its own ancestor."]
                seen.add(ancestor.pk)
                ancestor = nodes.get(ancestor.parent_id)
        fields = ["pk", "parent_id", "tree_id", "lft", "rght", "level"]
        stored = _renumber_trees(self.values_list(*fields))
        with transaction.atomic(using=self.db):
            self.rebuild()
            rebuilt = _renumber_trees(self.values_list(*fields))
            transaction.set_rollback(True, using=self.db)
        if stored != rebuilt:
            wrong = [
                pk for (pk, *_), right in zip(stored, rebuilt, strict=True) if _ != list(right[1:])
            ]
            return [
                "The tree fields do not match the parents (lft, rght, tree_id or level of "
                f"pk {', '.join(map(str, wrong[:5]))}); they were not made by django-mptt "
                "for this database's nodes."
            ]
        problems, slugs = [], {}
        for node in nodes.values():
            slugs.setdefault(node.parent_id, []).append(node.slug)
        for node in nodes.values():
            label = f"“{node.title}” (pk {node.pk})"
            wrong = node.field_problems()
            if wrong:
                problems.extend(f"{label}: {problem}" for problem in wrong)
                continue
            siblings = list(slugs[node.parent_id])
            siblings.remove(node.slug)
            try:
                node.check_placement(nodes.get(node.parent_id), set(siblings))
            except ValidationError as error:
                problems.extend(f"{label}: {message}" for message in error.messages)
        return problems + _prerequisite_problems(self, nodes)


def _prerequisite_problems(nodes, by_pk):
    """Return the stored prerequisites that are not a list of ids, or that make a cycle (each
    cycle once, named from its node of the lowest id), as ``check_tree()``'s sentences.

    Args:
        nodes: the node manager.
        by_pk: every node, by primary key.
    """
    edges, problems = {}, []
    for pk, requires in nodes.values_list("pk", "requires"):
        if problem := requires_shape_problem(requires):
            problems.append(f"“{by_pk[pk].title}” (pk {pk}): {problem}")
        elif requires:
            edges[pk] = requires
    for pk in edges:
        cycle = find_cycle(edges, pk)
        if cycle and pk == min(cycle):
            chain = " → ".join(f"“{by_pk[each].title}”" for each in cycle if each in by_pk)
            problems.append(
                f"“{by_pk[pk].title}” (pk {pk}): its prerequisites make a cycle: {chain}."
            )
    return problems


def _renumber_trees(rows):
    """Return tree-field rows with each ``tree_id`` (the third value) replaced by its rank.

    Args:
        rows: ``(pk, parent_id, tree_id, lft, rght, level)`` rows in tree order.

    Returns:
        A list of the rows, their tree ids numbered 1, 2, ... in the order of the ids.
    """
    rows = list(rows)
    ranks = {tree_id: rank for rank, tree_id in enumerate(sorted({r[2] for r in rows}), 1)}
    return [(pk, parent, ranks[tree_id], *rest) for pk, parent, tree_id, *rest in rows]


def cache_trees(nodes):
    """Link ``nodes`` to their parents and children in memory, as django-mptt's
    ``get_cached_trees()`` does, in time linear in the number of nodes.

    django-mptt 0.18's ``get_cached_trees()`` finds each node's parent by scanning every node
    of the level above (``mptt.utils.get_cached_trees``, since its pull request #830), so it
    takes time in the square of the tree's width (``bench/README.md``). Here each parent is
    found by its primary key. The nodes get what django-mptt's own function gives them
    (:func:`set_mptt_memory`), so its ``get_children()`` and ``get_ancestors()`` read them
    instead of the database. Each node's children are also its ``cached_children`` list:
    code walking the whole tree reads that, since ``get_children()`` builds a queryset around
    the list on every call.

    Args:
        nodes: every node of one or more whole trees, in tree order (parents first); a node
            whose parent is left out becomes a root.

    Returns:
        The root nodes, in order.
    """
    roots, by_pk = [], {}
    for node in nodes:
        node.cached_children = []
        set_mptt_memory(node, children=node.cached_children)
        by_pk[node.pk] = node
        parent = by_pk.get(node.parent_id)
        if parent is None:
            roots.append(node)
        else:
            node.parent = parent
            parent.cached_children.append(node)
    return roots


# django-mptt's private API. Everything else in the project uses django-mptt's public API;
# these two functions are the only places that touch its private methods and attributes.
# Checked against django-mptt 0.18.0 (mptt/models.py, mptt/managers.py, mptt/utils.py): check
# them again when upgrading it.

_UNSET = object()


def move_by_mptt(node, target, position):
    """Move ``node`` with django-mptt's own queries, and store its new parent; no save.

    ``TreeManager.move_node`` is ``_move_node`` (the queries that shift the nested-set
    fields, which leave the parent column to the save that follows) then ``save()``; the
    save of ``chapters.models.Node`` takes the stored parent for the node's current one
    (:func:`set_mptt_memory`), so the new parent is stored here first.

    Args:
        node: the node, its tree fields and its target's read after :func:`lock_tree`.
        target: the node to move relative to, or None to make ``node`` a root.
        position: ``first-child``, ``last-child``, ``left`` or ``right`` of ``target``.
    """
    manager = type(node)._tree_manager
    manager._move_node(node, target, position)
    manager.filter(pk=node.pk).update(parent=node.parent_id)


def set_mptt_memory(node, *, loaded_parent=_UNSET, children=None):
    """Set what django-mptt remembers of ``node`` in memory.

    Args:
        node: a node.
        loaded_parent: the parent's primary key that django-mptt's ``save()`` compares the
            node's ``parent`` with to decide whether the save is a move (it keeps the parent
            the instance was loaded with in ``_mptt_cached_fields``).
        children: the list ``get_children()`` returns without a query, with
            ``get_ancestors()`` walking ``parent`` in memory (``_cached_children`` and
            ``_mptt_use_cached_ancestors``, as ``mptt.utils.get_cached_trees`` sets them).
    """
    if loaded_parent is not _UNSET:
        node._mptt_cached_fields["parent"] = loaded_parent
    if children is not None:
        node._cached_children = children
        node._mptt_use_cached_ancestors = True
