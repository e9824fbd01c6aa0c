"""Webhooks: the wiki tells other tools of its events by signed HTTP ``POST`` requests.

Admins register a :class:`~chapters.models.Webhook` (a URL, a secret, the events it wants)
in the Django admin. What happens then:

1. :mod:`.events`: a write to the tree (``tree_write``) enqueues, as it commits, a task
   deriving page events from its revisions (published, changed, moved, deleted); the review
   workflow announces its proposals and decisions in their own transaction. Each event
   becomes one :class:`~chapters.models.WebhookDelivery` per webhook subscribed to it, and
   one task sending it.
2. :mod:`.addresses`: the URL's host is resolved and every address checked (public only,
   unless ``WIKI_WEBHOOK_ALLOW_PRIVATE`` allows its network), when the webhook is saved and
   again at each delivery.
3. :mod:`.delivery`: the task posts the payload, signed with HMAC-SHA256 in
   ``X-Wiki-Signature``, to the checked address with timeouts, and logs the attempt on
   the delivery's row, shown in the admin; a failure fails the task, which the worker runs
   again after a delay (``chapters.worker.RETRY_DELAYS``).

docs/operations.md ("Webhooks") says what a receiver gets and how it checks a signature.
"""
