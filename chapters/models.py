"""The wiki's one tree: sections and chapters as nodes of a django-mptt tree.

Areas are root sections, their sections are child sections, chapters are leaves. Each node
stores four derived fields that ``save()`` keeps right: ``path`` (its full URL path, so a link
costs no query), ``body_html`` (its sanitized body, so a page view renders no Markdown),
``body_text`` (the text of that HTML, which search matches and quotes) and ``headings`` (the
body's headings with their ids, for the page's "On this page" list).
"""

from datetime import UTC, datetime

from django.core.exceptions import ValidationError
from django.core.validators import validate_unicode_slug
from django.db import connection, models, transaction
from django.db.models import Max, Q
from django.db.models.functions import Length
from django.db.models.signals import post_save
from django.db.transaction import TransactionManagementError
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from mptt.exceptions import InvalidMove
from mptt.managers import TreeManager
from mptt.models import MPTTModel, TreeForeignKey
from mptt.querysets import TreeQuerySet
from mptt.signals import node_moved
from simple_history.models import HistoricalRecords

from .links import LinkResolver, internal_paths
from .markdown import (
    BODY_MAX_LENGTH,
    MarkdownError,
    html_to_text,
    render_markdown,
    render_markdown_with_headings,
)

__all__ = [
    "Link",
    "Node",
    "NodeQuerySet",
    "NodeManager",
    "PathRedirect",
    "WikiVersion",
    "lock_tree",
    "unique_slug",
]

# First path segments that belong to other URLs of the project (see wiki/urls.py and
# chapters/urls.py): a top-level node with one of these slugs could never be reached.
RESERVED_ROOT_SLUGS = frozenset(
    {
        "admin", "static", "history", "revisions", "diff", "recent", "feeds", "search",
        "dashboard", "links", "preview",
    }
)  # fmt: skip

PATH_MAX_LENGTH = 1000
TITLE_MAX_LENGTH = 200

# The fields save() computes, written whatever update_fields says.
DERIVED_FIELDS = ("slug", "path", "body_html", "body_text", "headings", "updated")

# The fields a revision records and a revert restores; the tree's own fields are left out.
REVISION_FIELDS = ("title", "slug", "kind", "status", "parent_id", "body")

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
    connection's timeout, 20 seconds), so a transaction has it before it reads anything.
    With SQLite's default deferred ``BEGIN``, two transactions could read at once and then
    the second to write would fail with "database is locked" instead of waiting. Other
    databases are not supported.

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


def unique_slug(title, taken, fallback):
    """Return a slug for ``title`` that is not in ``taken``.

    Django's ``slugify`` with ``allow_unicode`` keeps letters of any script, so a title in
    Cyrillic or Chinese keeps its words and still works in a URL; a title of only punctuation
    gets ``fallback``. While the slug is taken, "-2", "-3", ... is appended.

    Args:
        title: the node's title.
        taken: the slugs the node's siblings already use (any container).
        fallback: the slug to use when the title has no letters or digits.

    Returns:
        A non-empty slug of at most 100 characters.
    """
    base = slugify(title, allow_unicode=True)[:90].strip("-_") or fallback
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def _mentions(term):
    """Return a condition: ``term`` occurs in the node's title or body text, in any case."""
    return models.Q(title__icontains=term) | models.Q(body_text__icontains=term)


