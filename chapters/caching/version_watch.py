"""The wiki's version as each server process knows it: read after a change, not per page.

Every cached page is keyed by the wiki's version (:class:`~chapters.models.WikiVersion`),
and reading it is a round trip to the database on every request, on PostgreSQL a large part
of what a cached page costs (``bench/README.md``). So on PostgreSQL the trigger that bumps
the version also sends a notification (``pg_notify('chapters_wiki_version', '')``,
migration 0011), and each process listens on that channel on a connection of its own
(PostgreSQL's ``LISTEN``/``NOTIFY``, https://www.postgresql.org/docs/current/sql-notify.html;
psycopg's ``Connection.notifies``). It reads the version again after a notification has
arrived, and otherwise answers from memory: a check of the listening socket, no query. Where
this sits in the reader cache's story is told in :mod:`chapters.caching`.

What keeps the answer right:

- The process listens before it reads: every commit after its read sends it a notification.
- PostgreSQL sends a notification when the writing transaction commits, to every listening
  connection, whichever server it is on. It arrives a moment after the commit, not in the
  same instant.
- A process reads the version again as soon as a write of its own commits
  (:func:`forget_after_writes`), without waiting for the notification: an editor never
  sees the page from before their edit, whichever of their process's threads serves it.
- Inside a transaction (an atomic block: a view or command that writes and then reads, and
  every test that is rolled back), notifications of its own writes would only be sent at
  its commit, so there the version is read with a query, as it sees it.
- ``manage.py flush`` empties the tables with ``TRUNCATE``, which notifies too (migration
  0011).
- When the listening connection is lost (a database restart), the version is read with a
  query until a new connection is listening; failing to connect is tried again after
  ``RECHECK_SECONDS``. A connection lost without a word (dropped by a network between) or
  a database that sends no notifications is caught by reading the version again at least
  every ``RECHECK_SECONDS``: a change found that way makes the process listen anew.
- Behind a pooler that hands a connection to another client between transactions
  (PgBouncer's transaction pooling), a ``LISTEN`` would not last: set
  ``WIKI_VERSION_NOTIFY=0`` there, and every page reads the version with a query.

SQLite has no notifications, but each connection can tell whether anything changed since
it last looked (:class:`DataVersion`): ``PRAGMA data_version`` changes when another
connection, in this process or another, has committed a change to the database file
(https://www.sqlite.org/pragma.html#pragma_data_version), and the connection's
``total_changes`` counts the rows its own statements wrote, triggers included
(https://www.sqlite.org/c3ref/total_changes.html). While neither has moved, the version row
has not changed, and the version read last on that connection is still the version; when
either has moved, the version is read with a query. Inside a transaction, and in Django's
manual transaction mode (where a write may yet be rolled back), it is always read with a
query.
"""

import logging
import os
import selectors
import threading
import time

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections

from ..models import WikiVersion

__all__ = ["CHANNEL", "DataVersion", "VersionWatch", "forget_after_writes", "install", "watch"]

logger = logging.getLogger(__name__)

# The channel migration 0011's trigger functions notify.
CHANNEL = "chapters_wiki_version"

# However quiet the listener, a process reads the version again after this many seconds:
# a listening connection that a network dropped without a word stays silent, and so does
# a database that sends no notifications (migration 0011 not applied, or unapplied). A
# version that changed without a notification makes the process listen anew. A minute, as
# the listener's TCP keepalives (LISTENER_PARAMS) find a dead connection in a minute and a
# half; it costs each process one query a minute.
RECHECK_SECONDS = 60

# libpq's parameters for the listening connection, unless the database's settings give
# them (https://www.postgresql.org/docs/current/libpq-connect.html): give up connecting
# after 5 seconds, and probe an idle connection after a minute.
LISTENER_PARAMS = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 60,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


class DataVersion:
    """The wiki's version on SQLite, read with a query only after the database changed.

    Each thread has its own Django connection, so each keeps what its connection read: the
    raw connection, its ``PRAGMA data_version`` and ``total_changes`` then, and the version
    read. Two statements of SQLite's own (no table is read) tell whether it still holds, as
    the module's docstring says; they are sent to the sqlite3 connection directly, so
    Django does not count them among a page's queries.
    """

    def __init__(self):
        self._local = threading.local()

    def current(self):
        """Return the wiki's version, as :meth:`WikiVersion.current` does.

        Returns:
            A ``(token, changed)`` pair: the one read last on this thread's connection, when
            no connection has committed a change since and this one has written nothing;
            otherwise read with a query. Always read with a query inside a transaction or
            with autocommit off.

        Raises:
            django.db.Error: from the query, when the database cannot be read.
        """
        db = connections[DEFAULT_DB_ALIAS]  # this thread's, as ``connection`` stands for
        if db.connection is None:
            db.ensure_connection()
        if db.in_atomic_block or not db.autocommit:  # db.get_autocommit(), once connected
            return WikiVersion.current()
        raw = db.connection
        state = (raw.execute("PRAGMA data_version").fetchone()[0], raw.total_changes)
        seen = getattr(self._local, "seen", None)
        if seen is not None and seen[0] is raw and seen[1] == state:
            return seen[2]
        version = WikiVersion.current()
        self._local.seen = (raw, state, version)
        return version

    def forget(self):
        """Read the version with a query next time on this thread."""
        self._local.seen = None


