"""Notifications: what the wiki tells a user, kept until it is e-mailed to them."""

from django.conf import settings
from django.db import models
from django.utils import timezone

__all__ = ["Notification"]


class Notification(models.Model):
    """A message to one user about the wiki: a change to a page they watch, a change
    waiting for review, a review's decision (``chapters.edit.notify`` writes them).

    Rows are written in the transaction of what they tell of, and e-mailed by a background
    task (``chapters.tasks.send_notifications``), which marks each one ``emailed`` as it
    goes: a task run again after a failure, or after its worker died, sends only what was
    not sent. ``key`` names what the message is about ("revisions:12-15",
    "change:7:proposed"), one message per user and key, so telling twice tells once.
    """

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    key = models.CharField(max_length=100)
    subject = models.CharField(max_length=255)
    body = models.TextField()
    url = models.CharField(max_length=2000, help_text="The page the message is about.")
    created = models.DateTimeField(default=timezone.now)
    emailed = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "key"], name="one_notification_per_user_and_key"
            )
        ]

    def __str__(self):
        return f"To {self.recipient}: {self.subject}"