class NodeQuerySet(TreeQuerySet):
    """Querysets of nodes, in tree order (django-mptt's default ordering)."""

    def for_navigation(self):
        """Return the nodes with only the fields links and the table of contents need.

        Returns:
            A queryset that defers the Markdown body, its HTML, its text and its headings.
        """
        return self.defer("body", "body_html", "body_text", "headings")

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

    def move_node(self, node, target, position="last-child"):
        """Move ``node`` relative to ``target``, as django-mptt's ``TreeManager.move_node``.

        This is what the admin's drag-and-drop calls. It is one transaction: after
        :func:`lock_tree`, both nodes' tree fields are read again (django-mptt moves by the
        numbers in memory, which other moves make stale), and the node's new place is checked
        with :meth:`Node.validate_placement` before anything is written. Then it does what
        django-mptt's ``move_node`` does (move, save, send ``node_moved``), and stores the new
        parent before the save, as :meth:`Node.save` takes the stored parent for the node's
        current one.

        Args:
            node: the node to move.
            target: the node to move relative to, or None to make ``node`` a root.
            position: ``first-child``, ``last-child``, ``left`` or ``right`` of ``target``.

        Raises:
            mptt.exceptions.InvalidMove: the move would put a node under itself or one of its
                descendants, put anything under a chapter, make a chapter a root, or give the
                node a slug a new sibling already has. Nothing is written.
        """
        with transaction.atomic(using=self.db):
            lock_tree(self.db)
            tree_fields = ["parent", *TREE_FIELDS]
            node.refresh_from_db(fields=tree_fields)
            if target is not None:
                target.refresh_from_db(fields=tree_fields)
            if target is None or position in ("left", "right"):
                parent = target.parent if target is not None else None
            else:
                parent = target
            try:
                node.validate_placement(parent)
            except ValidationError as error:
                raise InvalidMove(" ".join(error.messages)) from error
            # django-mptt's queries move the tree fields and leave the parent column to save().
            self._move_node(node, target, position)
            self.filter(pk=node.pk).update(parent=node.parent_id)
            node.save()
            node_moved.send(sender=Node, instance=node, target=target, position=position)

    def check_tree(self):
        """Return what is wrong with the stored tree, for data that bypassed ``save()``.

        Fixtures are saved raw, so nothing checked their rows. This checks, in order: that no
        node is its own ancestor; that the nested-set fields are what django-mptt's
        ``rebuild()`` makes of the parents (run in a savepoint that is rolled back), comparing
        the trees' order and not their ``tree_id`` numbers, which have gaps where a tree was
        deleted or moved and ``rebuild()`` numbers from 1; and that every node keeps the rules
        of :meth:`Node.check_placement`, has a valid slug and a known kind. It reads the tree
        under :func:`lock_tree`, so no write happens halfway.

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
            if node.kind not in Node.Kind.values:
                problems.append(f"{label}: kind “{node.kind}” is not a choice.")
                continue
            try:
                validate_unicode_slug(node.slug)
            except ValidationError:
                problems.append(f"{label}: the slug is empty or not a valid slug.")
                continue
            siblings = list(slugs[node.parent_id])
            siblings.remove(node.slug)
            try:
                node.check_placement(nodes.get(node.parent_id), set(siblings))
            except ValidationError as error:
                problems.extend(f"{label}: {message}" for message in error.messages)
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


class DeletionFields(models.Model):
    """Fields a revision has beyond simple-history's own, set on the revisions of a delete.

    Deleting a node deletes its descendants with it (django-mptt), and simple-history records
    a "-" revision for each, each at its own moment. ``Node.delete()`` then marks those
    revisions as one deletion, so that ``chapters.recovery`` can restore the subtree as it was
    (extra fields on the historical model through ``HistoricalRecords(bases=...)`` are
    simple-history's documented way to store more with each revision).
    """

    deletion = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        editable=False,
        db_index=True,
        help_text="On the revisions of one delete: the id of the revision recording the "
        "deletion of the node the delete was asked for (its own id on that revision).",
    )
    deleted_after = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="On the revisions of a delete: the id of the node that preceded this one "
        "among its siblings; empty for a first child.",
    )

    class Meta:
        abstract = True


class Node(MPTTModel):
    """A section or a chapter of the curriculum.

    Siblings are ordered by their place in the tree, which only the tree sets (there is no
    ``order_insertion_by``): the editor's order is the order.
    """

    class Kind(models.TextChoices):
        SECTION = "section", "Section"
        CHAPTER = "chapter", "Chapter"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        IN_REVIEW = "review", "In review"
        PUBLISHED = "published", "Published"

    title = models.CharField(max_length=TITLE_MAX_LENGTH)
    slug = models.SlugField(
        max_length=100,
        allow_unicode=True,
        blank=True,
        help_text="The last part of the page's URL; unique among siblings. "
        "Left empty, it is made from the title.",
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CHAPTER)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    parent = TreeForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    body = models.TextField(
        blank=True,
        max_length=BODY_MAX_LENGTH,
        help_text=f"Markdown, at most {BODY_MAX_LENGTH:,} characters.",
    )
    updated = models.DateTimeField(
        default=timezone.now,
        editable=False,
        help_text="The date of the latest revision: set on every save, kept as written in "
        "fixtures.",
    )
    path = models.CharField(max_length=PATH_MAX_LENGTH, unique=True, editable=False)
    body_html = models.TextField(blank=True, editable=False)
    body_text = models.TextField(blank=True, editable=False)
    # [{"level": 2, "id": "kernel-fusion", "title": "Kernel Fusion"}, ...] in document order.
    headings = models.JSONField(default=list, blank=True, editable=False)

    objects = NodeManager()
    # django-simple-history records every save (and delete) as a revision with its author and
    # edit summary; the nested-set fields and what is rendered from the body are not part of a
    # revision.
    history = HistoricalRecords(
        excluded_fields=["lft", "rght", "tree_id", "level", "body_html", "body_text", "headings"],
        history_change_reason_field=models.TextField(null=True, blank=True),
        bases=[DeletionFields],
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["parent", "slug"],
                name="unique_slug_among_siblings",
                violation_error_message="A sibling already uses this slug.",
            ),
            models.UniqueConstraint(
                fields=["slug"],
                condition=models.Q(parent__isnull=True),
                name="unique_slug_among_roots",
                violation_error_message="Another top-level section already uses this slug.",
            ),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        """Return the node's URL, built from the stored path without a query."""
        return reverse("chapters:node", kwargs={"path": self.path})

    def ancestor_paths(self):
        """Return the stored paths of this node's ancestors, from the top, without a query.

        An ancestor's path is a prefix of this node's path ending at a slash.
        """
        parts = self.path.split("/")
        return ["/".join(parts[:end]) for end in range(1, len(parts))]

    @property
    def is_chapter(self):
        """Return True for a chapter, False for a section."""
        return self.kind == self.Kind.CHAPTER

    def validate_placement(self, parent):
        """Check that this node may live under ``parent``, asking the database about siblings.

        Args:
            parent: the prospective parent node, or None for the top level.

        Raises:
            ValidationError: (keyed by field) for the rules of :meth:`check_placement`, or
                when the node's path or a descendant's would grow longer than the column.
        """
        siblings = Node.objects.filter(parent=parent).exclude(pk=self.pk)
        self.check_placement(parent, set(siblings.values_list("slug", flat=True)))
        depth_gain = len(parent.path) + 1 if parent is not None else 0
        longest = len(self.slug)
        if self.pk is not None and self.path:
            subtree = Node.objects.filter(Q(pk=self.pk) | Q(path__startswith=f"{self.path}/"))
            stored = subtree.aggregate(longest=Max(Length("path")))["longest"] or len(self.path)
            longest += stored - len(self.path)
        if depth_gain + longest > PATH_MAX_LENGTH:
            raise ValidationError(
                {"parent": f"The page's address would grow past {PATH_MAX_LENGTH} characters."}
            )

    def check_placement(self, parent, sibling_slugs):
        """Check the tree's rules for this node under ``parent``, without a query.

        Args:
            parent: the prospective parent node, or None for the top level.
            sibling_slugs: the slugs of the other children of ``parent``.

        Raises:
            ValidationError: (keyed by field) when ``parent`` is this node or one of its
                descendants, when ``parent`` is a chapter, when this node is a chapter and
                ``parent`` is None, when a top-level slug is reserved, or when a sibling
                already has this slug.
        """
        if parent is not None and parent.is_descendant_of(self, include_self=True):
            raise ValidationError(
                {"parent": "A node cannot be moved under itself or one of its descendants."}
            )
        if parent is not None and parent.is_chapter:
            raise ValidationError(
                {"parent": f"“{parent.title}” is a chapter; chapters cannot have children."}
            )
        if parent is None and self.is_chapter:
            raise ValidationError({"parent": "A chapter must belong to a section."})
        if parent is None and self.slug in RESERVED_ROOT_SLUGS:
            raise ValidationError({"slug": f"“{self.slug}” is reserved for the site's own URLs."})
        if self.slug and self.slug in sibling_slugs:
            raise ValidationError({"slug": f"A sibling already uses the slug “{self.slug}”."})

    def clean(self):
        """Validate the node as the admin's form sees it.

        Raises:
            ValidationError: the title is blank, the title or body is too long, the body
                cannot be rendered, a section with
                children is turned into a chapter, or the placement is invalid (see
                :meth:`validate_placement`).
        """
        if not self.title.strip():
            raise ValidationError({"title": "The title cannot be blank."})
        self.check_lengths()
        try:
            render_markdown(self.body)
        except MarkdownError as error:
            raise ValidationError({"body": str(error)}) from error
        self.fill_slug()
        if self.is_chapter and self.pk is not None and self.get_children().exists():
            raise ValidationError({"kind": "This node has children, so it must stay a section."})
        self.validate_placement(self.parent)

    def check_lengths(self):
        """Refuse a title or body longer than allowed, the same on every database.

        SQLite does not enforce a column's length, and PostgreSQL enforces the title's only
        with a database error; this check comes first on both.

        Raises:
            ValidationError: (keyed by field) the title is longer than ``TITLE_MAX_LENGTH``
                or the body longer than ``BODY_MAX_LENGTH`` characters.
        """
        errors = {}
        for field, limit in (("title", TITLE_MAX_LENGTH), ("body", BODY_MAX_LENGTH)):
            length = len(getattr(self, field))
            if length > limit:
                errors[field] = (
                    f"Ensure this value has at most {limit:,} characters (it has {length:,})."
                )
        if errors:
            raise ValidationError(errors)

    def fill_slug(self):
        """Give the node a slug made from its title, unique among its siblings, if it has none.

        See :func:`unique_slug`; a title of only punctuation gets the node's kind ("chapter").
        """
        if self.slug:
            return
        siblings = Node.objects.filter(parent_id=self.parent_id).exclude(pk=self.pk)
        taken = set(siblings.values_list("slug", flat=True))
        if self.parent_id is None:
            taken |= RESERVED_ROOT_SLUGS
        self.slug = unique_slug(self.title, taken, fallback=self.kind)

    @transaction.atomic
    def save(self, *args, **kwargs):
        """Save the node as a new revision, keeping the derived fields right.

        Fills in the slug, renders the body once, moves ``updated`` to now (the revision's
        date), and when the node's path changed (a rename or a move) rewrites the paths of
        all its descendants and keeps every old path as a redirect. All of it is one
        transaction, under :func:`lock_tree`; the node's and its parent's places in the tree,
        the old path and the parent's path are read from the database after taking the lock,
        not from possibly stale instances. ``update_fields`` always includes the derived
        fields.

        Raises:
            ValidationError: the title or body is too long (see :meth:`check_lengths`).
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        self.check_lengths()
        lock_tree()
        self.refresh_tree_fields()
        self.fill_slug()
        links = self.render_body()
        self.updated = self._history_date = timezone.now()
        old_path, old_title = Node.objects.filter(pk=self.pk).values_list(
            "path", "title"
        ).first() or (None, None)
        self.path = self.build_path()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], *DERIVED_FIELDS}
        super().save(*args, **kwargs)
        Link.replace(self, links)
        if old_path != self.path:
            moved = {old_path: self.pk} if old_path else {}
            moved.update(rewrite_descendant_paths(self))
            # The node and its descendants take over the old paths they now live at.
            subtree = Node.objects.filter(Q(pk=self.pk) | Q(path__startswith=f"{self.path}/"))
            PathRedirect.record(moved, taken=subtree.values_list("path", flat=True))
        if old_path != self.path or old_title != self.title:
            refresh_links_to(self)

    @transaction.atomic
    def delete(self, *args, **kwargs):
        """Delete the node and its descendants as one deletion; render the nodes that linked
        to them again.

        simple-history records a "-" revision for every node deleted. They are then given one
        date and author, each node's place among its siblings (``deleted_after``), the id of
        this node's "-" revision (``deletion``) and a summary ("Deleted" unless one was given;
        "Deleted with “<title>”" for the descendants), so the subtree can be restored
        (``chapters.recovery``). One transaction, under :func:`lock_tree`, with the node's place
        read after taking it. A node no longer in the database (the admin's bulk delete reaches
        a node after deleting its ancestor) is not deleted again, which would record a second
        deletion and make django-mptt close its gap in the tree again, by its numbers in memory.

        Returns:
            Django's ``(count, counts by model)``; ``(0, {})`` for a node already deleted.
        """
        lock_tree()
        if not self.refresh_tree_fields():
            return 0, {}
        previous = self.get_previous_sibling()
        pk = self.pk  # Django sets it to None on delete
        after, last_child = {pk: previous.pk if previous else None}, {}
        for child, parent_id in self.get_descendants().values_list("pk", "parent_id"):
            after[child], last_child[parent_id] = last_child.get(parent_id), child
        linking = list(
            Node.objects.filter(outgoing_links__target__in=list(after))
            .exclude(pk__in=list(after))
            .distinct()
        )
        recorded = Node.history.aggregate(latest=Max("history_id"))["latest"] or 0
        self._history_date = timezone.now()
        deleted = super().delete(*args, **kwargs)
        records = list(
            Node.history.filter(history_type="-", id__in=list(after), history_id__gt=recorded)
        )
        root = next(record for record in records if record.id == pk)
        root.history_change_reason = root.history_change_reason or "Deleted"
        for record in records:
            record.deletion, record.deleted_after = root.history_id, after[record.id]
            if record is not root:
                record.history_date, record.history_user = root.history_date, root.history_user
                record.history_change_reason = f"Deleted with “{self.title}”"
        Node.history.model.objects.bulk_update(
            records,
            ["deletion", "deleted_after", "history_date", "history_user", "history_change_reason"],
        )
        for source in linking:
            source.refresh_body()
        return deleted

    def refresh_tree_fields(self):
        """Read this node's place in the tree, and its parent's, from the database again.

        django-mptt inserts and moves by the nested-set numbers in memory (the node's and its
        parent's), and takes a save for a move when ``parent`` differs from the parent the
        instance was loaded with; another process may have changed both since. Called after
        :func:`lock_tree`, this makes the save work from the tree as it is: the node's tree
        fields and its parent's are the stored ones, and a save moves the node only if its
        stored parent differs from ``parent``.

        Returns:
            False if the node has a primary key but is not stored (it was deleted meanwhile),
            and then nothing is read; True otherwise.
        """
        if self.pk is not None:
            stored = Node.objects.filter(pk=self.pk).values("parent_id", *TREE_FIELDS).first()
            if stored is None:
                return False
            # django-mptt's record of the parent at load time, which its save() compares with.
            self._mptt_cached_fields["parent"] = stored.pop("parent_id")
            for field, value in stored.items():
                setattr(self, field, value)
        if self.parent_id is not None:
            self.parent.refresh_from_db(fields=TREE_FIELDS)
        return True

    def render_body(self):
        """Render the body into ``body_html``, ``body_text`` and ``headings``; return its
        links, unsaved.

        Raises:
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        resolver = LinkResolver(self)
        resolver.prepare(self.body)
        self.body_html, self.headings = render_markdown_with_headings(self.body, resolver)
        self.body_text = html_to_text(self.body_html)
        links = [
            Link(kind=Link.Kind.WIKI, text=text, target=target, problem=problem)
            for text, (target, problem) in resolver.resolved.items()
        ]
        return links + Link.to_paths(internal_paths(self.body_html))

    def refresh_body(self):
        """Render the body again and store it with its links, without a new revision.

        For when what the body links to changed, not the body: it is no edit of this node.
        A body stored before the current limits that they refuse keeps its stored HTML and
        links, so a change elsewhere never fails because of it.
        """
        try:
            links = self.render_body()
        except MarkdownError:
            return
        Node.objects.filter(pk=self.pk).update(
            body_html=self.body_html, body_text=self.body_text, headings=self.headings
        )
        Link.replace(self, links)

    def build_path(self):
        """Return the URL path from the parent's stored path and this node's slug."""
        if self.parent_id is None:
            return self.slug
        parent_path = Node.objects.filter(pk=self.parent_id).values_list("path", flat=True)
        return f"{parent_path.get()}/{self.slug}"


class PathRedirect(models.Model):
    """A URL path a node was once served at, answered with a 301 to its current URL.

    Pointing at the node rather than at a path collapses chains (renamed twice, both old
    paths lead straight to the current one), and deleting the node deletes its redirects.
    A node that later takes the path over wins: its page is looked up first.
    """

    old_path = models.CharField(max_length=1000, unique=True)
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="redirects")

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


