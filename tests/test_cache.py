"""The cache: local memory in each process, or one Redis for every app server (REDIS_URL)."""

import pickle

import pytest
import redis
from django.conf import settings
from django.core.cache import cache

from tests.helpers import run_with_environment

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
        "django.core.cache.backends.redis.RedisCache",
        "redis://cache.internal:6379/2",
    ]


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
