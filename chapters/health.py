"""The health check a load balancer asks each app server: ``/healthz``.

A server is healthy when the two things every page needs answer: the database (``SELECT 1``)
and the cache (a key written and read back). The answer is a small JSON object naming each,
200 when both answer and 503 when either does not, so that a load balancer sends readers to
the other servers. It is never cached, touches no session and renders no template.

Like every URL, it answers only for the host names in ``DJANGO_ALLOWED_HOSTS``: a load
balancer's health check must send one of them in its ``Host`` header (else Django answers
400). With ``DJANGO_HTTPS`` on it is also served over plain HTTP (``SECURE_REDIRECT_EXEMPT``
in ``wiki/settings.py``), as load balancers check their servers without TLS.
"""

import secrets

from django.core.cache import cache
from django.db import Error, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

__all__ = ["cache_answers", "database_answers", "healthz"]


def database_answers():
    """Return True when the database answers ``SELECT 1``, False when it fails."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Error:
        return False


def cache_answers():
    """Return True when the cache keeps a value and gives it back, False otherwise.

    Each check writes a key of its own (several servers may check one Redis at once) and
    deletes it, so that no probe is left to push pages out of a full local-memory cache.
    A cache that cannot be reached reads as a miss (``chapters.caching.backends``); any
    other backend's error counts as a failure too.
    """
    key, token = f"healthz:{secrets.token_hex(8)}", secrets.token_hex(8)
    try:
        cache.set(key, token, timeout=10)
        answered = cache.get(key) == token
        cache.delete(key)
    except Exception:  # whatever a backend raises, it did not answer
        return False
    return answered


@never_cache
def healthz(request):
    """Answer 200 when the database and the cache answer, 503 naming the one that fails.

    The body is ``{"database": "ok", "cache": "ok"}``, with ``"failed"`` for each that did
    not answer. ``never_cache`` adds ``Cache-Control: no-store`` (and ``max-age=0``), so no
    proxy keeps an answer.
    """
    checks = {"database": database_answers(), "cache": cache_answers()}
    body = {name: "ok" if ok else "failed" for name, ok in checks.items()}
    return JsonResponse(body, status=200 if all(checks.values()) else 503)