class Link(models.Model):
    """A link in a node's body to a node: a ``[[wiki link]]`` or a Markdown link to a path.

    Derived from the body whenever it is rendered (see chapters.links); ``target`` is None for
    a broken link, and ``problem`` says why.
    """

    class Kind(models.TextChoices):
        WIKI = "wiki", "Wiki link"
        PATH = "path", "Link to a path"

    source = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="outgoing_links")
    target = models.ForeignKey(
        Node, on_delete=models.SET_NULL, null=True, blank=True, related_name="incoming_links"
    )
    kind = models.CharField(max_length=4, choices=Kind.choices)
    text = models.TextField(help_text="As written in the body.")
    problem = models.TextField(blank=True)

    def __str__(self):
        return f"{self.source} → {self.target or self.text}"

    @classmethod
    def to_paths(cls, paths):
        """Return unsaved links for Markdown links to ``paths`` (stored-path strings).

        A path resolves to the node stored there, or to the node an old path redirects to;
        paths under the site's own first segments (``/static/``, ``/search/``, ...) are not
        links to nodes and are left out.
        """
        paths = [p for p in paths if p.split("/", 1)[0] not in RESERVED_ROOT_SLUGS]
        if not paths:
            return []
        nodes = dict(Node.objects.filter(path__in=paths).values_list("path", "pk"))
        moved = dict(
            PathRedirect.objects.filter(old_path__in=paths).values_list("old_path", "node")
        )
        links = []
        for path in paths:
            target = nodes.get(path, moved.get(path))
            problem = "" if target else f"There is no page at “/{path}/”."
            links.append(
                cls(kind=cls.Kind.PATH, text=f"/{path}/", target_id=target, problem=problem)
            )
        return links

    @classmethod
    def replace(cls, source, links):
        """Make ``links`` the stored links of ``source``."""
        cls.objects.filter(source=source).delete()
        for link in links:
            link.source = source
        cls.objects.bulk_create(links)


