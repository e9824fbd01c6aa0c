"""Sending one delivery: a JSON ``POST``, signed, to the address checked just before, with
timeouts; its outcome written to the delivery's log.

The request is made with the standard library's ``http.client``, through a connection that
connects to the address :func:`~.addresses.check_url` checked rather than resolving the
host again (see :mod:`.addresses`); over https the certificate is still verified for the
URL's host name (``ssl.create_default_context``). Redirects are not followed: an answer
other than 2xx is a failure, as a redirect could lead to an address never checked.
"""

import contextlib
import hashlib
import hmac
import http.client
import json
import socket
import ssl
import threading

from django.conf import settings
from django.utils import timezone

from ..models import WebhookDelivery
from .addresses import RefusedAddress, check_url

__all__ = [
    "DELIVERY_HEADER",
    "EVENT_HEADER",
    "RESPONSE_EXCERPT",
    "SIGNATURE_HEADER",
    "WHOLE_DELIVERY_STEPS",
    "DeliveryFailed",
    "body_of",
    "deliver",
    "sign",
]

SIGNATURE_HEADER = "X-Wiki-Signature"
EVENT_HEADER = "X-Wiki-Event"
DELIVERY_HEADER = "X-Wiki-Delivery"

# The characters of a receiver's answer kept in the log, and the bytes read for them.
RESPONSE_EXCERPT = 1000

# A whole delivery takes at most this many times WIKI_WEBHOOK_TIMEOUT: a receiver that
# answers a byte at a time never lets one step time out.
WHOLE_DELIVERY_STEPS = 3


class DeliveryFailed(Exception):
    """A delivery did not reach its receiver, or the receiver did not answer 2xx; the task
    fails, so the worker runs it again after a delay (``chapters.worker.RETRY_DELAYS``)."""


def sign(secret, body):
    """Return the signature header's value for ``body``: ``sha256=`` and the hexadecimal
    HMAC-SHA256 (RFC 2104) of the raw bytes with the webhook's secret as key, as GitHub signs
    its webhooks. A receiver computes the same over the bytes it received and compares the
    two with a constant-time comparison (``hmac.compare_digest``).

    Args:
        secret: the webhook's secret (text, encoded as UTF-8).
        body: the request's body (bytes).
    """
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def body_of(delivery):
    """Return the bytes a delivery sends: its payload as compact UTF-8 JSON."""
    return json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to ``address`` for the URL's host (its ``Host`` header)."""

    def __init__(self, host, port, *, address, timeout):
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self):
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to ``address``, whose certificate must be the URL's host's."""

    def __init__(self, host, port, *, address, timeout):
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def _post(target, body, headers):
    """POST ``body`` to ``target``; return the answer's status and the start of its body.

    Each step (connecting, sending, each read) waits at most ``WIKI_WEBHOOK_TIMEOUT``
    seconds, and the whole exchange at most :data:`WHOLE_DELIVERY_STEPS` times that: a
    timer then shuts the socket down under the reading thread (the standard library has
    no timeout for a whole request).

    Raises:
        OSError, http.client.HTTPException: no connection, a timeout, a broken answer.
    """
    step = settings.WIKI_WEBHOOK_TIMEOUT
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target.host, target.port, address=target.address, timeout=step)
    expired = threading.Event()

    def expire():
        expired.set()
        if connection.sock is not None:
            # The plain socket's shutdown, under TLS too: the reader then meets the end of
            # the stream, while TLS's own shutdown would pull its state away mid-read.
            with contextlib.suppress(OSError):  # closed already
                socket.socket.shutdown(connection.sock, socket.SHUT_RDWR)

    late = f"the delivery took more than {WHOLE_DELIVERY_STEPS * step:g} s in all"
    timer = threading.Timer(WHOLE_DELIVERY_STEPS * step, expire)
    timer.start()
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        answer = connection.getresponse()
        excerpt = answer.read(RESPONSE_EXCERPT).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException) as error:
        if expired.is_set():
            raise TimeoutError(late) from error
        raise
    finally:
        timer.cancel()
        connection.close()
    # Cut short, an answer may still parse (headers ended by the end of the stream).
    if expired.is_set():
        raise TimeoutError(late)
    return answer.status, excerpt


def deliver(pk):
    """Send the delivery ``pk`` unless it was delivered, and log the attempt on its row.

    A URL refused at send time (:mod:`.addresses`) is logged and not tried again: the
    refusal is the wiki's rule, not the receiver's failure. A deleted or inactive webhook
    is not sent to.

    Args:
        pk: the delivery's id.

    Returns:
        ``"delivered"``, ``"refused"``, or ``"skipped"`` (nothing to send).

    Raises:
        DeliveryFailed: the receiver could not be reached in time or did not answer 2xx.
    """
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=pk).first()
    if delivery is None or delivery.delivered:
        return "skipped"
    if not delivery.webhook.active:
        delivery.error = "Not sent: the webhook was made inactive."
        delivery.save(update_fields=["error"])
        return "skipped"
    delivery.attempts += 1
    delivery.last_attempt = timezone.now()
    delivery.status_code, delivery.response, delivery.error = None, "", ""
    fields = ["attempts", "last_attempt", "status_code", "response", "error", "delivered"]
    body = body_of(delivery)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "CurriculumWiki-Webhook/1",
        SIGNATURE_HEADER: sign(delivery.webhook.secret, body),
        EVENT_HEADER: delivery.event,
        DELIVERY_HEADER: str(delivery.pk),
    }
    try:
        target = check_url(delivery.webhook.url)
    except RefusedAddress as refused:
        delivery.error = f"Refused: {refused}"
        delivery.save(update_fields=fields)
        return "refused"
    try:
        delivery.status_code, delivery.response = _post(target, body, headers)
    except (OSError, http.client.HTTPException) as error:
        delivery.error = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        delivery.save(update_fields=fields)
        raise DeliveryFailed(f"{delivery.webhook.url}: {delivery.error}") from error
    if 200 <= delivery.status_code < 300:
        delivery.delivered = timezone.now()
        delivery.save(update_fields=fields)
        return "delivered"
    delivery.error = f"The receiver answered {delivery.status_code}."
    delivery.save(update_fields=fields)
    raise DeliveryFailed(f"{delivery.webhook.url}: {delivery.error}")
