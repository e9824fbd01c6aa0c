"""Background tasks: the worker's retries, heartbeats and hand-backs, the failed tasks'
command, and a worker killed mid-task."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from chapters.models import TaskWorker
from chapters.worker import RETRY_DELAYS, hand_back_orphans
from tests import tasks
from tests.test_concurrency import database_url


def row(result):
    """Return the stored row of a task's result."""
    return DBTaskResult.objects.get(pk=result.id)


@pytest.mark.django_db
def test_task_runs_in_the_worker_and_succeeds(run_tasks, tmp_path):
    result = tasks.append_line.enqueue(str(tmp_path / "out"), "done")
    assert row(result).status == TaskResultStatus.READY
    assert run_tasks() == 1
    assert row(result).status == TaskResultStatus.SUCCESSFUL
    assert (tmp_path / "out").read_text() == "done\n"


@pytest.mark.django_db
def test_failed_task_runs_again_after_each_delay_then_stays_failed(run_tasks, caplog):
    result = tasks.fail.enqueue("the mail server is down")
    for attempt, delay in enumerate(RETRY_DELAYS, start=1):
        before = timezone.now()
        assert run_tasks() == 1
        stored = row(result)
        assert stored.status == TaskResultStatus.READY
        assert len(stored.worker_ids) == attempt
        wait = stored.run_after - before
        assert timedelta(seconds=delay) <= wait < timedelta(seconds=delay + 5)
        assert run_tasks() == 0  # not before its delay
        DBTaskResult.objects.filter(pk=result.id).update(run_after=timezone.now())
    assert run_tasks() == 1
    stored = row(result)
    assert stored.status == TaskResultStatus.FAILED
    assert stored.exception_class_path == "builtins.RuntimeError"
    assert "RuntimeError: the mail server is down" in stored.traceback
    failures = [r for r in caplog.records if r.name == "django_tasks" and r.levelname == "ERROR"]
    assert len(failures) == len(RETRY_DELAYS) + 1
    assert all("RuntimeError: the mail server is down" in r.exc_text for r in failures)
    worker_lines = [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == "chapters.worker"
    ]
    assert worker_lines[0] == (
        "WARNING",
        f"Task {result.id} (tests.tasks.fail) failed, attempt 1; it runs again in 60 s.",
    )
    assert worker_lines[-1] == (
        "ERROR",
        f"Task {result.id} (tests.tasks.fail) failed for the last time, attempt 6; it stays "
        "failed (manage.py failed_tasks --retry runs it again).",
    )


@pytest.mark.django_db
def test_failed_tasks_are_listed_and_run_again_by_the_command(run_tasks, tmp_path):
    result = tasks.fail.enqueue("no")
    DBTaskResult.objects.filter(pk=result.id).update(
        status=TaskResultStatus.FAILED,
        worker_ids=["a", "b"],
        exception_class_path="builtins.RuntimeError",
        enqueued_at=datetime(2026, 12, 1, 10, 0, tzinfo=UTC),
        finished_at=datetime(2026, 12, 1, 12, 30, tzinfo=UTC),
    )
    tasks.append_line.enqueue(str(tmp_path / "out"), "done")
    out = StringIO()
    call_command("failed_tasks", stdout=out)
    assert out.getvalue() == (
        f"{result.id}  tests.tasks.fail  enqueued 2026-12-01 10:00:00  failed 2026-12-01 "
        "12:30:00  attempts 2  RuntimeError\n1 failed task(s).\n"
    )
    out = StringIO()
    call_command("failed_tasks", "--retry", stdout=out)
    assert out.getvalue() == "1 failed task(s) will run again.\n"
    stored = row(result)
    assert (stored.status, stored.worker_ids) == (TaskResultStatus.READY, [])


@pytest.mark.django_db
def test_failed_task_named_by_its_id_is_the_only_one_run_again():
    first, second = tasks.fail.enqueue("1"), tasks.fail.enqueue("2")
    DBTaskResult.objects.update(status=TaskResultStatus.FAILED)
    call_command("failed_tasks", "--retry", str(second.id), stdout=StringIO())
    assert row(first).status == TaskResultStatus.FAILED
    assert row(second).status == TaskResultStatus.READY


@pytest.mark.django_db
def test_running_task_of_a_worker_without_heartbeat_is_handed_back(settings):
    now = timezone.now()
    TaskWorker.objects.create(worker_id="alive", hostname="h", pid=1, beat=now)
    TaskWorker.objects.create(
        worker_id="dead", hostname="h", pid=2, beat=now - timedelta(seconds=31)
    )
    kept, lost, unknown = (tasks.fail.enqueue(name) for name in ("kept", "lost", "unknown"))
    for result, worker in ((kept, "alive"), (lost, "dead"), (unknown, "gone")):
        DBTaskResult.objects.filter(pk=result.id).update(
            status=TaskResultStatus.RUNNING, worker_ids=["earlier", worker]
        )
    assert hand_back_orphans() == 2
    assert row(kept).status == TaskResultStatus.RUNNING
    assert row(lost).status == row(unknown).status == TaskResultStatus.READY


def shared_database(tmp_path):
    """Return a database URL that processes started by the test share with it: the
    PostgreSQL test database, or a file copy of SQLite's database in memory."""
    if connection.vendor == "postgresql":
        return database_url()
    copy = tmp_path / "db.sqlite3"
    with closing(sqlite3.connect(copy)) as target:
        connection.connection.backup(target)
    return f"sqlite:///{copy}"


def task_status(url, task_id):
    """Return the status and worker ids of the task ``task_id`` in the database at ``url``."""
    if url.startswith("sqlite:///"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db:
            found = db.execute(
                "SELECT status, worker_ids FROM django_tasks_database_dbtaskresult WHERE id = ?",
                [task_id.replace("-", "")],
            ).fetchone()
        return found[0], json.loads(found[1])
    stored = DBTaskResult.objects.get(pk=task_id)
    return stored.status, stored.worker_ids


def start_worker(url):
    """Start ``manage.py worker`` on the database at ``url``, taking dead workers' tasks after
    two seconds."""
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "WIKI_TASKS_DEAD_AFTER": "2",
    }
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "worker",
            "--no-reload",
            "--no-startup-delay",
            "--interval",
            "0.1",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(url, task_id, status, seconds=60):
    """Wait until the task has ``status``; return its worker ids."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found, workers = task_status(url, task_id)
        if found == status:
            return workers
        time.sleep(0.1)
    raise AssertionError(f"The task is {found}, not {status}, after {seconds} s.")


@pytest.mark.django_db(transaction=True)
def test_task_of_a_worker_killed_mid_task_is_done_once_by_the_next(tmp_path):
    out = tmp_path / "out"
    result = tasks.append_line.enqueue(str(out), "done", seconds=3)
    url = shared_database(tmp_path)
    first = start_worker(url)
    try:
        wait_for(url, result.id, "RUNNING")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert not out.exists()
    second = start_worker(url)
    try:
        workers = wait_for(url, result.id, "SUCCESSFUL")
    finally:
        second.terminate()
        _, errors = second.communicate(timeout=30)
    assert out.read_text() == "done\n"
    assert len(workers) == 2 and workers[0] != workers[1]
    assert "Handed back 1 task(s) whose worker stopped: they run again." in errors
