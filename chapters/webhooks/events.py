"""The events webhooks hear of, and their payloads.

Page events are derived from the revisions one write to the tree recorded
(:func:`announce_revisions`, run by a task once the write committed), each revision
compared with the page's revision before it:

- ``page.changed``: a page added, or its title, body, status or kind changed;
- ``page.published``: its status became *published* (or it was added published);
- ``page.moved``: its path changed (a new section, a new slug); the pages under a moved
  section move with it and are not told of one by one;
- ``page.deleted``: a page deleted; those deleted with a section are the section's
  deletion, counted in its payload.

One revision may be several events (a page renamed and published at once). Review events
are announced in the proposal's or the decision's own transaction
(:func:`review_requested`, :func:`review_decided`). Each event becomes one
:class:`~chapters.models.WebhookDelivery` per active webhook subscribed to it, and one task
sending it.
"""

from django.db.models import Max
from django.urls import reverse

from .. import queue
from ..models import Node, Webhook, WebhookDelivery

__all__ = [
    "CONTENT_FIELDS",
    "announce",
    "announce_revisions",
    "review_decided",
    "review_requested",
]

Event = Webhook.Event

# The fields whose change is a page.changed event.
CONTENT_FIELDS = ("title", "body", "status", "kind")


def announce(event, key, payload, webhooks=None):
    """Record a delivery of ``payload`` to every active webhook subscribed to ``event``, and
    enqueue the task sending each; an event of ``key`` delivered to a webhook already is not
    delivered again.

    Call in the transaction of what it announces, so that deliveries exist exactly when it
    committed.

    Args:
        event: a :class:`~chapters.models.Webhook.Event` value.
        key: what the event is about, the same for every webhook (``revision:12``).
        payload: the JSON object sent.
        webhooks: the active webhooks, when the caller read them already.

    Returns:
        The number of deliveries recorded.
    """
    recorded = 0
    for webhook in Webhook.objects.filter(active=True) if webhooks is None else webhooks:
        if event not in webhook.events:
            continue
        delivery, created = WebhookDelivery.objects.get_or_create(
            webhook=webhook, event=event, key=key, defaults={"payload": payload}
        )
        if created:
            queue.enqueue("deliver_webhook", str(delivery.pk))
            recorded += 1
    return recorded


def _page(node_id, title, path, base_url, *, gone=False):
    """Return the payload's ``page``: id, title, path and address (None once deleted)."""
    url = None if gone else base_url.rstrip("/") + reverse("chapters:node", args=[path])
    return {"id": node_id, "title": title, "path": path, "url": url}


def _payload(event, revision, base_url, **more):
    """Return the payload of a page event told of by ``revision``."""
    return {
        "event": event,
        "page": _page(
            revision.id,
            revision.title,
            revision.path,
            base_url,
            gone=revision.history_type == "-",
        ),
        "status": revision.status,
        "revision": revision.history_id,
        "author": revision.history_user.get_username() if revision.history_user else None,
        "summary": revision.history_change_reason or "",
        "timestamp": revision.history_date.isoformat(),
        **more,
    }


def _previous(revisions, first):
    """Return, per node id, the latest revision recorded before revision ``first`` of
    the nodes of ``revisions`` (two queries)."""
    latest = (
        Node.history.filter(id__in={r.id for r in revisions}, history_id__lte=first)
        .order_by()
        .values("id")
        .annotate(latest=Max("history_id"))
        .values_list("latest", flat=True)
    )
    return {r.id: r for r in Node.history.filter(history_id__in=list(latest))}


def _events(revision, before, under):
    """Return the events one revision is, with what each payload adds."""
    if revision.history_type == "-":
        if revision.deletion not in (None, revision.history_id):
            return []
        return [(Event.PAGE_DELETED, {"pages_deleted_with_it": under})]
    found = []
    if before is None or any(
        getattr(before, field) != getattr(revision, field) for field in CONTENT_FIELDS
    ):
        found.append((Event.PAGE_CHANGED, {"added": before is None}))
    if revision.status == Node.Status.PUBLISHED and (
        before is None or before.status != Node.Status.PUBLISHED
    ):
        found.append((Event.PAGE_PUBLISHED, {}))
    if before is not None and before.path != revision.path:
        found.append((Event.PAGE_MOVED, {"previous_path": before.path}))
    return found


def announce_revisions(first, last, base_url):
    """Announce the page events of the revisions one write to the tree recorded.

    Args:
        first: the id of the latest revision before the write.
        last: the id of the write's latest revision.
        base_url: the site's address, for the pages' URLs.

    Returns:
        The number of deliveries recorded.
    """
    webhooks = list(Webhook.objects.filter(active=True))
    if not webhooks:
        return 0
    revisions = list(
        Node.history.filter(history_id__gt=first, history_id__lte=last)
        .select_related("history_user")
        .order_by("history_id")
    )
    under = {}
    for revision in revisions:
        if revision.history_type == "-" and revision.deletion not in (None, revision.history_id):
            under[revision.deletion] = under.get(revision.deletion, 0) + 1
    before = _previous(revisions, first)
    recorded = 0
    for revision in revisions:
        for event, more in _events(
            revision, before.get(revision.id), under.get(revision.history_id, 0)
        ):
            payload = _payload(event, revision, base_url, **more)
            recorded += announce(event, f"revision:{revision.history_id}", payload, webhooks)
        before[revision.id] = revision
    return recorded


def _change_payload(event, change, base_url, timestamp, **more):
    """Return the payload of a review event about the pending ``change``: its ``revision``
    is the page's latest (an approved change's own), ``change.base_revision`` the one the
    change was made from.

    The page is named as it is stored, never as the change proposes: a change sent back
    never went live.
    """
    node = Node.objects.get(pk=change.node_id)
    latest = Node.history.filter(id=node.pk).values_list("history_id", flat=True).first()
    return {
        "event": event,
        "page": _page(node.pk, node.title, node.path, base_url),
        "change": {
            "id": change.pk,
            "url": base_url.rstrip("/") + change.get_absolute_url(),
            "version": change.version,
            "base_revision": change.base_revision,
        },
        "revision": latest,
        "author": change.author.get_username(),
        "summary": change.summary,
        "timestamp": timestamp.isoformat(),
        **more,
    }


def review_requested(change, base_url):
    """Announce that the pending ``change`` (just proposed or updated) waits for review."""
    payload = _change_payload(Event.REVIEW_REQUESTED, change, base_url, change.updated)
    announce(Event.REVIEW_REQUESTED, f"change:{change.pk}:proposed:{change.version}", payload)


def review_decided(change, base_url):
    """Announce a review's decision on ``change``: approved or sent back, by whom, and the
    reviewer's comment."""
    payload = _change_payload(
        Event.REVIEW_DECIDED,
        change,
        base_url,
        change.decided,
        decision=change.state,
        reviewer=change.reviewer.get_username(),
        comment=change.comment,
    )
    announce(Event.REVIEW_DECIDED, f"change:{change.pk}:{change.state}", payload)
