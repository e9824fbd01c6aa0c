"""Writes to the tree from several processes at once: nothing lost, nothing corrupted."""

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError

from chapters.models import Node, lock_tree
from tests.tree_writer import OPERATIONS

WORKERS = 4
# How long the workers write at once: a minute on PostgreSQL, where server processes write
# at the same time; on SQLite, whose one write lock makes them take turns, less.
SECONDS = {"postgresql": 60, "sqlite": 20}


def build_tree():
    """Create three areas of three sections of three chapters, every slug unique.

    Unique slugs keep sibling-slug clashes out of the workers' way, so that a refused write
    can only be a move the tree's rules refuse.

    Returns:
        The primary keys of the nodes created.
    """
    pks = []
    for a in range(3):
        area = Node.objects.create(title=f"Area {a}", kind=Node.Kind.SECTION)
        pks.append(area.pk)
        for s in range(3):
            section = Node.objects.create(
                title=f"Section {a}.{s}", kind=Node.Kind.SECTION, parent=area
            )
            pks.append(section.pk)
            for c in range(3):
                chapter = Node.objects.create(title=f"Chapter {a}.{s}.{c}", parent=section)
                pks.append(chapter.pk)
    return pks


def database_url():
    """Return the URL of the PostgreSQL test database, for the workers' DATABASE_URL."""
    db = connection.settings_dict
    user = quote(db["USER"], safe="") + (
        f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    )
    return f"postgres://{user}@{db['HOST']}:{db['PORT']}/{quote(db['NAME'], safe='')}"


def run_workers(url, seconds):
    """Run ``WORKERS`` processes of tests/tree_writer.py at once for ``seconds``; return
    their reports."""
    env = {**os.environ, "DATABASE_URL": url}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.tree_writer", str(worker), str(seconds)],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(WORKERS)
    ]
    outputs = [process.communicate(timeout=seconds + 120) for process in processes]
    failures = [
        err for process, (_, err) in zip(processes, outputs, strict=True) if process.returncode
    ]
    assert not failures, "\n".join(failures)
    return [json.loads(out) for out, _ in outputs]


def wrong_paths():
    """Return ``(pk, stored path, path made of the ancestors' slugs)`` where the two differ."""
    nodes = {n.pk: n for n in Node.objects.only("pk", "parent", "slug", "path")}

    def built(node):
        parent = nodes.get(node.parent_id)
        return f"{built(parent)}/{node.slug}" if parent else node.slug

    return [(n.pk, n.path, built(n)) for n in nodes.values() if n.path != built(n)]


def assert_valid_tree(initial, reports):
    """Check the tree the workers left behind.

    Its fields are what django-mptt's ``rebuild()`` makes of the parents, every node is there
    (the first ones and the workers' own, less those they deleted), every stored path is made
    of the ancestors' slugs, and each worker made every kind of write at least once (so the
    test tested something).

    Args:
        initial: the primary keys of the nodes there before the workers started.
        reports: the workers' reports.
    """
    kept = [pk for report in reports for pk in report["kept"]]
    assert Node.objects.check_tree() == []
    assert sorted(Node.objects.values_list("pk", flat=True)) == sorted(initial + kept)
    assert wrong_paths() == []
    assert all(report["done"][write] > 0 for report in reports for write in OPERATIONS), reports


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_concurrent_tree_writes_leave_a_valid_tree_on_postgresql():
    initial = build_tree()
    reports = run_workers(database_url(), SECONDS["postgresql"])
    assert_valid_tree(initial, reports)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the test of SQLite's locking")
@pytest.mark.django_db(transaction=True)
def test_concurrent_tree_writes_leave_a_valid_tree_on_sqlite(tmp_path):
    # The test database lives in memory; the workers share a copy of it in a file, which is
    # copied back for the checks.
    initial = build_tree()
    copy = tmp_path / "db.sqlite3"
    with closing(sqlite3.connect(copy)) as target:
        connection.connection.backup(target)
    reports = run_workers(f"sqlite:///{copy}", SECONDS["sqlite"])
    with closing(sqlite3.connect(copy)) as source:
        source.backup(connection.connection)
    assert_valid_tree(initial, reports)


@pytest.mark.django_db(transaction=True)
def test_lock_tree_outside_a_transaction_is_refused():
    with pytest.raises(TransactionManagementError, match="inside an atomic block"):
        lock_tree()


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_lock_tree_holds_an_advisory_lock_until_the_transaction_ends():
    held = (
        "SELECT classid::bigint << 32 | objid::bigint FROM pg_locks "
        "WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted"
    )
    with connection.cursor() as cursor:
        with transaction.atomic():
            lock_tree()
            cursor.execute(held)
            assert cursor.fetchall() == [(int.from_bytes(b"wikitree", "big"),)]
        cursor.execute(held)
        assert cursor.fetchall() == []
