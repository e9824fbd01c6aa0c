"""Each process's version of the wiki: from memory on PostgreSQL until a notification.

The PostgreSQL tests commit (``transaction=True``): notifications are sent only at commit,
and inside the rolled-back transaction of the other tests the version is read with a query.
"""

import os
import resource
import sqlite3
import threading
import time
from contextlib import closing

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction
from django.db.backends.signals import connection_created

from chapters.caching import version_watch
from chapters.caching.version_watch import CHANNEL, forget_after_writes, watch
from chapters.models import Node, WikiVersion
from tests.test_admin import change_url, form_data
from tests.test_caching import BEFORE_EDIT, CHAPTER_FIVE, EDITS, reader_page

committed = pytest.mark.django_db(transaction=True)


def other_connection():
    """Return a psycopg connection of its own to the test database, in autocommit mode,
    standing for another server process."""
    return psycopg.connect(**connection.get_connection_params(), autocommit=True)


def wait_for_version(old, seconds=10):
    """Return ``watch.current()`` once it differs from ``old``; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while (current := watch.current()) == old:
        assert time.monotonic() < deadline, f"no notification within {seconds} s"
        time.sleep(0.005)
    return current


@pytest.mark.django_db
def test_inside_a_transaction_the_version_is_read_with_a_query(
    small_tree, django_assert_num_queries
):
    with django_assert_num_queries(1):
        before = watch.current()
    assert before == WikiVersion.current()
    Node.objects.filter(title="Chapter One").update(title="Chapter 1")
    with django_assert_num_queries(1):
        after = watch.current()
    assert after == WikiVersion.current() != before


@pytest.mark.postgresql
def test_the_migrated_trigger_notifies_the_channel_at_commit(transactional_db):
    with other_connection() as listener, other_connection() as writer:
        listener.execute(f"LISTEN {CHANNEL}")
        with writer.transaction():
            writer.execute(
                "INSERT INTO chapters_pathredirect (old_path, node_id) "
                "SELECT 'old/path', id FROM chapters_node LIMIT 0"
            )
            writer.execute("UPDATE chapters_node SET lft = lft WHERE false")
            assert list(listener.notifies(timeout=0.2)) == []  # nothing before the commit
        received = list(listener.notifies(timeout=5, stop_after=1))
        assert [(n.channel, n.payload) for n in received] == [(CHANNEL, "")]
        assert list(listener.notifies(timeout=0.2)) == []  # one per transaction


@pytest.mark.postgresql
@committed
def test_the_version_is_read_once_until_another_process_writes(
    small_tree, django_assert_num_queries
):
    watch.close()
    with django_assert_num_queries(1):
        first = watch.current()
    with django_assert_num_queries(0):
        assert [watch.current() for _ in range(3)] == [first] * 3
    with other_connection() as writer:
        writer.execute("UPDATE chapters_node SET title = 'Chapter 1' WHERE title = 'Chapter One'")
    changed = wait_for_version(first)
    assert changed == WikiVersion.current() != first
    with django_assert_num_queries(0):
        assert watch.current() == changed


@pytest.mark.postgresql
@committed
def test_a_warm_page_makes_no_query(client, small_tree, django_assert_num_queries):
    # Listening anew, after the tree's writes: a listener left open by an earlier test would
    # still receive their notifications, and read the version again for them.
    watch.close()
    first = reader_page(client, CHAPTER_FIVE)
    with django_assert_num_queries(0):
        assert reader_page(client, CHAPTER_FIVE) == first


@pytest.mark.postgresql
@committed
def test_another_process_edit_shows_on_the_cached_pages(client, small_tree):
    before = reader_page(client, CHAPTER_FIVE).decode()
    assert ">Chapter One</a>" in before
    version = watch.current()
    with other_connection() as writer:
        writer.execute("UPDATE chapters_node SET title = 'Chapter 1' WHERE title = 'Chapter One'")
    wait_for_version(version)
    after = reader_page(client, CHAPTER_FIVE).decode()
    assert ">Chapter 1</a>" in after
    assert ">Chapter One</a>" not in after


@pytest.mark.postgresql
@committed
@pytest.mark.parametrize("kind", EDITS)
def test_every_edit_of_this_process_shows_at_once(client, small_tree, kind):
    BEFORE_EDIT.get(kind, lambda: None)()
    before = reader_page(client, CHAPTER_FIVE)
    assert reader_page(client, CHAPTER_FIVE) == before  # now cached
    EDITS[kind]()
    after = reader_page(client, CHAPTER_FIVE)  # no waiting for the notification
    assert after != before


@pytest.mark.postgresql
@committed
def test_an_edit_in_the_admin_shows_at_once(client, small_tree, admin_user):
    reader_page(client, CHAPTER_FIVE)
    client.force_login(admin_user)
    response = client.post(change_url("Chapter One"), form_data("Chapter One", title="Chapter 1"))
    assert response.status_code == 302, response.content.decode()[:2000]
    client.logout()
    assert ">Chapter 1</a>" in reader_page(client, CHAPTER_FIVE).decode()


@pytest.mark.postgresql
@committed
def test_a_rolled_back_write_forgets_nothing(small_tree, django_assert_num_queries):
    watch.close()
    version = watch.current()
    with pytest.raises(RuntimeError), transaction.atomic():
        Node.objects.filter(title="Chapter One").update(title="Chapter 1")
        raise RuntimeError
    with django_assert_num_queries(0):
        assert watch.current() == version


@pytest.mark.postgresql
@committed
def test_a_lost_listening_connection_falls_back_to_a_query_then_listens_again(
    small_tree, django_assert_num_queries
):
    watch.close()
    version = watch.current()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND query = %s",
            [f"LISTEN {CHANNEL}"],
        )
        assert cursor.fetchone() == (True,)
    time.sleep(0.2)  # the server closes the connection
    with django_assert_num_queries(1):
        assert watch.current() == version  # read with a query: the old listener is gone
    with django_assert_num_queries(1):
        assert watch.current() == version  # a new one listens and reads once
    with django_assert_num_queries(0):
        assert watch.current() == version


@pytest.mark.postgresql
@committed
def test_with_notifications_off_every_read_is_a_query(
    small_tree, settings, django_assert_num_queries
):
    settings.WIKI_VERSION_NOTIFY = False
    with django_assert_num_queries(2):
        watch.current(), watch.current()


def test_only_statements_that_may_write_forget_the_version(monkeypatch):
    forgotten = []
    monkeypatch.setattr(watch, "forget", lambda: forgotten.append(True))

    class Connection:
        """A connection in or out of a transaction; on commit it runs its callbacks."""

        def __init__(self, in_atomic_block):
            self.in_atomic_block, self.callbacks = in_atomic_block, []

        def on_commit(self, func):
            self.callbacks.append(func)

        def commit(self):
            for func in self.callbacks:
                func()

    def execute(sql, params, many, context):
        return sql

    outside = {"connection": Connection(in_atomic_block=False)}
    inside = {"connection": Connection(in_atomic_block=True)}
    # Reads, and the settings of a session or transaction (search.indexed() sets the planner's
    # enable_seqscan for its transaction: every search made the next page read the version).
    reads = ["SELECT 1", "  select number FROM chapters_wikiversion", "SHOW enable_seqscan"]
    for sql in [*reads, "SET LOCAL enable_seqscan = off", "set\nstatement_timeout = 0"]:
        assert forget_after_writes(execute, sql, None, False, outside) == sql
        assert forget_after_writes(execute, sql, None, False, inside) == sql
    inside["connection"].commit()
    assert forgotten == []
    for sql in ["UPDATE chapters_node SET lft = lft", "INSERT INTO x VALUES (1)", "TRUNCATE x"]:
        forget_after_writes(execute, sql, None, False, outside)
    assert forgotten == [True] * 3
    forget_after_writes(execute, "DELETE FROM x", None, False, inside)
    assert forgotten == [True] * 3  # not before the commit
    inside["connection"].commit()
    assert forgotten == [True] * 4


@committed
def test_every_postgresql_connection_watches_for_writes():
    connection.ensure_connection()
    installed = connection.execute_wrappers.count(forget_after_writes)
    assert installed == (1 if connection.vendor == "postgresql" else 0)
    connection.close()
    connection.ensure_connection()  # a new connection: the wrapper is not added twice
    assert connection.execute_wrappers.count(forget_after_writes) == installed


@pytest.mark.postgresql
@committed
def test_flush_by_another_process_notifies(small_tree):
    version = watch.current()
    with other_connection() as writer:
        writer.execute(
            "TRUNCATE chapters_node, chapters_link, chapters_pathredirect, chapters_wikiversion "
            "CASCADE"
        )
    assert wait_for_version(version) == ("0", None) == WikiVersion.current()


@pytest.mark.postgresql
@committed
def test_a_deaf_listener_is_caught_by_reading_again_and_replaced(
    small_tree, monkeypatch, django_assert_num_queries
):
    watch.close()
    version = watch.current()
    watch._listener.execute(f"UNLISTEN {CHANNEL}")  # as if a network had dropped it silently
    with other_connection() as writer:
        writer.execute("UPDATE chapters_node SET title = 'Chapter 1' WHERE title = 'Chapter One'")
    time.sleep(0.2)
    assert watch.current() == version  # nothing arrived, and it is not time to look
    monkeypatch.setattr(version_watch, "RECHECK_SECONDS", 0)
    changed = watch.current()
    assert changed == WikiVersion.current() != version
    monkeypatch.setattr(version_watch, "RECHECK_SECONDS", 60)
    with django_assert_num_queries(1):
        assert watch.current() == changed  # a new listener, and one read
    with other_connection() as writer:
        writer.execute("UPDATE chapters_node SET title = 'Chapter 2' WHERE title = 'Chapter Two'")
    assert wait_for_version(changed) == WikiVersion.current()  # and it hears


@pytest.mark.postgresql
@committed
def test_a_listener_that_cannot_connect_is_tried_again_later(
    small_tree, monkeypatch, caplog, django_assert_num_queries
):
    watch.close()
    attempts, connect = [], psycopg.connect

    def refuse_listeners(**params):
        if "autocommit" not in params:  # Django's own connection
            return connect(**params)
        attempts.append(params)
        raise psycopg.OperationalError("too many clients already")

    monkeypatch.setattr(psycopg, "connect", refuse_listeners)
    with django_assert_num_queries(3):
        versions = {watch.current() for _ in range(3)}
    assert versions == {WikiVersion.current()}
    assert len(attempts) == 1
    assert attempts[0]["connect_timeout"] == 5
    assert [r.getMessage() for r in caplog.records] == [
        "Cannot listen for the wiki's version, reading it per page: too many clients already"
    ]
    watch.close()  # as a new process would
    watch.current()
    assert len(attempts) == 2


@pytest.mark.postgresql
@committed
def test_a_listener_with_a_high_file_descriptor_works(small_tree):
    watch.close()  # before the descriptors below fill the low numbers, not after, freeing one
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        version = watch.current()
        assert watch._listener.fileno() >= 1024
        with other_connection() as writer:
            writer.execute("UPDATE chapters_node SET lft = lft WHERE false")
        assert wait_for_version(version) == WikiVersion.current()
    finally:
        watch.close()
        for descriptor in held:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.postgresql
@committed
def test_writes_in_manual_transaction_mode_forget_the_version(small_tree):
    watch.current()
    transaction.set_autocommit(False)
    try:
        Node.objects.filter(title="Chapter One").update(title="Chapter 1")
        transaction.commit()
    finally:
        transaction.set_autocommit(True)
    assert watch.current() == WikiVersion.current()


@pytest.mark.postgresql
@committed
def test_a_write_while_connecting_does_not_deadlock(small_tree):
    def set_timeout(sender, connection, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = '30s'")

    connection_created.connect(set_timeout)
    try:
        connection.close()
        reader = threading.Thread(target=watch.current, daemon=True)
        reader.start()
        reader.join(10)
        assert not reader.is_alive()
    finally:
        connection_created.disconnect(set_timeout)


on_sqlite = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3",
    reason="SQLite's PRAGMA data_version",
)


def other_sqlite_connection():
    """Return a sqlite3 connection of its own to the test database, in autocommit mode,
    standing for another server process (SQLite tells any other connection's commits
    apart from this one's alike, in this process or another)."""
    name = connection.settings_dict["NAME"]
    return closing(sqlite3.connect(name, uri=True, isolation_level=None))


@on_sqlite
@committed
def test_on_sqlite_the_version_is_read_once_until_another_connection_writes(
    small_tree, django_assert_num_queries
):
    watch.close()
    with django_assert_num_queries(1):
        first = watch.current()
    with django_assert_num_queries(0):
        assert [watch.current() for _ in range(3)] == [first] * 3
    with other_sqlite_connection() as writer:
        writer.execute("UPDATE chapters_node SET title = 'Chapter 1' WHERE title = 'Chapter One'")
    with django_assert_num_queries(1):
        changed = watch.current()
    assert changed == WikiVersion.current() != first
    with django_assert_num_queries(0):
        assert watch.current() == changed


@on_sqlite
@committed
def test_on_sqlite_a_write_of_this_connection_is_read_at_once(
    small_tree, django_assert_num_queries
):
    first = watch.current()
    Node.objects.filter(title="Chapter One").update(title="Chapter 1")
    with django_assert_num_queries(1):
        changed = watch.current()
    assert changed == WikiVersion.current() != first


@on_sqlite
@committed
def test_on_sqlite_a_rolled_back_write_reads_the_version_again(
    small_tree, django_assert_num_queries
):
    first = watch.current()
    with pytest.raises(RuntimeError), transaction.atomic():
        Node.objects.filter(title="Chapter One").update(title="Chapter 1")
        raise RuntimeError
    with django_assert_num_queries(1):
        assert watch.current() == first


@on_sqlite
@committed
def test_on_sqlite_with_autocommit_off_every_read_is_a_query(small_tree, django_assert_num_queries):
    watch.current()
    transaction.set_autocommit(False)
    try:
        with django_assert_num_queries(2):
            reads = [watch.current(), watch.current()]
        assert reads == [WikiVersion.current()] * 2
    finally:
        transaction.rollback()
        transaction.set_autocommit(True)


@on_sqlite
@committed
def test_on_sqlite_a_warm_page_makes_no_query_and_another_connection_edit_shows_at_once(
    client, small_tree, django_assert_num_queries
):
    first = reader_page(client, CHAPTER_FIVE)
    with django_assert_num_queries(0):
        assert reader_page(client, CHAPTER_FIVE) == first
    with other_sqlite_connection() as writer:
        writer.execute("UPDATE chapters_node SET title = 'Chapter 1' WHERE title = 'Chapter One'")
    after = reader_page(client, CHAPTER_FIVE).decode()
    assert ">Chapter 1</a>" in after
    assert ">Chapter One</a>" not in after


@on_sqlite
@committed
def test_on_sqlite_each_thread_reads_the_version_on_its_own_connection(small_tree):
    watch.current()
    seen = []

    def in_a_thread():
        try:
            seen.append(watch.current())
            Node.objects.filter(title="Chapter One").update(title="Chapter 1")
            seen.append(watch.current())
        finally:
            connection.close()

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen[0] != seen[1] == watch.current() == WikiVersion.current()
