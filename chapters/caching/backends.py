"""Django's Redis cache, made to answer a miss when Redis cannot be reached.

Everything the wiki keeps in the cache can be built again from the database, so a cache that
is down (restarting, unreachable, too slow to answer) should cost speed, not pages: each
operation that cannot reach Redis logs a warning (at most once a minute in a process, however
many requests meet it) and answers as the cache would if it held nothing. Django's own
``RedisCache`` raises instead, and every page answers 500.

Short connect and read timeouts (``OPTIONS`` in ``wiki/settings.py``) keep an unreachable
Redis from holding each request for redis-py's default of several seconds per operation.
"""

import logging
import threading
from contextlib import contextmanager
from time import monotonic

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["UNREACHABLE", "WARNING_INTERVAL", "TolerantRedisCache"]

logger = logging.getLogger(__name__)

# What redis-py raises when Redis cannot be reached or does not answer in time (refused or
# lost connections, timeouts, a server still loading its data, a failed sign-in). Other
# errors (a wrong command, a value that cannot be unpickled) are bugs, and still raise.
UNREACHABLE = (RedisConnectionError, RedisTimeoutError)

# Seconds between two warnings of one process about an unreachable cache.
WARNING_INTERVAL = 60

_warning_lock = threading.Lock()
_last_warning = None


@contextmanager
def _miss_when_unreachable():
    """Swallow redis-py's errors of an unreachable Redis in the block, with a warning.

    The code after the ``with`` block then answers a miss.
    """
    try:
        yield
    except UNREACHABLE as error:
        _warn_unreachable(error)


def _warn_unreachable(error):
    """Log that the cache cannot be reached, unless this process did in the last minute.

    Args:
        error: redis-py's exception, whose message the warning quotes.
    """
    global _last_warning
    now = monotonic()
    with _warning_lock:
        if _last_warning is not None and now - _last_warning < WARNING_INTERVAL:
            return
        _last_warning = now
    logger.warning(
        "The cache (Redis) cannot be reached; pages are served without it: %s "
        "(said at most once a minute)",
        error,
    )


class TolerantRedisCache(RedisCache):
    """Django's Redis cache backend, answering a miss whenever Redis cannot be reached.

    A read finds nothing (``get`` returns its default, ``get_many`` an empty dict,
    ``has_key`` False, ``incr`` raises ``ValueError`` as for a missing key), and a write
    keeps nothing (``set_many`` returns every key as not kept, ``add``, ``touch``,
    ``delete`` and ``clear`` return False). See the module's docstring.
    """

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with _miss_when_unreachable():
            return super().add(key, value, timeout, version)
        return False

    def get(self, key, default=None, version=None):
        with _miss_when_unreachable():
            return super().get(key, default, version)
        return default

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with _miss_when_unreachable():
            super().set(key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        with _miss_when_unreachable():
            return super().touch(key, timeout, version)
        return False

    def delete(self, key, version=None):
        with _miss_when_unreachable():
            return super().delete(key, version)
        return False

    def get_many(self, keys, version=None):
        with _miss_when_unreachable():
            return super().get_many(keys, version)
        return {}

    def has_key(self, key, version=None):
        with _miss_when_unreachable():
            return super().has_key(key, version)
        return False

    def incr(self, key, delta=1, version=None):
        with _miss_when_unreachable():
            return super().incr(key, delta, version)
        raise ValueError(f"Key '{key}' not found.")

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        with _miss_when_unreachable():
            return super().set_many(data, timeout, version)
        return list(data)

    def delete_many(self, keys, version=None):
        with _miss_when_unreachable():
            super().delete_many(keys, version)

    def clear(self):
        with _miss_when_unreachable():
            return super().clear()
        return False
