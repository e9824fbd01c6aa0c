"""Notifications: what the wiki tells a user, listed on their notifications page and
e-mailed to them."""

from django.conf import settings
from django.db import models
from django.db.models import Count, Max, Q
from django.urls import reverse
from django.utils import timezone

__all__ = ["Notification"]


class NotificationQuerySet(models.QuerySet):
    """Querysets of notifications."""

    def unread(self):
        """Return the notifications not read yet."""
        return self.filter(read=None)

    def stamp(self, user):
        """Return a short text that changes whenever ``user`` is told something or reads a
        notification (one query).

        Every signed-in page's header shows how many notifications wait unread, and its
        ETag (``chapters.caching``) carries this, since a notification bumps no version.

        Returns:
            ``"<unread>.<newest id>"``, or ``""`` for a user never told anything.
        """
        found = self.filter(recipient=user).aggregate(
            unread=Count("pk", filter=Q(read=None)), newest=Max("pk")
        )
        if found["newest"] is None:
            return ""
        return f"{found['unread']}.{found['newest']}"


class Notification(models.Model):
    """A message to one user about the wiki: a change to a page they watch, a change
    waiting for review, a review's decision (``chapters.edit.notify`` writes them).

    Rows are written in the transaction of what they tell of. The user sees them on their
    notifications page (``/notifications/``, with the count of unread ones in every page's
    header) until they open or mark them ``read``; a background task
    (``chapters.tasks.send_notifications``) e-mails them, marking each one ``emailed`` as it
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
    read = models.DateTimeField(
        null=True, blank=True, help_text="When its recipient opened it or marked it read."
    )

    objects = NotificationQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "key"], name="one_notification_per_user_and_key"
            )
        ]
        indexes = [models.Index(fields=["recipient", "read"], name="notification_unread")]

    def __str__(self):
        return f"To {self.recipient}: {self.subject}"

    def get_absolute_url(self):
        """Return the address that marks the notification read and opens its page."""
        return reverse("chapters:notification", args=[self.pk])