class WikiVersion(models.Model):
    """The version of everything the reader's pages show: one row, bumped by the database.

    Migration ``0010_wiki_version`` puts triggers on the node, link and redirect tables that
    add one to ``number`` and set ``changed`` to the time, in the same transaction, on every
    insert, update or delete there: from ``save()``, django-mptt's own SQL for moves and
    inserts, ``QuerySet.update()``, bulk writes, ``loaddata``, a revert or a psql session
    alike. A trigger rather than code in ``save()`` or a signal because many of those writes
    never pass through Python code of ours, so no write path can forget the bump.

    Caches key what they keep by :meth:`current` (chapters.caching, chapters.navigation), so
    a bump invalidates everything at once without deleting a key, in every process and on
    every app server that shares the database.
    """

    number = models.BigIntegerField(default=0)
    changed = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"version {self.number} of {self.changed:%Y-%m-%d %H:%M:%S.%f}"

    @classmethod
    def current(cls):
        """Return the current version (one query).

        Returns:
            A ``(token, changed)`` pair. ``token`` is a string unique to this version: its
            number and its time to the microsecond, so that a database restored from a
            backup and edited again never reuses a token whose pages a cache still holds.
            ``changed`` is the time of the latest write. A database emptied by ``flush``
            has no row until its next write: then ``("0", None)``.

        Every cached page reads this, so it is one plain SQL statement: through the ORM
        (``values_list().first()``) it cost more than the rest of a cached page together
        (0.8 of 1.3 ms in-process on the curriculum; ``bench/README.md``).
        """
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT number, changed FROM {cls._meta.db_table} WHERE id = 1")
            row = cursor.fetchone()
        if row is None:
            return "0", None
        number, changed = row
        if isinstance(changed, str):  # SQLite hands back the text it stores, in UTC
            changed = datetime.fromisoformat(changed).replace(tzinfo=UTC)
        return f"{number}-{changed:%Y%m%d%H%M%S%f}", changed


