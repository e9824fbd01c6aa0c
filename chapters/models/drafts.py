"""Drafts that save themselves: an editor's unsaved form, kept on the server.

Not a page's "Draft" status: an :class:`EditDraft` is what someone typed into the site's
editor and has not saved yet, written every few seconds by the editor's script, offered back
when they open the editor again, and deleted when they save.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from .rules import Status

__all__ = ["EditDraft"]


class EditDraft(models.Model):
    """One user's unsaved form for one page, or for a new chapter in one section."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="edit_drafts"
    )
    node = models.ForeignKey(
        "chapters.Node",
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The page edited, or the section a new chapter goes into.",
    )
    adding = models.BooleanField(default=False, help_text="A new chapter in ``node``.")
    title = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, blank=True)
    parent = models.ForeignKey(
        "chapters.Node", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    body = models.TextField(blank=True)
    # The prerequisites as typed (page paths, chapters.edit.prerequisites).
    requires = models.TextField(blank=True)
    summary = models.CharField(max_length=255, blank=True)
    base_revision = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="The revision the form was opened at."
    )
    conflicts = models.TextField(blank=True, help_text="The form's unresolved field conflicts.")
    updated = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "node", "adding"], name="one_draft_per_user_and_page"
            )
        ]

    def __str__(self):
        return f"Draft by {self.user} of “{self.title}”"

    def field_problems(self):
        """Return what is wrong with the draft's status, as ``PendingChange.field_problems``
        does for a change: blank (the form had none) or a node's ``Status``."""
        allowed = ["", *Status.values]
        if self.status in allowed:
            return []
        return [f"the status “{self.status}” is not one of {', '.join(Status.values)}."]
