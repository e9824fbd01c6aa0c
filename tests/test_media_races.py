"""Uploads of one name at the same instant (chapters.media.uploads): each gets a name of its
own, none a 500, and no file is left without its row.

On PostgreSQL the race is forced, as tests/test_races.py forces editors' races: the test's
own connection inserts the name in a transaction it keeps open, the uploads start in threads
(each with a connection of its own, as server processes have) and wait for that row, and
only then does the test commit, so that every upload finds its name taken at the last
moment. On SQLite, whose one write lock makes writers take turns, the uploads start at once
from threads on a copy of the database in a file, as tests/test_concurrency.py does.
"""

import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.test import Client
from django.utils import timezone

from chapters.media import uploads
from chapters.models import MediaItem
from tests.helpers import role_user
from tests.images import png_upload
from tests.test_races import WAIT_SECONDS, Racer

RACERS = 4


def upload_from(client):
    """Return a function that uploads ``diagram.png`` through the editor's endpoint and
    returns the answer's status and the name given (or the error)."""

    def send():
        response = client.post(
            "/media/upload/",
            {"file": png_upload("diagram.png", 64, 48), "alt": "A diagram"},
            HTTP_ACCEPT="application/json",
        )
        answer = response.json() if response.status_code < 500 else {}
        return response.status_code, answer.get("name") or answer.get("error")

    return send


def clients():
    """Return ``RACERS`` clients, each signed in as an editor of its own."""
    signed = []
    for number in range(RACERS):
        client = Client(raise_request_exception=False)
        client.force_login(role_user(f"editor{number}", "Editor"))
        signed.append(client)
    return signed


def stored_files():
    """Return the paths of every file under the uploads' folder, relative to it."""
    root = Path(settings.MEDIA_ROOT)
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def waiting_for_a_row():
    """Return how many connections wait for another transaction (a row it inserted)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted"
        )
        return cursor.fetchone()[0]


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_uploads_of_one_name_at_once_get_names_of_their_own_on_postgresql():
    racers = [Racer(upload_from(client)) for client in clients()]
    with transaction.atomic():
        MediaItem.objects.create(
            name="diagram.png", kind="image", title="First", alt="A", file="elsewhere.png",
            content_type="image/png", size=1, uploaded=timezone.now(),
        )  # fmt: skip
        for racer in racers:
            racer.start()
        deadline = time.monotonic() + WAIT_SECONDS
        while waiting_for_a_row() < RACERS:
            assert time.monotonic() < deadline, "the uploads never waited for the name"
            time.sleep(0.01)
    answers = sorted(racer.finish() for racer in racers)
    assert answers == [(201, f"diagram-{number}.png") for number in range(2, 2 + RACERS)]
    items = MediaItem.objects.exclude(title="First")
    assert stored_files() == sorted(item.file.name for item in items)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the test of SQLite's locking")
@pytest.mark.django_db(transaction=True)
def test_uploads_of_one_name_at_once_get_names_of_their_own_on_sqlite(tmp_path):
    signed = clients()
    copy = tmp_path / "db.sqlite3"
    with closing(sqlite3.connect(copy)) as target:
        connection.connection.backup(target)
    start = threading.Barrier(RACERS)

    def at_once(send):
        def run():
            start.wait(WAIT_SECONDS)
            return send()

        return run

    # The threads' connections open the copy; this thread's stays on the test's database.
    database = connections.databases["default"]
    memory, database["NAME"] = database["NAME"], str(copy)
    try:
        racers = [Racer(at_once(upload_from(client))) for client in signed]
        for racer in racers:
            racer.start()
        answers = sorted(racer.finish() for racer in racers)
    finally:
        database["NAME"] = memory
    with closing(sqlite3.connect(copy)) as stored:
        names = sorted(row[0] for row in stored.execute("SELECT file FROM chapters_mediaitem"))
    assert answers == sorted(
        [(201, "diagram.png")] + [(201, f"diagram-{number}.png") for number in range(2, 1 + RACERS)]
    )
    assert stored_files() == names


@pytest.mark.django_db
def test_a_name_taken_meanwhile_is_taken_again_and_a_row_not_stored_leaves_no_file(
    monkeypatch,
):
    uploads.add(png_upload(), title="", alt="A", uploader=None)
    found = iter(["diagram.png", "diagram.png"])
    real = uploads.unique_name
    monkeypatch.setattr(
        uploads,
        "unique_name",
        lambda filename, extension, random=False: (
            next(found, None) or real(filename, extension, random)
        ),
    )
    assert uploads.add(png_upload(), title="", alt="A", uploader=None).name == "diagram-2.png"
    always = "diagram.png"
    monkeypatch.setattr(uploads, "unique_name", lambda *args, **kwargs: always)
    with pytest.raises(Exception, match="No free name for “diagram.png” after 8 attempts"):
        uploads.add(png_upload(), title="", alt="A", uploader=None)

    def refuse(*args):
        raise RuntimeError("the queue is gone")

    monkeypatch.setattr(uploads.queue, "enqueue", refuse)
    monkeypatch.setattr(uploads, "unique_name", real)
    with pytest.raises(RuntimeError, match="the queue is gone"):
        uploads.add(png_upload(), title="", alt="A", uploader=None)
    assert sorted(MediaItem.objects.values_list("name", flat=True)) == [
        "diagram-2.png", "diagram.png",
    ]  # fmt: skip
    assert stored_files() == [
        "library/diagram-2.png/v1/unprocessed.png", "library/diagram.png/v1/unprocessed.png",
    ]  # fmt: skip