def refresh_links_to(node):
    """Render again the nodes whose links may now resolve differently because of ``node``.

    Those are the nodes linking to ``node`` or a descendant (their links' URLs changed), and
    the nodes with a broken link (it may now find ``node``), ``node`` itself included: it was
    rendered before its new path was stored.
    """
    subtree = node.get_descendants(include_self=True).values("pk")
    affected = Link.objects.filter(Q(target__in=subtree) | Q(target=None)).values("source")
    for source in Node.objects.filter(pk__in=affected):
        source.refresh_body()


def rewrite_descendant_paths(node):
    """Recompute the stored paths of every descendant of ``node`` from its current path.

    Walks the tree by ``parent_id`` one level at a time (one query per level and one bulk
    update), so it also works while a fixture is half loaded and the nested-set fields are not
    yet consistent.

    Args:
        node: a saved node whose ``path`` is already right.

    Returns:
        A mapping of each descendant's old path to its primary key, for those that changed.

    Raises:
        ValidationError: a node is its own ancestor (only a fixture can make such a loop).
    """
    changed, moved, seen = [], {}, {node.pk}
    parents = {node.pk: node.path}
    while parents:
        children = Node.objects.filter(parent_id__in=parents).only(
            "pk", "title", "slug", "parent", "path"
        )
        children = list(children)
        for child in children:
            if child.pk in seen:
                raise ValidationError(f"“{child.title}” (pk {child.pk}) is its own ancestor.")
            seen.add(child.pk)
            new_path = f"{parents[child.parent_id]}/{child.slug}"
            if child.path != new_path:
                moved[child.path] = child.pk
                child.path = new_path
                changed.append(child)
        parents = {child.pk: child.path for child in children}
    Node.objects.bulk_update(changed, ["path"], batch_size=500)
    return moved


