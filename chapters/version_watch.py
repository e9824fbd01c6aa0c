"""The wiki's version as each server process knows it: read after a change, not per page.

Every cached page is keyed by the wiki's version (:class:`~chapters.models.WikiVersion`),
and reading it is a round trip to the database on every request. On PostgreSQL over
loopback that costs about 180 µs through Django, more than half of what a cached page costs
in all (``bench/README.md``). So on PostgreSQL the trigger that bumps the version also sends
a notification (``pg_notify('chapters_wiki_version', '')``, migration 0011), and each process
listens on that channel on a connection of its own (PostgreSQL's ``LISTEN``/``NOTIFY``,
https://www.postgresql.org/docs/current/sql-notify.html; psycopg's ``Connection.notifies``).
It reads the version again after a notification has arrived, and otherwise answers from
memory: a check of the listening socket, no query.

What keeps the answer right:

- The process listens before it reads: every commit after its read sends it a notification.
- PostgreSQL sends a notification when the writing transaction commits, to every listening
  connection, whichever server it is on. It arrives a moment after the commit (well under a
  millisecond on one machine), not in the same instant.
- A process reads the version again as soon as a write of its own commits
  (:func:`forget_after_writes`), without waiting for the notification: an editor never
  sees the page from before their edit, whichever of their process's threads serves it.
- Inside a transaction (an atomic block: a view or command that writes and then reads, and
  every test that is rolled back), notifications of its own writes would only be sent at
  its commit, so there the version is read with a query, as it sees it.
- When the listening connection is lost (a database restart), the version is read with a
  query until a new connection is listening.
- Behind a pooler that hands a connection to another client between transactions
  (PgBouncer's transaction pooling), a ``LISTEN`` would not last: set
  ``WIKI_VERSION_NOTIFY=0`` there, and every page reads the version with a query.

SQLite has no notifications, and its query costs about 16 µs in the process: it is kept.
"""

import logging
import os
import select
import threading

import psycopg
from django.conf import settings
from django.db import connection

from .models import WikiVersion

__all__ = ["CHANNEL", "VersionWatch", "forget_after_writes", "install", "watch"]

logger = logging.getLogger(__name__)

# The channel migration 0011's trigger function notifies.
CHANNEL = "chapters_wiki_version"


class VersionWatch:
    """One process's view of the wiki's version, kept current by PostgreSQL's notifications.

    Safe to use from several threads (``bin/serve``'s server runs one per request).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._listener = None  # a psycopg connection in autocommit mode, listening
        self._pid = None  # the process that opened it
        self._known = None  # the version read since the last notification

    def current(self):
        """Return the wiki's version, as :meth:`WikiVersion.current` does.

        Returns:
            A ``(token, changed)`` pair. Read with a query on SQLite, inside a transaction,
            with notifications switched off (``settings.WIKI_VERSION_NOTIFY``) or when no
            connection listens; otherwise from memory until a notification arrives.

        Raises:
            django.db.Error: from the query, when the database cannot be reached.
        """
        if (
            connection.vendor != "postgresql"
            or connection.in_atomic_block
            or not settings.WIKI_VERSION_NOTIFY
        ):
            return WikiVersion.current()
        with self._lock:
            if not self._listening() or self._notified():
                self._known = None
            if self._known is None:
                version = WikiVersion.current()
                if self._listener is not None:
                    self._known = version
                return version
            return self._known

    def forget(self):
        """Read the version with a query next time (after this process wrote)."""
        with self._lock:
            self._known = None

    def close(self):
        """Stop listening: close this process's listening connection, if it has one."""
        with self._lock:
            self._drop()

    def _listening(self):
        """Return True when this process has a connection listening, opening one if needed.

        A connection opened by a parent process (before a fork) is not this process's:
        it is left to the parent. Failing to connect is logged and leaves no listener, so
        the version is read with a query.
        """
        if self._listener is not None and self._pid == os.getpid():
            return True
        self._listener, self._known = None, None
        try:
            listener = psycopg.connect(**connection.get_connection_params(), autocommit=True)
            listener.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error:
            logger.warning("Cannot listen for the wiki's version; reading it per page.")
            return False
        self._listener, self._pid = listener, os.getpid()
        return True

    def _notified(self):
        """Return True when something arrived on the listening connection since the last
        check, consuming it.

        Anything but a notification (in practice the server's notice that it is ending the
        connection, which psycopg reads without an error) drops the connection, so that
        the next request opens a new one.
        """
        readable, _, _ = select.select([self._listener.fileno()], [], [], 0)
        if not readable:
            return False
        try:
            received = list(self._listener.notifies(timeout=0))
        except psycopg.Error:
            received = []
        if not received:
            self._drop()
        return True

    def _drop(self):
        """Close the listening connection, if any, and forget the version."""
        if self._listener is not None and self._pid == os.getpid():
            self._listener.close()
        self._listener, self._pid, self._known = None, None, None


# The watch of this process.
watch = VersionWatch()


def forget_after_writes(execute, sql, params, many, context):
    """Run a statement; when it may have written, make this process read the version again
    once its transaction commits.

    A Django execute wrapper (https://docs.djangoproject.com/en/5.2/topics/db/instrumentation/),
    installed on every PostgreSQL connection by :func:`install`. Anything but a ``SELECT`` may
    have written. The notification of this process's own commit arrives a moment after it,
    and the next page this process serves (the editor's, after a redirect; a test's, after
    a save) must not come before it. Outside a transaction the statement has committed when
    it returns, and ``on_commit`` runs at once; a transaction rolled back forgets nothing.

    Args:
        execute, sql, params, many, context: as Django passes them to an execute wrapper.

    Returns:
        What ``execute`` returns.
    """
    result = execute(sql, params, many, context)
    if not sql.lstrip()[:6].upper().startswith("SELECT"):
        context["connection"].on_commit(watch.forget)
    return result


def install(sender, connection, **kwargs):
    """Put :func:`forget_after_writes` on a new PostgreSQL connection (``connection_created``).

    Args:
        sender: the database wrapper's class.
        connection: the database wrapper; its execute wrappers outlive a reconnection, so
            the wrapper is added once.
    """
    if connection.vendor == "postgresql" and forget_after_writes not in connection.execute_wrappers:
        connection.execute_wrappers.append(forget_after_writes)
