"""The cache: local memory in each process, or one Redis for every app server (REDIS_URL),
and pages served without it when Redis cannot be reached."""

import pickle
import socket

import pytest
import redis
from django.conf import settings
from django.core.cache import cache

from chapters import caching
from chapters.caching import backends
from tests.helpers import run_with_environment
from tests.test_caching import CHAPTER_FIVE, reader_page

PRINT_CACHE = (
    "from wiki import settings as s; c = s.CACHES['default']; "
    "print(c['BACKEND'], c.get('LOCATION', '-'))"
)


def cache_settings(**env):
    """Return the default cache's backend and location that ``env`` gives, as printed words."""
    return run_with_environment(PRINT_CACHE, DJANGO_SECRET_KEY="k", **env).split()


def test_settings_cache_in_local_memory_without_redis_url():
    assert cache_settings() == ["django.core.cache.backends.locmem.LocMemCache", "-"]


def test_settings_cache_in_redis_with_redis_url():
    assert cache_settings(REDIS_URL="redis://cache.internal:6379/2") == [
        "chapters.caching.backends.TolerantRedisCache",
        "redis://cache.internal:6379/2",
    ]


def test_settings_give_redis_short_timeouts():
    code = "from wiki import settings as s; print(s.CACHES['default']['OPTIONS'])"
    options = run_with_environment(code, DJANGO_SECRET_KEY="k", REDIS_URL="redis://cache:6379/2")
    assert options == "{'socket_connect_timeout': 0.1, 'socket_timeout': 0.2}"


def test_settings_keep_entries_until_culled_in_memory_and_a_week_in_redis():
    code = (
        "from wiki import settings as s; c = s.CACHES['default']; "
        "print(c['TIMEOUT'], c.get('OPTIONS', {}).get('MAX_ENTRIES'))"
    )
    assert run_with_environment(code, DJANGO_SECRET_KEY="k") == "None 2000"
    redis_env = {"DJANGO_SECRET_KEY": "k", "REDIS_URL": "redis://cache:6379/2"}
    assert run_with_environment(code, **redis_env) == "604800 None"
    assert run_with_environment(code, WIKI_CACHE_TIMEOUT="3600", **redis_env) == "3600 None"


def test_settings_inline_the_contents_up_to_1000_nodes():
    code = "from wiki import settings as s; print(s.TOC_INLINE_MAX_NODES)"
    assert run_with_environment(code, DJANGO_SECRET_KEY="k") == "1000"
    assert (
        run_with_environment(code, DJANGO_SECRET_KEY="k", WIKI_TOC_INLINE_MAX_NODES="250") == "250"
    )


@pytest.mark.redis
def test_cache_round_trips_through_redis():
    value = {"title": "Graph Optimization and Kernel Fusion", "lft": 3}
    cache.set("test-cache-round-trip", value, timeout=60)
    try:
        stored = redis.Redis.from_url(settings.REDIS_URL).get(
            cache.make_and_validate_key("test-cache-round-trip")
        )
        assert pickle.loads(stored) == value
        assert cache.get("test-cache-round-trip") == value
    finally:
        cache.delete("test-cache-round-trip")
    assert cache.get("test-cache-round-trip") is None


WARNING = "The cache (Redis) cannot be reached; pages are served without it: "


@pytest.fixture
def closed_port():
    """Return a port of the loopback address that nothing listens on: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def silent_port():
    """Return a port where connections are taken (by the kernel) but never answered."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield server.getsockname()[1]


@pytest.fixture
def unreachable_redis(settings, monkeypatch):
    """Return a function that points the cache at a Redis at ``port`` of the loopback address,
    with timeouts small enough that a Redis that never answers costs the tests little."""
    monkeypatch.setattr(backends, "_last_warning", None)  # no warning yet in this process

    def point_at(port):
        settings.CACHES = {
            "default": {
                "BACKEND": "chapters.caching.backends.TolerantRedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
                "OPTIONS": {"socket_connect_timeout": 0.05, "socket_timeout": 0.05},
            }
        }

    return point_at


def cache_warnings(caplog):
    """Return the messages of the warnings the cache backend logged."""
    return [r.getMessage() for r in caplog.records if r.name == "chapters.caching.backends"]


@pytest.mark.django_db
@pytest.mark.parametrize("redis_down", ["refusing", "silent"])
def test_pages_are_served_uncached_with_a_warning_when_redis_cannot_be_reached(
    client, small_tree, caplog, unreachable_redis, closed_port, silent_port, redis_down
):
    expected = {url: reader_page(client, url) for url in ["/", CHAPTER_FIVE]}
    caching.clear()
    unreachable_redis(closed_port if redis_down == "refusing" else silent_port)
    for url, content in expected.items():
        assert reader_page(client, url) == content
    (warning,) = cache_warnings(caplog)  # one, however many operations failed
    assert warning.startswith(WARNING)
    assert warning.endswith(" (said at most once a minute)")


def test_an_unreachable_redis_is_warned_about_once_a_minute(
    caplog, unreachable_redis, closed_port, monkeypatch
):
    unreachable_redis(closed_port)
    now = 1000.0
    monkeypatch.setattr(backends, "monotonic", lambda: now)
    cache.get("a")
    now += backends.WARNING_INTERVAL - 1
    cache.get("b")
    assert len(cache_warnings(caplog)) == 1
    now += 1
    cache.get("c")
    assert len(cache_warnings(caplog)) == 2


def test_an_unreachable_redis_answers_every_operation_as_a_miss(unreachable_redis, closed_port):
    unreachable_redis(closed_port)
    assert cache.get("a") is None
    assert cache.get("a", "default") == "default"
    assert cache.get_many(["a", "b"]) == {}
    assert cache.get_or_set("a", "made") == "made"
    assert cache.has_key("a") is False
    assert cache.set("a", 1) is None
    assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]
    assert cache.add("a", 1) is False
    assert cache.touch("a") is False
    assert cache.delete("a") is False
    assert cache.delete_many(["a", "b"]) is None
    assert cache.clear() is False
    with pytest.raises(ValueError, match="Key 'a' not found."):
        cache.incr("a")
    with pytest.raises(ValueError, match="Key 'a' not found."):
        cache.decr("a")
