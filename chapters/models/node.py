"""The curriculum's nodes: sections and chapters of one django-mptt tree.

Areas are root sections, their sections are child sections, chapters are leaves. Each node
stores four derived fields that ``save()`` keeps right: ``path`` (its full URL path, so a link
costs no query), ``body_html`` (its sanitized body, so a page view renders no Markdown),
``body_text`` (the text of that HTML, which search matches and quotes) and ``headings`` (the
body's headings with their ids, for the page's "On this page" list).

Every write goes through ``save()`` or ``delete()`` here, or ``NodeManager.move_node``
(``chapters.models.tree``), in the one write to the tree (``tree_write``) that is open or in
one of their own: the tree's lock is taken first and the tree fields read after taking it.
"""

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Max, Value
from django.db.models.functions import Concat, Substr
from django.urls import reverse
from django.utils import timezone
from mptt.models import MPTTModel, TreeForeignKey
from simple_history.models import HistoricalRecords

from chapters.markdown import BODY_MAX_LENGTH, MarkdownError

from . import rules
from .deletions import DeletionFields, mark_deletion
from .links import Link, PathRedirect, linking_into
from .media import MediaUse
from .rendering import render_unresolved, resolve
from .rules import PATH_MAX_LENGTH, RESERVED_ROOT_SLUGS, TITLE_MAX_LENGTH, NodeRules, one_line
from .tree import TREE_FIELDS, NodeManager, set_mptt_memory, tree_write
from .watches import Watch

__all__ = [
    "REVISION_FIELDS",
    "DeletionFields",
    "Node",
    "path_links",
]

# The fields save() computes, written whatever update_fields says.
DERIVED_FIELDS = ("slug", "path", "body_html", "body_text", "headings", "updated")

# The fields a save reads of the node as stored, under the lock.
STORED_FIELDS = ("path", "title", "body", "body_html", "body_text", "headings")

# The fields of a parent that the tree's rules read (validate_placement), besides its place.
PLACEMENT_FIELDS = ("kind", "title", "path")

# The fields a revision records and a revert restores; the tree's own fields are left out.
REVISION_FIELDS = ("title", "slug", "kind", "status", "parent_id", "body")


