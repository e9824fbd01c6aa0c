"""Changes awaiting review: an edit of a published page by someone who may not publish it.

Readers keep seeing the published page until a reviewer approves the change
(``chapters.edit.workflow``). Pending changes live in their own table, which no trigger of
migration ``0010_wiki_version`` watches: proposing one changes nothing readers see, so it
leaves the wiki's version, and every page kept for readers, as they are.
"""

from datetime import UTC

from django.conf import settings
from django.db import models
from django.db.models import Count, Max
from django.urls import reverse
from django.utils import timezone

from .rules import Status

__all__ = ["PendingChange", "ReviewComment"]


class PendingChangeQuerySet(models.QuerySet):
    """Querysets of pending changes."""

    def waiting(self):
        """Return the changes not yet decided, oldest first."""
        return self.filter(state=PendingChange.State.PENDING).order_by("created", "pk")

    def sent_back_to(self, user, node):
        """Return ``user``'s latest change to ``node`` that was sent back and that they have
        not taken up since, or None (one query).

        Its author has taken it up when they proposed a change to the page after the
        decision, or saved the page themselves after it (once it was a draft again, say).
        The page's and the editor's banner (``chapters.edit``) offer to continue it.

        Args:
            user: the author, signed in.
            node: the page.
        """
        later_change = PendingChange.objects.filter(
            node=node, author=user, created__gt=models.OuterRef("decided")
        ).exclude(pk=models.OuterRef("pk"))
        later_save = type(node).history.filter(
            id=node.pk, history_user=user, history_date__gt=models.OuterRef("decided")
        )
        found = self.filter(node=node, author=user, state=PendingChange.State.SENT_BACK)
        found = found.exclude(models.Exists(later_change)).exclude(models.Exists(later_save))
        return found.select_related("reviewer").order_by("-decided", "-pk").first()

    def stamp(self):
        """Return a short text that changes whenever any change is proposed, updated or
        decided (one query).

        Signed-in editors' pages say which pages have a change waiting, and their ETags
        (``chapters.caching``) carry this, since a proposal does not bump the wiki's
        version. Empty while there has never been a pending change.
        """
        found = self.aggregate(count=Count("pk"), last=Max("updated"))
        if not found["count"]:
            return ""
        return f"{found['count']}.{found['last']:%Y%m%d%H%M%S%f}"


class PendingChange(models.Model):
    """A proposed edit of a published page, with the review's decision once there is one.

    The proposal holds the fields the site's editor edits (title, status, parent, body) and
    the revision it was made from (``base_revision``), so that approving it after the page
    changed merges the two three ways instead of undoing the other change.
    """

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        SENT_BACK = "sent_back", "Sent back"

    node = models.ForeignKey(
        "chapters.Node", on_delete=models.CASCADE, related_name="pending_changes"
    )
    base_revision = models.PositiveBigIntegerField(
        help_text="The id of the page's revision the change was made from."
    )
    title = models.CharField(max_length=200)
    status = models.CharField(max_length=10)
    parent = models.ForeignKey(
        "chapters.Node",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The section proposed; empty if it was deleted since.",
    )
    body = models.TextField(blank=True)
    requires = models.JSONField(
        default=list, blank=True, help_text="The prerequisites' ids (``Node.requires``)."
    )
    slug = models.SlugField(
        max_length=100,
        blank=True,
        allow_unicode=True,
        help_text="The address proposed for the page (the outline's slug change); empty: "
        "the page keeps its own.",
    )
    target = models.ForeignKey(
        "chapters.Node",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The outline's move: the page placed beside or into, with position.",
    )
    position = models.CharField(
        max_length=10,
        blank=True,
        choices=[
            ("left", "Before"),
            ("right", "After"),
            ("last-child", "Last in"),
        ],
    )
    summary = models.CharField(max_length=255, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pending_changes"
    )
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(default=timezone.now)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    comment = models.TextField(blank=True, help_text="The reviewer's word with their decision.")
    decided = models.DateTimeField(null=True, blank=True)

    objects = PendingChangeQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["node", "state"])]

    def __str__(self):
        return f"Change to “{self.node}” by {self.author} ({self.get_state_display()})"

    def get_absolute_url(self):
        """Return the page showing the change, its diff and the review's forms."""
        return reverse("chapters:change", args=[self.pk])

    @property
    def version(self):
        """Return a text that changes whenever the change is edited or decided: the time it
        was last ``updated``, in UTC, to the microsecond.

        The reviewer's decision form carries the version they saw, and the workflow refuses
        a decision on any other (``chapters.edit.workflow``): a reviewer approves only the
        text they were shown.
        """
        return f"{self.updated.astimezone(UTC):%Y%m%d%H%M%S%f}"

    def field_problems(self):
        """Return what is wrong with the change's choices, each checked alone.

        The ``loaddata`` command checks every row of a fixture with this, as it checks a
        node's with ``Node.field_problems``: Django's ``loaddata`` stores rows raw, and a
        state or status that is not a choice would break the review's pages.

        Returns:
            Sentences in lower case ending with a full stop, as ``Node.field_problems``'s:
            a state that is not a ``State``, a status that is not a node's ``Status``, a
            position that is none of the outline's.
        """
        positions = ["", *dict(self._meta.get_field("position").choices)]
        choices = (
            ("state", self.State.values),
            ("status", Status.values),
            ("position", positions),
        )
        return [
            f"the {field} “{getattr(self, field)}” is not one of {', '.join(values)}."
            for field, values in choices
            if getattr(self, field) not in values
        ]

    def place(self):
        """Return where the change moves the page in its section, in words ("after “Loops”"),
        or "" when it keeps its place (or the page it was placed by was deleted since)."""
        if not self.position or self.target is None:
            return ""
        return f"{self.get_position_display().lower()} “{self.target.title}”"

    def fields(self):
        """Return the proposed fields by name, as a revision's fields are named."""
        return {
            "title": self.title,
            "status": self.status,
            "parent_id": self.parent_id,
            "body": self.body,
            "requires": self.requires,
        }


class ReviewComment(models.Model):
    """A comment on a pending change, by a reviewer or its author: on the change as a whole,
    or on one line of its diff, as code review tools comment on a line.

    ``line`` names the line as the change's diff numbers it (``chapters.diff.diff_text``
    against the revision the change was made from): ``"new-12"`` for the proposed text's
    12th line (an added or unchanged line), ``"old-3"`` for a line the change removes; empty
    for a comment on the whole change.
    """

    change = models.ForeignKey(PendingChange, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    line = models.CharField(max_length=16, blank=True)
    text = models.TextField(max_length=4000)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self):
        where = f" on line {self.line}" if self.line else ""
        return f"Comment by {self.author}{where} on {self.change}"