@receiver(post_save, sender=Node, dispatch_uid="chapters.refresh_derived_fields_on_load")
def refresh_derived_fields_on_load(sender, instance, raw, **kwargs):
    """Compute the derived fields of a node loaded from a fixture, and record it.

    ``loaddata`` saves rows raw, without calling ``Node.save()``; Django's ``post_save`` signal
    with ``raw=True`` is its one hook for such saves (django-simple-history skips raw saves).
    Whatever a fixture says about the derived fields is replaced, so a fixture cannot smuggle
    in unsanitized HTML. A revision dated as the fixture's ``updated`` is recorded when the
    row's content differs from the node's latest revision, so loading the same fixture again
    records nothing.
    """
    if not raw:
        return
    parent_path = (
        Node.objects.filter(pk=instance.parent_id).values_list("path", flat=True).first()
        if instance.parent_id
        else None
    )
    instance.path = f"{parent_path}/{instance.slug}" if parent_path else instance.slug
    links = instance.render_body()
    Node.objects.filter(pk=instance.pk).update(
        path=instance.path,
        body_html=instance.body_html,
        body_text=instance.body_text,
        headings=instance.headings,
    )
    Link.replace(instance, links)
    rewrite_descendant_paths(instance)
    PathRedirect.objects.filter(old_path=instance.path).delete()
    record_loaded_revision(instance)


def record_loaded_revision(node):
    """Record a revision of ``node`` as a fixture wrote it, unless its content is unchanged.

    Args:
        node: a node just saved raw by ``loaddata``.
    """
    latest = Node.history.filter(id=node.pk).first()
    content = {field: getattr(node, field) for field in REVISION_FIELDS}
    if latest and all(getattr(latest, field) == value for field, value in content.items()):
        return
    Node.history.model.objects.create(
        history_date=node.updated,
        history_type="~" if latest else "+",
        history_change_reason="Loaded from a fixture",
        **{
            field.attname: getattr(node, field.attname)
            for field in Node.history.model.tracked_fields
        },
    )
