"""Prometheus metrics at ``/metrics``: requests, the reader cache, the task queue, search.

What is measured, with prometheus-client (the Prometheus project's Python client):

- ``wiki_http_requests_total{view, status}`` and ``wiki_http_request_duration_seconds{view}``:
  every request that reaches Django past WhiteNoise's static files, counted by the URL's
  name (``chapters:node``) and the answer's status class (``2xx``), and timed, by
  :class:`RequestMetricsMiddleware`;
- ``wiki_reader_cache_total{result}``: readers' requests for a kept page answered from the
  cache (``hit``) or rendered (``miss``), by ``chapters.caching.middleware``;
- ``wiki_search_duration_seconds{kind}``: the time the search page (``page``) and the
  header's top results (``top``) take to find their results;
- ``wiki_task_queue_depth{queue}`` and ``wiki_task_oldest_wait_seconds``: the tasks ready
  to run now, per queue, and how long the oldest has waited (``chapters.health``), read from
  the database at each scrape, so they are right whichever process answers; a failed task
  waiting for its retry's delay (``chapters.worker``) counts once its time has come.

The counters and histograms live in each process's memory. Under gunicorn's several
workers, a scrape reaches one of them: set ``PROMETHEUS_MULTIPROC_DIR`` to an empty folder
for the server's processes (prometheus-client's multiprocess mode, docs/operations.md), and
the scrape adds up every process's files. The queue's gauges are never per process.

``/metrics`` is closed to the public: it answers staff users, a request bearing
``WIKI_METRICS_TOKEN`` (``Authorization: Bearer <token>``), and clients whose address lies
in ``WIKI_METRICS_ALLOW_IPS``; anyone else gets 403.
"""

import ipaddress
import os
import secrets
import time
from functools import lru_cache

from django.conf import settings
from django.db import Error
from django.db.models import Count
from django.http import HttpResponse, HttpResponseForbidden
from django.urls import Resolver404, get_resolver
from django.views.decorators.cache import never_cache
from django_tasks_db.models import DBTaskResult
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from wiki.proxy import client_ip

from .health import oldest_task_wait

__all__ = [
    "READER_CACHE",
    "REQUESTS",
    "REQUEST_SECONDS",
    "SEARCH_SECONDS",
    "QueueCollector",
    "RequestMetricsMiddleware",
    "may_read",
    "metrics",
]

REQUESTS = Counter(
    "wiki_http_requests", "Requests answered, by view and status class.", ["view", "status"]
)
REQUEST_SECONDS = Histogram(
    "wiki_http_request_duration_seconds", "Time to answer a request, by view.", ["view"]
)
READER_CACHE = Counter(
    "wiki_reader_cache", "Readers' requests for a kept page, by result.", ["result"]
)
SEARCH_SECONDS = Histogram(
    "wiki_search_duration_seconds", "Time to find search results, by kind.", ["kind"]
)

# The label of a request whose path no URL resolves.
UNRESOLVED = "<unresolved>"


@lru_cache(maxsize=1024)
def _view_of(urlconf, path):
    try:
        return get_resolver(urlconf).resolve(path).view_name
    except Resolver404:
        return UNRESOLVED


class RequestMetricsMiddleware:
    """Count and time every request, by view name and status class.

    A request answered before URL resolution (the reader middleware's kept pages and 304s)
    is resolved here for its label, each path once per process (the last 1,024 paths).

    Args:
        get_response: the next middleware, as Django passes it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        match = getattr(request, "resolver_match", None)
        if match is not None:
            view = match.view_name
        else:
            view = _view_of(getattr(request, "urlconf", None), request.path_info)
        REQUESTS.labels(view, f"{response.status_code // 100}xx").inc()
        REQUEST_SECONDS.labels(view).observe(elapsed)
        return response


class QueueCollector:
    """The task queue's gauges, read from django-tasks-db's table at each scrape (two
    queries): the tasks ready to run per queue (every queue of ``TASKS``, 0 when empty) and
    the oldest one's wait (``chapters.health.oldest_task_wait``). A database that does not
    answer yields neither."""

    def collect(self):
        """Yield the two gauges (prometheus-client's custom collector protocol)."""
        try:
            ready = dict(
                DBTaskResult.objects.ready()
                .values_list("queue_name")
                .annotate(count=Count("pk"))
                .order_by()
            )
        except Error:
            return
        wait = oldest_task_wait()
        depth = GaugeMetricFamily(
            "wiki_task_queue_depth", "Tasks ready to run, by queue.", labels=["queue"]
        )
        queues = settings.TASKS["default"].get("QUEUES", ["default"])
        for queue in sorted(set(queues) | set(ready)):
            depth.add_metric([queue], ready.get(queue, 0))
        yield depth
        if wait is not None:
            yield GaugeMetricFamily(
                "wiki_task_oldest_wait_seconds",
                "How long the oldest task ready to run has waited for a worker.",
                value=wait,
            )


def may_read(request):
    """Return whether ``request`` may read the metrics: a staff user, the bearer of
    ``WIKI_METRICS_TOKEN`` (compared in constant time), or a client whose address
    (``wiki.proxy.client_ip`` behind a proxy, else ``REMOTE_ADDR``) is in a network of
    ``WIKI_METRICS_ALLOW_IPS``."""
    user = getattr(request, "user", None)
    if user is not None and user.is_active and user.is_staff:
        return True
    token = settings.WIKI_METRICS_TOKEN
    offered = request.headers.get("Authorization", "")
    if token and secrets.compare_digest(offered.encode(), f"Bearer {token}".encode()):
        return True
    address = client_ip(request) if settings.BEHIND_PROXY else request.META.get("REMOTE_ADDR")
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(
        ip in ipaddress.ip_network(network, strict=False)
        for network in settings.WIKI_METRICS_ALLOW_IPS
    )


def _registry():
    """Return the registry a scrape reads: this process's, or in multiprocess mode one
    gathering every process's files (prometheus-client's documented setup)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


QUEUE = QueueCollector()


@never_cache
def metrics(request):
    """Answer the metrics in Prometheus's text format, or 403 to whoever may not read them
    (:func:`may_read`)."""
    if not may_read(request):
        return HttpResponseForbidden("The metrics are not public.", content_type="text/plain")
    registry = CollectorRegistry()
    registry.register(QUEUE)
    body = generate_latest(_registry()) + generate_latest(registry)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
