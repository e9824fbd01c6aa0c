"""Webhooks: the addresses admins register to be told of the wiki's events, and the log of
each delivery (``chapters.webhooks`` derives the events and sends them).

Like pending changes and notifications, these tables are watched by no trigger of migration
``0010_wiki_version``: registering a webhook or logging a delivery changes nothing readers
see.
"""

import secrets
import uuid

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

__all__ = ["Webhook", "WebhookDelivery", "new_secret", "validate_webhook_url"]


def new_secret():
    """Return a new random secret for signing a webhook's payloads (43 URL-safe characters,
    32 random bytes: as long as the HMAC-SHA256 key RFC 2104 recommends)."""
    return secrets.token_urlsafe(32)


def validate_webhook_url(value):
    """Refuse a URL the wiki may not send to (``chapters.webhooks.addresses.check_url``).

    Raises:
        ValidationError: saying why, with the code ``refused``.
    """
    from chapters.webhooks.addresses import RefusedAddress, check_url

    try:
        check_url(value)
    except RefusedAddress as refused:
        raise ValidationError(str(refused), code="refused") from refused


class Webhook(models.Model):
    """An address told of the events it subscribes to, by a signed JSON ``POST``."""

    class Event(models.TextChoices):
        PAGE_PUBLISHED = "page.published", "Page published"
        PAGE_CHANGED = "page.changed", "Page changed"
        PAGE_MOVED = "page.moved", "Page moved"
        PAGE_DELETED = "page.deleted", "Page deleted"
        REVIEW_REQUESTED = "review.requested", "Review requested"
        REVIEW_DECIDED = "review.decided", "Review decided"

    name = models.CharField(max_length=100, help_text="What the receiver is, for the admin.")
    url = models.URLField(
        "URL",
        max_length=500,
        validators=[validate_webhook_url],
        help_text="Where the wiki POSTs the events, over http or https. Addresses that are "
        "private, loopback, link-local or reserved are refused unless "
        "WIKI_WEBHOOK_ALLOW_PRIVATE allows their network.",
    )
    secret = models.CharField(
        max_length=200,
        default=new_secret,
        help_text="The key of the HMAC-SHA256 signature in each delivery's X-Wiki-Signature "
        "header; give the receiver the same.",
    )
    events = models.JSONField(default=list, help_text="The events the receiver is told of.")
    active = models.BooleanField(default=True, help_text="Uncheck to stop deliveries.")
    created = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name

    def clean(self):
        """Refuse an empty list of events or an event the wiki does not have."""
        unknown = sorted(set(self.events or ()) - set(self.Event.values))
        if unknown:
            raise ValidationError({"events": f"Unknown events: {', '.join(unknown)}."})
        if not self.events:
            raise ValidationError({"events": "Choose at least one event."})


class WebhookDelivery(models.Model):
    """One event sent, or to send, to one webhook, and how its attempts went.

    Its ``id`` is the delivery id of the ``X-Wiki-Delivery`` header; ``key`` names what the
    event is about (``revision:12``, ``change:3:proposed:1``), so that an event is delivered
    once to each webhook however often the task deriving it runs.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=30, choices=Webhook.Event.choices)
    key = models.CharField(max_length=100)
    payload = models.JSONField()
    created = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveIntegerField(default=0)
    last_attempt = models.DateTimeField(null=True, blank=True)
    delivered = models.DateTimeField(null=True, blank=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response = models.TextField(blank=True, help_text="The start of the receiver's answer.")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created", "pk"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["webhook", "event", "key"], name="webhook_delivery_once"
            )
        ]

    def __str__(self):
        return f"{self.event} to {self.webhook}"

    @property
    def state(self):
        """Return ``"delivered"``, ``"failed"`` (its last attempt failed) or ``"waiting"``."""
        if self.delivered:
            return "delivered"
        return "failed" if self.attempts else "waiting"
