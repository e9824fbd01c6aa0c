"""Prometheus metrics at /metrics (chapters.metrics): closed to the public, open to staff, a
token and allowed addresses; exact names and values."""

import http.client
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from tests import tasks
from tests.helpers import role_user, run_with_environment
from tests.test_gunicorn import gunicorn

TOKEN = "scrape-me-please"


def samples(response):
    """Return the samples of a /metrics answer as ``{(name, labels): value}``."""
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; version=1.0.0; charset=utf-8"
    text = response.content.decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(name, **labels):
    """Return this process's current value of a sample, 0 if none yet."""
    return REGISTRY.get_sample_value(name, labels) or 0


@pytest.fixture
def token(settings):
    settings.WIKI_METRICS_TOKEN = TOKEN
    return {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}


@pytest.mark.django_db
def test_metrics_refused_to_anonymous_and_readers(client):
    response = client.get("/metrics")
    assert (response.status_code, response.content) == (403, b"The metrics are not public.")
    assert "no-store" in response["Cache-Control"]
    client.force_login(role_user("reader", "Editor", is_staff=False))
    assert client.get("/metrics").status_code == 403


@pytest.mark.django_db
def test_metrics_refused_for_a_wrong_or_unset_token(client, settings):
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 403
    settings.WIKI_METRICS_TOKEN = TOKEN
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION=TOKEN).status_code == 403


@pytest.mark.django_db
def test_metrics_open_to_the_token_staff_and_allowed_addresses(client, token, settings):
    assert client.get("/metrics", **token).status_code == 200
    client.force_login(role_user("ops", "Admin"))
    assert client.get("/metrics").status_code == 200
    client.logout()
    settings.WIKI_METRICS_ALLOW_IPS = ["10.0.0.0/8"]
    assert client.get("/metrics", REMOTE_ADDR="10.2.3.4").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="11.2.3.4").status_code == 403
    # Behind a proxy, the address the proxy saw counts, not the proxy's own.
    settings.BEHIND_PROXY = True
    through = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "10.9.9.9, 203.0.113.5"}
    assert client.get("/metrics", **through).status_code == 403
    through["HTTP_X_FORWARDED_FOR"] = "203.0.113.5, 10.9.9.9"
    assert client.get("/metrics", **through).status_code == 200


@pytest.mark.django_db
def test_metrics_task_queue_depth_and_oldest_wait(client, token):
    for line in ("a", "b", "c"):
        tasks.append_line.enqueue("/nonexistent", line)
    tasks.append_line.using(queue_name="books").enqueue("/nonexistent", "d")
    DBTaskResult.objects.filter(args_kwargs__args__1="a").update(
        enqueued_at=timezone.now() - timedelta(seconds=120)
    )
    found = samples(client.get("/metrics", **token))
    assert found[("wiki_task_queue_depth", (("queue", "books"),))] == 1
    assert found[("wiki_task_queue_depth", (("queue", "default"),))] == 3
    assert 120 <= found[("wiki_task_oldest_wait_seconds", ())] < 130


@pytest.mark.django_db
def test_metrics_empty_queue(client, token):
    found = samples(client.get("/metrics", **token))
    assert found[("wiki_task_queue_depth", (("queue", "books"),))] == 0
    assert found[("wiki_task_queue_depth", (("queue", "default"),))] == 0
    assert found[("wiki_task_oldest_wait_seconds", ())] == 0


@pytest.mark.django_db
def test_metrics_requests_by_view_and_status_class(client, small_tree, token):
    home = value("wiki_http_requests_total", view="chapters:home", status="2xx")
    missing = value("wiki_http_requests_total", view="chapters:node", status="4xx")
    timed = value("wiki_http_request_duration_seconds_count", view="chapters:home")
    assert client.get("/").status_code == 200
    assert client.get("/no-such-area/").status_code == 404
    found = samples(client.get("/metrics", **token))
    assert found[("wiki_http_requests_total", (("status", "2xx"), ("view", "chapters:home")))] == (
        home + 1
    )
    assert found[("wiki_http_requests_total", (("status", "4xx"), ("view", "chapters:node")))] == (
        missing + 1
    )
    assert found[("wiki_http_request_duration_seconds_count", (("view", "chapters:home"),))] == (
        timed + 1
    )


@pytest.mark.django_db
def test_metrics_reader_cache_hits_and_misses(client, small_tree):
    hits, misses = (
        value("wiki_reader_cache_total", result="hit"),
        value("wiki_reader_cache_total", result="miss"),
    )
    client.get("/area-a/section-a1/chapter-one/")
    client.get("/area-a/section-a1/chapter-one/")
    client.get("/area-a/section-a1/chapter-one/")
    assert value("wiki_reader_cache_total", result="miss") == misses + 1
    assert value("wiki_reader_cache_total", result="hit") == hits + 2
    # A kept page, answered before URL resolution, is still counted under its view.
    assert value("wiki_http_requests_total", view="chapters:node", status="2xx") >= 3


@pytest.mark.django_db
def test_metrics_search_time(client, small_tree):
    page = value("wiki_search_duration_seconds_count", kind="page")
    top = value("wiki_search_duration_seconds_count", kind="top")
    assert client.get("/search/", {"q": "chapter"}).status_code == 200
    client.get("/search/")  # the form alone searches nothing
    assert client.get("/search/top.json", {"q": "chap"}).status_code == 200
    assert value("wiki_search_duration_seconds_count", kind="page") == page + 1
    assert value("wiki_search_duration_seconds_count", kind="top") == top + 1


def test_metrics_multiprocess_mode_adds_up_every_process(tmp_path):
    # Two processes count requests in PROMETHEUS_MULTIPROC_DIR; /metrics in the second adds
    # up both (prometheus-client's multiprocess mode, as under gunicorn's workers).
    count = """
import os, django
os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"
django.setup()
from chapters.metrics import REQUESTS
REQUESTS.labels("chapters:home", "2xx").inc(2)
"""
    scrape = f"""{count}
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
response = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer {TOKEN}")
print(response.status_code)
print(*[line for line in response.content.decode().splitlines()
        if line.startswith("wiki_http_requests_total")], sep="\\n")
"""
    env = {
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "WIKI_METRICS_TOKEN": TOKEN,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
    }
    run_with_environment(count, **env)
    assert run_with_environment(scrape, **env).splitlines() == [
        "200",
        'wiki_http_requests_total{status="2xx",view="chapters:home"} 4.0',
    ]


def scrape(port):
    """Return the samples of one /metrics answer of the gunicorn at ``port``."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        client.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        answer = client.getresponse()
        assert answer.status == 200
        text = answer.read().decode()
    finally:
        client.close()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.mark.django_db(transaction=True)
def test_metrics_under_gunicorn_workers_add_up_whichever_answers(tmp_path):
    robots = ("wiki_http_requests_total", (("status", "2xx"), ("view", "chapters:robots")))
    folder = tmp_path / "metrics"
    with gunicorn(
        tmp_path, workers=2, PROMETHEUS_MULTIPROC_DIR=str(folder), WIKI_METRICS_TOKEN=TOKEN
    ) as port:
        for _ in range(20):
            client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            client.request("GET", "/robots.txt")
            assert client.getresponse().status == 200
            client.close()
        answers = [scrape(port) for _ in range(6)]
    assert [found[robots] for found in answers] == [20] * 6
    assert [found[("wiki_task_queue_depth", (("queue", "default"),))] for found in answers] == [
        0
    ] * 6