class VersionWatch:
    """One process's view of the wiki's version, kept current by PostgreSQL's notifications.

    Safe to use from several threads (``bin/serve``'s server runs one per request). No lock
    is held while the version is read: a forget or a notification during the read makes
    the process read again next time instead of keeping what it read.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._listener = None  # a psycopg connection in autocommit mode, listening
        self._selector = None  # watches the listener's socket
        self._pid = None  # the process that opened it
        self._known = None  # the version read since the last notification
        self._read_at = 0.0  # when it was read (time.monotonic())
        self._generation = 0  # counts forgets: a read older than one is not kept
        self._retry_at = 0.0  # no new listener before this, after one failed
        self._data_version = DataVersion()  # on SQLite

    def current(self):
        """Return the wiki's version, as :meth:`WikiVersion.current` does.

        Returns:
            A ``(token, changed)`` pair. On SQLite, as :meth:`DataVersion.current` reads it.
            On PostgreSQL, read with a query inside a transaction, with notifications
            switched off (``settings.WIKI_VERSION_NOTIFY``) or when no connection listens;
            otherwise from memory until a notification arrives, and again at least every
            ``RECHECK_SECONDS``.

        Raises:
            django.db.Error: from the query, when the database cannot be reached.
        """
        if connection.vendor == "sqlite":
            return self._data_version.current()
        if (
            connection.vendor != "postgresql"
            or connection.in_atomic_block
            or not settings.WIKI_VERSION_NOTIFY
        ):
            return WikiVersion.current()
        with self._lock:
            if not self._listening() or self._notified():
                self._forget()
            known, generation = self._known, self._generation
            if known is not None and time.monotonic() - self._read_at < RECHECK_SECONDS:
                return known
        version = WikiVersion.current()
        with self._lock:
            if known is not None and version != known and generation == self._generation:
                # Changed, and no notification came: the listener is deaf (a connection a
                # network dropped silently, a database without migration 0011).
                logger.warning("The wiki's version changed without a notification; listening anew.")
                self._drop()
            elif generation == self._generation and self._listener is not None:
                self._known, self._read_at = version, time.monotonic()
        return version

    def forget(self):
        """Read the version with a query next time (after this process wrote)."""
        with self._lock:
            self._forget()

    def close(self):
        """Close this process's listening connection, if it has one, and forget the version
        and any failure to connect: the next read starts as in a new process (on SQLite,
        on this thread)."""
        with self._lock:
            self._drop()
            self._retry_at = 0.0
        self._data_version.forget()

    def _forget(self):
        """Forget the version read (with the lock held)."""
        self._known = None
        self._generation += 1

    def _listening(self):
        """Return True when this process has a connection listening, opening one if needed.

        A connection opened by a parent process (before a fork) is not this process's:
        it is left to the parent. Failing to connect is logged once and tried again after
        ``RECHECK_SECONDS``; meanwhile the version is read with a query. The connection has
        TCP keepalives and a connection timeout unless the database settings give their own.
        """
        if self._listener is not None and self._pid == os.getpid():
            return True
        self._listener, self._selector, self._pid = None, None, None
        if time.monotonic() < self._retry_at:
            return False
        params = {**LISTENER_PARAMS, **connection.get_connection_params()}
        try:
            listener = psycopg.connect(**params, autocommit=True)
            listener.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as error:
            logger.warning("Cannot listen for the wiki's version, reading it per page: %s", error)
            self._retry_at = time.monotonic() + RECHECK_SECONDS
            return False
        self._selector = selectors.DefaultSelector()
        self._selector.register(listener.fileno(), selectors.EVENT_READ)
        self._listener, self._pid = listener, os.getpid()
        return True

    def _notified(self):
        """Return True when something arrived on the listening connection since the last
        check, consuming it.

        Anything but a notification (in practice the server's notice that it is ending the
        connection, which psycopg reads without an error) drops the connection, so that
        the next request opens a new one.
        """
        if not self._selector.select(timeout=0):
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
            self._selector.close()
            self._listener.close()
        self._listener, self._selector, self._pid = None, None, None
        self._forget()


# The watch of this process.
watch = VersionWatch()
# The statements that write no row, by their first word: a read, a setting's value, a setting.
READING = {"SELECT", "SHOW", "SET"}


def forget_after_writes(execute, sql, params, many, context):
    """Run a statement; when it may have written, make this process read the version again
    once its transaction commits.

    A Django execute wrapper (https://docs.djangoproject.com/en/5.2/topics/db/instrumentation/),
    installed on every PostgreSQL connection by :func:`install`. Anything but a ``SELECT``,
    a ``SHOW`` or a ``SET`` of a setting (search's planner setting, ``search.indexed()``)
    may have written. The notification of this process's own commit arrives a moment after it,
    and the next page this process serves (the editor's, after a redirect; a test's, after
    a save) must not come before it. Outside a transaction the statement has committed when
    it returns (or, in Django's manual transaction mode, is committed by hand later, and its
    notification then follows); a transaction rolled back forgets nothing.

    Args:
        execute, sql, params, many, context: as Django passes them to an execute wrapper.

    Returns:
        What ``execute`` returns.
    """
    result = execute(sql, params, many, context)
    if (sql.split(None, 1) or [""])[0].upper() not in READING:
        if context["connection"].in_atomic_block:
            context["connection"].on_commit(watch.forget)
        else:  # committed (autocommit), or to be committed by hand: the notification follows
            watch.forget()
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
