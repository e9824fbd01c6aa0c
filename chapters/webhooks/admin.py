"""Webhooks in Django's admin: register, change and stop them; read each delivery's log.

Who may is Django's model permissions (superusers have them all). The log is read-only:
deliveries are written by the tasks sending them (``chapters.webhooks.delivery``).
"""

import json

from django import forms
from django.contrib import admin
from django.db import models
from django.utils.html import format_html

from ..models import Webhook, WebhookDelivery

__all__ = ["WebhookAdmin", "WebhookDeliveryAdmin", "WebhookForm"]

# A URL typed without a scheme is taken as https, as Django 6.0 will by default.
ASSUME_HTTPS = {models.URLField: {"assume_scheme": "https"}}


class WebhookForm(forms.ModelForm):
    """A webhook, its events chosen with checkboxes."""

    events = forms.MultipleChoiceField(
        choices=Webhook.Event.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text="The events the receiver is told of.",
    )

    class Meta:
        model = Webhook
        fields = ["name", "url", "secret", "events", "active"]
        formfield_callback = staticmethod(
            lambda field, **kwargs: field.formfield(
                **{**ASSUME_HTTPS.get(type(field), {}), **kwargs}
            )
        )


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """Register webhooks; each one's URL is checked (``chapters.webhooks.addresses``)."""

    form = WebhookForm
    formfield_overrides = ASSUME_HTTPS
    list_display = ["name", "url", "active", "events_list", "created"]
    list_filter = ["active"]
    search_fields = ["name", "url"]
    fieldsets = [
        (None, {"fields": ["name", "url", "active"]}),
        ("What it hears of", {"fields": ["events"]}),
        ("Signature", {"fields": ["secret"]}),
    ]

    @admin.display(description="Events")
    def events_list(self, webhook):
        """Return the webhook's events, comma-separated."""
        return ", ".join(webhook.events)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The delivery log: each event sent to a webhook and how its attempts went."""

    list_display = [
        "created",
        "webhook",
        "event",
        "state",
        "attempts",
        "status_code",
        "last_attempt",
    ]
    list_filter = ["event", "webhook"]
    list_select_related = ["webhook"]
    date_hierarchy = "created"
    fields = [
        "id",
        "webhook",
        "event",
        "key",
        "created",
        "state",
        "attempts",
        "last_attempt",
        "delivered",
        "status_code",
        "error",
        "response",
        "payload_json",
    ]
    readonly_fields = fields

    @admin.display(description="Payload")
    def payload_json(self, delivery):
        """Return the payload, indented, in a ``<pre>`` (escaped by ``format_html``)."""
        return format_html("<pre>{}</pre>", json.dumps(delivery.payload, indent=2))

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
