"""The health check a load balancer asks each app server: ``/healthz``.

A server is healthy when the two things every page needs answer, the database and the cache
(a key written and read back), and when background tasks are being taken: the oldest task
waiting for a worker has waited at most ``TASKS_MAX_WAIT`` seconds (``wiki/settings.py``),
so a wiki whose workers all stopped is noticed, as its e-mail, books and images would wait
for ever. The answer is a small JSON object naming each, with the oldest task's wait in
seconds; 200 when all are well and 503 when one is not, so that a load balancer sends
readers to the other servers. It is never cached, touches no session and renders no
template.

Like every URL, it answers only for the host names in ``DJANGO_ALLOWED_HOSTS``: a load
balancer's health check must send one of them in its ``Host`` header (else Django answers
400). With ``DJANGO_HTTPS`` on it is also served over plain HTTP (``SECURE_REDIRECT_EXEMPT``
in ``wiki/settings.py``), as load balancers check their servers without TLS.
"""

import secrets

from django.conf import settings
from django.core.cache import cache
from django.db import Error
from django.db.models import Case, F, Min, When
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django_tasks_db.models import DBTaskResult, get_date_max

__all__ = ["cache_answers", "healthz", "oldest_task_wait"]


def oldest_task_wait():
    """Return how long the oldest task ready to run has waited for a worker (one query).

    A task waits from when it was enqueued, or from the time it was deferred to (a retry
    after its delay); django-tasks-db marks a task not deferred with the latest date there
    is.

    Returns:
        The wait in seconds (0.0 when no task waits), or None when the database does not
        answer.
    """
    since = Case(When(run_after=get_date_max(), then=F("enqueued_at")), default=F("run_after"))
    try:
        oldest = DBTaskResult.objects.ready().aggregate(oldest=Min(since))["oldest"]
    except Error:
        return None
    if oldest is None:
        return 0.0
    return max((timezone.now() - oldest).total_seconds(), 0.0)


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
    """Answer 200 when the database and the cache answer and tasks are taken, else 503.

    The body is ``{"database": "ok", "cache": "ok", "tasks": "ok", "oldest_task_wait":
    0}``: ``"failed"`` for the database or the cache when it did not answer, ``"stalled"``
    for tasks when the oldest has waited more than ``TASKS_MAX_WAIT`` seconds (``"failed"``
    when the database did not answer), and that wait in whole seconds (None without a
    database). ``never_cache`` adds ``Cache-Control: no-store`` (and ``max-age=0``), so no
    proxy keeps an answer.
    """
    wait = oldest_task_wait()
    stalled = wait is not None and 0 < settings.TASKS_MAX_WAIT < wait
    body = {
        "database": "ok" if wait is not None else "failed",
        "cache": "ok" if cache_answers() else "failed",
        "tasks": "failed" if wait is None else "stalled" if stalled else "ok",
        "oldest_task_wait": None if wait is None else int(wait),
    }
    healthy = body["database"] == body["cache"] == body["tasks"] == "ok"
    return JsonResponse(body, status=200 if healthy else 503)
