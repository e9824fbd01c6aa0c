"""A value built once across processes and kept in Django's cache: :func:`single_flight`.

The table of contents (``chapters.contents``) builds its outline and its areas' digests
through it, once per version whatever the number of processes.
"""

__all__ = ["LOCK_SECONDS", "POLL_SECONDS", "WAIT_SECONDS", "single_flight"]

import logging
import time

from django.core.cache import cache

logger = logging.getLogger(__name__)


# The single flight of a build across processes (single_flight): the lock is given up after
# LOCK_SECONDS (a builder that died); the others wait up to WAIT_SECONDS for its result,
# looking every POLL_SECONDS, then build it themselves, so no reader waits on a lost lock.
LOCK_SECONDS = 30


WAIT_SECONDS = 0.5


POLL_SECONDS = 0.02


def single_flight(key, version, build):
    """Return the value kept at ``key`` under ``version``; build and keep it once if missing.

    The first process to miss takes a lock in Django's cache (``cache.add``, atomic in
    Redis and in local memory), builds the value, keeps it and gives the lock up. A process
    that finds the lock taken waits while it is held, up to ``WAIT_SECONDS``, then takes
    the value, or builds it itself (the builder may have died, or be slow: a reader never
    waits longer on it). A cache that keeps nothing (a Redis that cannot be reached) holds
    no lock, so nobody waits. With the cache in local memory each process has its own lock,
    so the flight is single per process, not across them.

    Args:
        key: a cache key.
        version: the cache version to keep it under.
        build: a function of no arguments returning the value (not None).

    Returns:
        The value.
    """
    value = cache.get(key, version=version)
    if value is not None:
        return value
    lock = f"{key}:building"
    if cache.add(lock, True, timeout=LOCK_SECONDS, version=version):
        try:
            value = build()
            cache.set(key, value, version=version)
        finally:
            cache.delete(lock, version=version)
        return value
    # Another process holds the lock; or none does (it has just given it up, or the cache
    # keeps nothing: a Redis that cannot be reached), and there is nothing to wait for.
    start = time.monotonic()
    while cache.has_key(lock, version=version):
        if time.monotonic() - start >= WAIT_SECONDS:
            logger.warning(
                "Waited %s s for %s of version %s; building it too.", WAIT_SECONDS, key, version
            )
            return build()
        time.sleep(POLL_SECONDS)
    value = cache.get(key, version=version)
    return build() if value is None else value
