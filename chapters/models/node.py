"""The curriculum's nodes: sections and chapters of one django-mptt tree.

Areas are root sections, their sections are child sections, chapters are leaves. Each node
stores derived fields that ``save()`` keeps right: ``path`` (its full URL path, so a link
costs no query), ``body_html`` (its sanitized body, so a page view renders no Markdown),
``body_text`` (the text of that HTML, which search matches), ``headings`` (the body's
headings with their ids, for the page's "On this page" list), ``sections`` (the text by
heading, formulas readable, which search quotes and opens results at) and ``words``.

Every write goes through ``save()`` or ``delete()`` here, or ``NodeManager.move_node``
(``chapters.models.tree``), in the one write to the tree (``tree_write``) that is open or in
one of their own: the tree's lock is taken first and the tree fields read after taking it.
"""

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone
from mptt.models import MPTTModel, TreeForeignKey
from simple_history.models import HistoricalRecords

from chapters.markdown import BODY_MAX_LENGTH, MERMAID_MARK
from chapters.words import identifier_parts, spaceless_grams

from . import rules
from .body import NodeBody
from .deletions import DeletionFields, NodeDeletion
from .links import PathRedirect, linking_into
from .paths import NodePaths
from .rules import PATH_MAX_LENGTH, TITLE_MAX_LENGTH, NodeRules, one_line
from .tree import NodeManager, tree_write

__all__ = [
    "REVISION_FIELDS",
    "DeletionFields",
    "Node",
]

# The fields save() computes, written whatever update_fields says.
DERIVED_FIELDS = (
    "slug", "path", "body_html", "body_text", "headings", "sections", "words", "updated",
    "title_parts", "text_parts", "grams",
)  # fmt: skip

# The fields a save reads of the node as stored, under the lock.
STORED_FIELDS = (
    "path", "title", "body", "body_html", "body_text", "headings", "sections", "words",
    "text_parts",
)  # fmt: skip

# The fields a revision records and a revert restores; the tree's own fields are left out.
REVISION_FIELDS = ("title", "slug", "kind", "status", "parent_id", "body", "requires")


class Node(NodeRules, NodePaths, NodeBody, NodeDeletion, MPTTModel):
    """A section or a chapter of the curriculum.

    Its fields and its save are here; the rest is by concern, in mixins: the rules it keeps
    (:class:`~.rules.NodeRules`), its path and place in the tree (:class:`~.paths.NodePaths`),
    its body's rendering and links (:class:`~.body.NodeBody`) and its deletion
    (:class:`~.deletions.NodeDeletion`).

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
    # The text a reader reads, by heading, formulas as readable text, for search's snippets
    # and the heading a result opens at (chapters.search.sections):
    # [{"id": "", "title": "", "text": "Before any heading"},
    #  {"id": "kernel-fusion", "title": "Kernel Fusion", "text": "Under it"}, ...].
    sections = models.JSONField(default=list, blank=True, editable=False)
    # The words of body_text, for the reading time (chapters.reading).
    words = models.PositiveIntegerField(default=0, editable=False)
    # The parts of the identifiers of the title and of body_text (chapters.words.
    # identifier_parts: "thread pool executor" of ThreadPoolExecutor), which search indexes
    # beside them (migration 0033).
    title_parts = models.TextField(blank=True, default="", editable=False)
    text_parts = models.TextField(blank=True, default="", editable=False)
    # The characters and pairs of characters of the title and body_text in the scripts
    # written without spaces (chapters.words.spaceless_grams), which search indexes to find
    # their substrings (migration 0037).
    grams = models.TextField(blank=True, default="", editable=False)
    # The ids of the chapters this one builds on, in reading order (.prerequisites).
    requires = models.JSONField(
        default=list,
        blank=True,
        help_text="The chapters this one builds on, in the order to read them.",
    )

    objects = NodeManager()
    # django-simple-history records every save (and delete) as a revision with its author and
    # edit summary; the nested-set fields and what is rendered from the body are not part of a
    # revision.
    history = HistoricalRecords(
        excluded_fields=[
            "lft",
            "rght",
            "tree_id",
            "level",
            "body_html",
            "body_text",
            "headings",
            "sections",
            "words",
            "title_parts",
            "text_parts",
            "grams",
        ],
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

    @property
    def has_mermaid(self):
        """Return whether the stored body holds a Mermaid diagram, for which its page loads
        ``static/js/diagrams.js`` (``chapters.markdown.mdx.diagrams``)."""
        return MERMAID_MARK in self.body_html

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
                meanwhile; the tree's rules refuse it where it is now (see
                :meth:`validate_in_tree`); or its prerequisites are refused (a cycle, a
                section: :meth:`validate_requires`). Nothing is written.
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
        self.validate_requires()
        stored = Node.objects.filter(pk=self.pk).values(*STORED_FIELDS).first() or {}
        old_path, old_title = stored.get("path"), stored.get("title")
        links, plain = self._rendering(write, stored)
        self.title_parts = identifier_parts(self.title)
        self.grams = spaceless_grams(self.title, self.body_text)
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
