"""The load balancer's health check, /healthz: the database and the cache answer and tasks are
taken, or 503."""

import json
from datetime import timedelta
from unittest import mock

import pytest
from django.core.cache import cache
from django.db import OperationalError, connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from chapters import health
from chapters.models import Node
from tests import tasks

HEALTHY = {"database": "ok", "cache": "ok", "tasks": "ok", "oldest_task_wait": 0}


def answer(response):
    """Return a health check's status and decoded JSON body."""
    assert response["Content-Type"] == "application/json"
    return response.status_code, json.loads(response.content)


@pytest.mark.django_db
def test_healthz_answers_200_when_the_database_and_the_cache_answer(
    client, django_assert_num_queries
):
    with django_assert_num_queries(1):
        response = client.get("/healthz")
    assert answer(response) == (200, HEALTHY)


@pytest.mark.django_db
def test_healthz_is_never_cached_and_sets_no_cookie(client, django_assert_num_queries):
    client.get("/healthz")
    with django_assert_num_queries(1):
        response = client.get("/healthz")  # asked again, not served from a cache
    assert "no-store" in response["Cache-Control"].split(", ")
    assert response.cookies == {}
    assert "ETag" not in response
    assert "Cookie" not in response.get("Vary", "")


@pytest.mark.django_db
def test_healthz_answers_503_when_the_cache_does_not_keep_values(client):
    with mock.patch.object(cache, "get", return_value=None):  # as an unreachable Redis does
        response = client.get("/healthz")
    assert answer(response) == (503, {**HEALTHY, "cache": "failed"})


@pytest.mark.django_db
def test_healthz_answers_503_when_the_cache_raises(client):
    with mock.patch.object(cache, "set", side_effect=ConnectionError("no cache")):
        response = client.get("/healthz")
    assert answer(response) == (503, {**HEALTHY, "cache": "failed"})


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_fails(client):
    failing = mock.patch.object(connection, "cursor", side_effect=OperationalError("no database"))
    with failing:
        response = client.get("/healthz")
    assert answer(response) == (
        503,
        {
            "database": "failed",
            "cache": "ok",
            "tasks": "failed",
            "oldest_task_wait": None,
        },
    )


@pytest.mark.django_db
def test_healthz_leaves_no_probe_in_the_cache(client):
    with mock.patch.object(cache, "set", wraps=cache.set) as cache_set:
        client.get("/healthz")
    (probe,) = [call.args[0] for call in cache_set.call_args_list]
    assert probe.startswith("healthz:")
    assert cache.get(probe) is None


@pytest.mark.django_db
def test_healthz_answers_only_for_allowed_hosts(client):
    assert client.get("/healthz", HTTP_HOST="elsewhere.example").status_code == 400


@pytest.mark.django_db
def test_healthz_answers_over_plain_http_when_https_redirects(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/").status_code == 301
    assert answer(client.get("/healthz")) == (200, HEALTHY)


@pytest.mark.django_db
def test_healthz_is_a_reserved_top_level_slug(small_tree):
    area = Node(title="Healthz", kind=Node.Kind.SECTION)
    area.save()
    assert area.slug == "healthz-2"


@pytest.mark.django_db
def test_healthz_reports_the_wait_of_the_oldest_task_ready_to_run(client, settings):
    settings.TASKS_MAX_WAIT = 300
    older, newer = tasks.fail.enqueue("older"), tasks.fail.enqueue("newer")
    now = timezone.now()
    DBTaskResult.objects.filter(pk=older.id).update(enqueued_at=now - timedelta(seconds=200))
    DBTaskResult.objects.filter(pk=newer.id).update(enqueued_at=now - timedelta(seconds=100))
    later = tasks.fail.using(run_after=now + timedelta(hours=1)).enqueue("deferred")
    DBTaskResult.objects.filter(pk=later.id).update(enqueued_at=now - timedelta(days=1))
    assert answer(client.get("/healthz")) == (200, {**HEALTHY, "oldest_task_wait": 200})


@pytest.mark.django_db
def test_healthz_answers_503_when_a_task_waited_too_long_for_a_worker(client, settings):
    settings.TASKS_MAX_WAIT = 300
    waiting = tasks.fail.enqueue("waiting")
    retried = timezone.now() - timedelta(seconds=400)  # a retry whose delay ended long ago
    DBTaskResult.objects.filter(pk=waiting.id).update(
        run_after=retried, enqueued_at=retried - timedelta(days=1)
    )
    expected = {**HEALTHY, "tasks": "stalled", "oldest_task_wait": 400}
    assert answer(client.get("/healthz")) == (503, expected)
    settings.TASKS_MAX_WAIT = 0  # never
    assert answer(client.get("/healthz")) == (200, {**expected, "tasks": "ok"})


def test_health_checks_report_each_failure():
    with mock.patch.object(connection, "cursor", side_effect=OperationalError):
        assert health.oldest_task_wait() is None
    with mock.patch.object(cache, "get", return_value="something else"):
        assert health.cache_answers() is False
