"""Discussion: the comments readers leave on a chapter, one thread per chapter.

A comment's Markdown is rendered once, on save, through the sanitizer
(``chapters.markdown.render_comment``). Comments live in a table of their own that no trigger
of migration ``0010_wiki_version`` watches: a conversation never bumps the wiki's version, so
no page kept for readers is thrown away when someone comments (``chapters.discussion``).
"""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

__all__ = ["Comment"]


class CommentQuerySet(models.QuerySet):
    """Querysets of comments."""

    def shown(self):
        """Return the comments readers see counted: neither deleted nor hidden."""
        return self.filter(deleted=None, hidden_at=None)

    def thread(self, node):
        """Return the comments on ``node`` in reading order: each top comment, oldest first,
        followed by its replies, oldest first (one query, authors and hiders joined).

        A top comment's empty ``parent`` sorts first in its group on every database
        (PostgreSQL puts NULLs last in ascending order, SQLite first).
        """
        found = self.filter(node=node).select_related("author", "hidden_by")
        return found.order_by(
            models.functions.Coalesce("parent_id", "id"),
            models.F("parent_id").asc(nulls_first=True),
            "created",
            "pk",
        )


class Comment(models.Model):
    """A comment on a chapter, or a reply to one (replies go one level deep).

    A reply to a reply is stored as a reply to its top comment (``chapters.discussion``).
    Deleting a comment that has replies keeps its place, shown as "deleted", so the replies
    still read in order; one without replies goes. A moderator hides a comment: its text
    stays in the database, shown to nobody, and it no longer counts.
    """

    node = models.ForeignKey("chapters.Node", on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="comments"
    )
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="replies",
        help_text="The top comment this replies to; empty for a top comment.",
    )
    body = models.TextField(help_text="Markdown, as typed.")
    body_html = models.TextField(
        editable=False, help_text="The body rendered and sanitized (render_comment)."
    )
    created = models.DateTimeField(default=timezone.now)
    edited = models.DateTimeField(null=True, blank=True)
    deleted = models.DateTimeField(
        null=True, blank=True, help_text="When its author deleted it; its replies kept it."
    )
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    hidden_at = models.DateTimeField(null=True, blank=True)

    objects = CommentQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["node", "created"], name="comment_node_created")]

    def __str__(self):
        return f"Comment {self.pk} by {self.author} on “{self.node}”"

    def get_absolute_url(self):
        """Return the comment's place in its chapter's thread."""
        return f"{reverse('chapters:discussion', args=[self.node.path])}#comment-{self.pk}"

    @property
    def is_hidden(self):
        """Return True when a moderator hid the comment."""
        return self.hidden_at is not None
