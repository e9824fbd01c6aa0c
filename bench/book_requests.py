"""Concurrent anonymous requests for one book through gunicorn: how many builds they start
(one, chapters/books/builds.py), how fast they are answered, how long one worker takes to
build the book, and how fast the built book is sent to as many requests at once.

Run by ``bench/books.py --requests`` (see there), which calls :func:`run`; the measuring
process is this module run with ``python -m bench.book_requests`` on the fresh database.
"""

import argparse
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import django

__all__ = ["run"]

ROOT = Path(__file__).resolve().parent.parent
SIZE = 222  # the curriculum's tree (bench/tree.py)
POLL_SECONDS = 0.5  # how often the built book is asked for while a worker builds it
BUILD_TASK = "chapters.tasks.build_book"


def run(database_url, count, workers, book):
    """Make a fresh database, then measure in a process of its own; print the results.

    Args:
        database_url: a PostgreSQL database to drop and create anew, or None for a SQLite
            file in a temporary directory.
        count: how many concurrent requests.
        workers: gunicorn's worker processes.
        book: the book's path, ``/books/<format>/[<section path>/]``.
    """
    with tempfile.TemporaryDirectory() as scratch:
        url, drop = _fresh_database(database_url, scratch)
        env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
        env.update(
            DATABASE_URL=url,
            DJANGO_SETTINGS_MODULE="bench.settings",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            WIKI_BOOKS_ROOT=str(Path(scratch) / "books"),
        )
        command = [sys.executable, "-m", "bench.book_requests", "--scratch", scratch]
        command += ["--count", str(count), "--workers", str(workers), "--book", book]
        try:
            subprocess.run(command, cwd=ROOT, env=env, check=True)
        finally:
            drop()


def _fresh_database(database_url, scratch):
    """Return the URL of an empty database and the function that drops it."""
    if database_url is None:
        return f"sqlite:///{scratch}/bench.sqlite3", lambda: None
    import psycopg

    name = urlsplit(database_url).path.strip("/")
    admin_url = urlsplit(database_url)._replace(path="/postgres").geturl()

    def drop():
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    drop()
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return database_url, drop


def _ask_at_once(url, count):
    """Send ``count`` GETs of ``url`` at the same instant, one thread each.

    Returns:
        The ``(status, milliseconds, body)`` of each answer.
    """
    barrier = threading.Barrier(count)
    answers = [None] * count

    def ask(index):
        barrier.wait()
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=300) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
        answers[index] = (status, (time.perf_counter() - start) * 1000, body)

    threads = [threading.Thread(target=ask, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def _times(answers):
    """Return the answers' statuses and times as one line."""
    counts = ", ".join(
        f"{sum(status == code for code, _ms, _body in answers)} × {status}"
        for status in sorted({status for status, _ms, _body in answers})
    )
    times = sorted(ms for _status, ms, _body in answers)
    return (
        f"{counts}; median {statistics.median(times):,.0f} ms, 90th percentile "
        f"{times[int(len(times) * 0.9) - 1]:,.0f} ms, slowest {times[-1]:,.0f} ms"
    )


def _progress_label(body):
    """Return the waiting page's progress text, or None."""
    found = re.search(rb'<label for="book-progress">([^<]*)</label>', body)
    return found.group(1).decode() if found else None


def _started(command, log):
    """Start ``command`` from the repository's root, its output into ``log``."""
    return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def _stop(process):
    """Stop a process started by :func:`_started` and wait for it."""
    process.terminate()
    process.wait(timeout=60)


def measure(scratch, count, workers, book):
    """Serve a fresh curriculum with gunicorn, send the requests and print what they did."""
    from django.core.management import call_command
    from django.db import connection
    from django_tasks_db.models import DBTaskResult

    from bench.serving import free_port, gunicorn_command, wait_until_up
    from bench.tree import create_tree
    from chapters.models import BookBuild

    call_command("migrate", verbosity=0)
    create_tree(SIZE)
    database = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}[connection.vendor]
    port = free_port()
    url = f"http://127.0.0.1:{port}{book}"
    load = os.getloadavg()
    with open(Path(scratch) / "gunicorn.log", "wb") as log:
        server = _started(gunicorn_command(port, workers), log)
        try:
            wait_until_up(f"http://127.0.0.1:{port}/")
            waiting = _ask_at_once(url, count)
            builds = BookBuild.objects.count()
            tasks = DBTaskResult.objects.filter(task_path=BUILD_TASK).count()
            worker = _started([sys.executable, "manage.py", "worker"], log)
            start, labels = time.perf_counter(), []
            try:
                while True:
                    try:
                        with urllib.request.urlopen(url, timeout=300) as response:
                            status, body = response.status, response.read()
                    except urllib.error.HTTPError as error:
                        status, body = error.code, error.read()
                    if status != 202:
                        break
                    label = _progress_label(body)
                    if label not in labels:
                        labels.append(label)
                    time.sleep(POLL_SECONDS)
                built_seconds = time.perf_counter() - start
            finally:
                _stop(worker)
            served = _ask_at_once(url, count)
        finally:
            _stop(server)
    print(
        f"{database}, {SIZE} nodes, gunicorn with {workers} workers, {count} concurrent "
        f"anonymous requests for {book} (load average before {load[0]:.2f}, after "
        f"{os.getloadavg()[0]:.2f}):"
    )
    print(f"  builds started: {builds}; build tasks enqueued: {tasks}")
    print(f"  while building: {_times(waiting)}")
    print(
        f"  built by one worker in {built_seconds:.1f} s (then answered {status}); "
        f"progress seen: {labels}"
    )
    print(f"  built book: {_times(served)}, {len(served[0][2]):,} bytes each")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--book", required=True)
    arguments = parser.parse_args()
    django.setup()
    measure(arguments.scratch, arguments.count, arguments.workers, arguments.book)


if __name__ == "__main__":
    main()