class Node(NodeRules, MPTTModel):
    """A section or a chapter of the curriculum.

    Siblings are ordered by their place in the tree, which only the tree sets (there is no
    ``order_insertion_by``): the editor's order is the order.
    """

    Kind, Status = rules.Kind, rules.Status

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
        # The Reviewer role's permission (chapters.permissions.can_publish).
        permissions = [("publish_node", "Can publish and unpublish nodes and approve changes")]
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
            *rules.CHOICE_CONSTRAINTS,
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

    def save(self, *args, **kwargs):
        """Save the node as a new revision, keeping the derived fields right.

        Fills in the slug, renders the body once, moves ``updated`` to now (the revision's
        date), and when the node's path changed (a rename or a move) rewrites the paths of
        all its descendants and keeps every old path as a redirect. All of it is one
        transaction in the write to the tree that is open (:func:`~.tree.tree_write`), or in
        one of its own; the node's and its parent's places in the tree, the old path and the
        parent's path are read from the database under the write's lock, not from possibly
        stale instances. ``update_fields`` always includes the derived fields. The revision's
        author and summary are the node's (``_history_user``, ``_change_reason``), else the
        write's; the summary is stored on one line (``rules.one_line``).

        The tree's rules are checked again under the lock (:meth:`validate_in_tree`),
        whatever a form checked before: another editor may have moved, deleted or changed a
        node since. The pages linking into a node that moved, and those whose broken links a
        new title or path may mend, are rendered again by tasks once the write commits.

        Raises:
            ValidationError: the title or body is too long (see :meth:`check_lengths`); a
                field holds what it may not (:meth:`check_fields`); the node was deleted
                meanwhile; or the tree's rules refuse it where it is now (see
                :meth:`validate_in_tree`). Nothing is written.
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        with tree_write(bodies=[self.body]) as write, transaction.atomic():
            self._save_in(write, *args, **kwargs)

    def _save_in(self, write, *args, **kwargs):
        """Save the node in ``write``, its lock held (see :meth:`save`)."""
        self.check_lengths()
        if not self.refresh_tree_fields() and not self._state.adding:
            raise ValidationError(
                f"“{self.title}” was deleted by someone else meanwhile; nothing was saved."
            )
        self.fill_slug()
        self.check_fields()
        self.validate_in_tree()
        stored = Node.objects.filter(pk=self.pk).values(*STORED_FIELDS).first() or {}
        old_path, old_title = stored.get("path"), stored.get("title")
        links, plain = self._rendering(write, stored)
        self.updated = self._history_date = timezone.now()
        if getattr(self, "_history_user", None) is None and write.user is not None:
            self._history_user = write.user
        if getattr(self, "_change_reason", None) is None and write.summary:
            self._change_reason = write.summary
        if getattr(self, "_change_reason", None) is not None:
            self._change_reason = one_line(self._change_reason)
        self.path = self.build_path()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], *DERIVED_FIELDS}
        super().save(*args, **kwargs)
        if links is not None:
            self.store_references(links)
        if plain:
            write.render.add(self.pk)
        if old_path != self.path:
            moved = {old_path: self.pk} if old_path else {}
            moved.update(self._rewrite_descendant_paths(old_path))
            # The node and its descendants take over the old paths they now live at.
            taken = [self.path, *(self.path + old[len(old_path) :] for old in moved if old)]
            PathRedirect.record(moved, taken=taken)
            write.render.update(linking_into(self))
        if old_path != self.path or old_title != self.title:
            subtree = self.get_descendants(include_self=True)
            write.mend_titles.update({old_title, *subtree.values_list("title", flat=True)} - {None})
            write.mend_paths.update(subtree.values_list("path", flat=True))

    def _rewrite_descendant_paths(self, old_path):
        """Move the stored paths of this node's descendants from ``old_path`` to its path.

        One ``UPDATE`` replacing the prefix, as Wagtail rewrites its pages' ``url_path``
        (``wagtail.models.Page._update_descendant_url_paths``). The descendants are found by
        their nested-set fields as stored after the save, not by the prefix: SQLite's
        ``LIKE`` ignores case, so a prefix would also match a section whose slug differs
        only in case.

        Args:
            old_path: the node's path before the save; None for a node just added, whose
                descendants are none.

        Returns:
            A mapping of each descendant's old path to its primary key.
        """
        if old_path is None:
            return {}
        tree_id, lft, rght = (
            type(self).objects.filter(pk=self.pk).values_list("tree_id", "lft", "rght").get()
        )
        descendants = type(self).objects.filter(tree_id=tree_id, lft__gt=lft, rght__lt=rght)
        moved = dict(descendants.values_list("path", "pk"))
        if moved:
            rest = Substr("path", len(old_path) + 1)
            descendants.update(path=Concat(Value(self.path), rest, output_field=models.TextField()))
        return moved

    def delete(self, *args, **kwargs):
        """Delete the node and its descendants as one deletion; have the nodes that linked to
        them rendered again.

        simple-history records a "-" revision for every node deleted. They are then given one
        date and author, each node's place among its siblings (``deleted_after``), the id of
        this node's "-" revision (``deletion``) and a summary ("Deleted" unless one was given;
        "Deleted with “<title>”" for the descendants), and each node's pending changes and
        drafts (``kept``: :mod:`.kept`), so the subtree can be restored
        (``chapters.recovery``). One transaction in the open write to the tree (or one of its
        own), with the node's place read under its lock. The users watching the nodes
        deleted are named to the write, as their watches go with the nodes, so that they
        hear of it; the nodes linking to them are rendered again by a task once it commits.
        A node no longer in the database (the admin's bulk delete reaches a node after
        deleting its ancestor) is not deleted again, which would record a second deletion and
        make django-mptt close its gap in the tree again, by its numbers in memory.

        Returns:
            Django's ``(count, counts by model)``; ``(0, {})`` for a node already deleted.
        """
        with tree_write() as write, transaction.atomic():
            return self._delete_in(write, *args, **kwargs)

    def _delete_in(self, write, *args, **kwargs):
        """Delete the node in ``write``, its lock held (see :meth:`delete`)."""
        if not self.refresh_tree_fields():
            return 0, {}
        previous = self.get_previous_sibling()
        pk = self.pk  # Django sets it to None on delete
        after, last_child = {pk: previous.pk if previous else None}, {}
        for child, parent_id in self.get_descendants().values_list("pk", "parent_id"):
            after[child], last_child[parent_id] = last_child.get(parent_id), child
        linking = Node.objects.filter(outgoing_links__target__in=list(after)).exclude(
            pk__in=list(after)
        )
        write.render.update(linking.values_list("pk", flat=True))
        watching = Watch.objects.filter(node__in=list(after)).values_list("user", flat=True)
        write.watchers.setdefault(pk, set()).update(watching)
        titles = set(self.get_descendants(include_self=True).values_list("title", flat=True))
        from .kept import keep  # kept imports the models importing this module

        kept = keep(list(after))
        recorded = Node.history.aggregate(latest=Max("history_id"))["latest"] or 0
        self._history_date = timezone.now()
        if getattr(self, "_history_user", None) is None and write.user is not None:
            self._history_user = write.user
        deleted = super().delete(*args, **kwargs)
        records = list(
            Node.history.filter(history_type="-", id__in=list(after), history_id__gt=recorded)
        )
        mark_deletion(records, pk, after, kept, write.summary)
        # A link that could mean one of them and another page now means the other.
        write.mend_titles.update(titles)
        return deleted

    def refresh_tree_fields(self):
        """Read this node's place in the tree, and its parent's, from the database again.

        django-mptt inserts and moves by the nested-set numbers in memory (the node's and its
        parent's), and takes a save for a move when ``parent`` differs from the parent the
        instance was loaded with; another process may have changed both since. Called after
        the write's lock, this makes the save work from the tree as it is: the node's tree
        fields and its parent's are the stored ones, and a save moves the node only if its
        stored parent differs from ``parent``.

        Returns:
            False if the node has a primary key but is not stored (it was deleted meanwhile,
            or is being restored with its old key), and then nothing is read; True otherwise.

        Raises:
            ValidationError: the parent is no longer stored.
        """
        if self.pk is not None:
            stored = Node.objects.filter(pk=self.pk).values("parent_id", *TREE_FIELDS).first()
            if stored is None:
                return False
            set_mptt_memory(self, loaded_parent=stored.pop("parent_id"))
            for field, value in stored.items():
                setattr(self, field, value)
        if self.parent_id is not None:
            try:
                self.parent.refresh_from_db(fields=[*TREE_FIELDS, *PLACEMENT_FIELDS])
            except Node.DoesNotExist:
                raise ValidationError(
                    {"parent": f"The section “{self.parent.title}” no longer exists."}
                ) from None
        return True

    def _rendering(self, write, stored):
        """Set the derived fields of the body under the write's lock; return its links.

        A body the node has stored keeps its stored rendering (a move, a rename, a change of
        status renders nothing; pages whose links a move changes are rendered again by a
        task). A body the write rendered before its lock (``tree_write(bodies=...)``) only
        has its wiki links resolved (:func:`~.rendering.resolve`). Any other body is
        rendered here with its code plain, running no lexer under the lock, and the write
        has a task render it again, highlighted, once it commits.

        Args:
            write: the open :class:`~.tree.TreeWrite`.
            stored: the node's :data:`STORED_FIELDS` as stored, or ``{}`` for a new node.

        Returns:
            ``(links, plain)``: the body's links, unsaved, or None when the stored ones are
            kept; and whether the body was rendered plain.

        Raises:
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        if stored and stored["body"] == self.body:
            for name in ("body_html", "body_text", "headings"):
                setattr(self, name, stored[name])
            return None, False
        rendered = write.rendered.get(self.body)
        plain = rendered is None
        if plain:
            rendered = render_unresolved(self.body, highlight=False)
        return self._resolve(rendered), plain and "<pre" in rendered.html

    def _resolve(self, rendered):
        """Set the derived fields from ``rendered``, its wiki links resolved; return the
        body's links, unsaved (see :meth:`render_body`)."""
        if rendered.error is not None:
            raise rendered.error
        self.body_html, links = resolve(rendered, self, path_links)
        self.body_text, self.headings = rendered.text, rendered.headings
        self.rendered_media = rendered.media
        return links

    def render_body(self, *, highlight=True):
        """Render the body into ``body_html``, ``body_text`` and ``headings``; return its
        links, unsaved.

        Its references to the media library are kept, unsaved, in ``rendered_media``
        (:class:`~chapters.models.media.MediaUse`); :meth:`store_references` stores both.

        Args:
            highlight: False to show code plain, running no lexer (under the tree's lock).

        Raises:
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        return self._resolve(render_unresolved(self.body, highlight=highlight))

    def store_references(self, links):
        """Store ``links`` and the media references :meth:`render_body` found as this
        node's."""
        Link.replace(self, links)
        MediaUse.replace(self, self.rendered_media)

    def refresh_body(self):
        """Render the body again and store it with its links, without a new revision.

        For when what the body links to changed, not the body: it is no edit of this node.
        The body is rendered outside any lock, then stored only if the node was not saved
        since it was read (its ``updated`` is the same): a save meanwhile rendered the body
        it stored, and is left as it is. A body stored before the current limits that they
        refuse keeps its stored HTML and links, so a change elsewhere never fails because
        of it.

        Returns:
            True if the rendering was stored.
        """
        try:
            links = self.render_body()
        except MarkdownError:
            return False
        with transaction.atomic():
            stored = Node.objects.filter(pk=self.pk, updated=self.updated).update(
                body_html=self.body_html, body_text=self.body_text, headings=self.headings
            )
            if stored:
                self.store_references(links)
        return bool(stored)

    def build_path(self):
        """Return the URL path from the parent's stored path and this node's slug."""
        if self.parent_id is None:
            return self.slug
        parent_path = Node.objects.filter(pk=self.parent_id).values_list("path", flat=True)
        return f"{parent_path.get()}/{self.slug}"


def path_links(paths):
    """Return unsaved links for Markdown links to ``paths`` (stored-path strings).

    A path resolves to the node stored there, or to the node an old path redirects to;
    paths under the site's own first segments (``/static/``, ``/search/``, ...) are not
    links to nodes and are left out.

    Args:
        paths: stored-path strings, as ``chapters.markdown.internal_paths`` returns them.

    Returns:
        A list of unsaved :class:`~chapters.models.links.Link` of kind ``path``.
    """
    paths = [p for p in paths if p.split("/", 1)[0] not in RESERVED_ROOT_SLUGS]
    if not paths:
        return []
    nodes = dict(Node.objects.filter(path__in=paths).values_list("path", "pk"))
    moved = dict(PathRedirect.objects.filter(old_path__in=paths).values_list("old_path", "node"))
    links = []
    for path in paths:
        target = nodes.get(path, moved.get(path))
        problem = "" if target else f"There is no page at “/{path}/”."
        links.append(Link(kind=Link.Kind.PATH, text=f"/{path}/", target_id=target, problem=problem))
    return links
