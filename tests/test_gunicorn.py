"""Serving with gunicorn (wiki/gunicorn.conf.py): long URLs in any script, one control socket
per instance."""

import http.client
import os
import socket
import sqlite3
import subprocess
import sys
import time
import types
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse
from gunicorn.app.wsgiapp import WSGIApplication
from gunicorn.config import ControlSocket

from chapters.models import Node
from chapters.models.rules import PATH_URL_MAX_LENGTH, REQUEST_LINE_MAX_LENGTH
from tests.test_concurrency import database_url
from tests.test_models import CHINESE, chinese_sections

CONFIG = str(Path(settings.BASE_DIR) / "wiki" / "gunicorn.conf.py")


def gunicorn_settings(monkeypatch, *arguments, **env):
    """Return gunicorn's settings as ``gunicorn --config wiki/gunicorn.conf.py *arguments``
    makes them with ``env``, once the config's ``on_starting`` hook has run."""
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "argv", ["gunicorn", "--config", CONFIG, *arguments])
    cfg = WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg
    cfg.on_starting(types.SimpleNamespace(cfg=cfg))
    return cfg


def test_gunicorns_with_different_binds_get_different_control_sockets(monkeypatch):
    first = gunicorn_settings(monkeypatch, GUNICORN_BIND="127.0.0.1:8001").control_socket
    second = gunicorn_settings(monkeypatch, GUNICORN_BIND="0.0.0.0:8002").control_socket
    folder = Path(ControlSocket.default).parent
    assert [first, second] == [
        str(folder / "gunicorn-127.0.0.1-8001.ctl"),
        str(folder / "gunicorn-0.0.0.0-8002.ctl"),
    ]


def test_gunicorn_control_socket_follows_a_bind_given_on_the_command_line(monkeypatch):
    cfg = gunicorn_settings(monkeypatch, "--bind", "unix:/run/wiki.sock")
    assert Path(cfg.control_socket).name == "gunicorn-unix-run-wiki.sock.ctl"


def test_gunicorn_control_socket_given_or_turned_off_on_the_command_line_is_kept(monkeypatch):
    named = gunicorn_settings(monkeypatch, "--control-socket", "/run/wiki/gunicorn.ctl")
    assert named.control_socket == "/run/wiki/gunicorn.ctl"
    assert gunicorn_settings(monkeypatch, "--no-control-socket").control_socket_disable


def test_gunicorn_accepts_the_request_line_the_model_keeps_urls_within(monkeypatch):
    assert gunicorn_settings(monkeypatch).limit_request_line == REQUEST_LINE_MAX_LENGTH == 8190


def free_port():
    """Return a TCP port of the loopback address that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def served_database_url(folder):
    """Return a ``DATABASE_URL`` for another process to read the test database.

    On PostgreSQL, the test database itself; on SQLite, whose test database lives in this
    process's memory, a copy of it in a file in ``folder``.
    """
    if connection.vendor == "postgresql":
        return database_url()
    copy = folder / "db.sqlite3"
    with closing(sqlite3.connect(copy)) as target:
        connection.connection.backup(target)
    return f"sqlite:///{copy}"


def request(port, method, target):
    """Send one request to 127.0.0.1:``port``; return the status and the body."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        client.request(method, target)
        response = client.getresponse()
        return response.status, response.read()
    finally:
        client.close()


@contextmanager
def gunicorn(folder, workers=1, **environment):
    """Serve the test database with gunicorn, its config as in production.

    The control socket goes to ``folder`` (gunicorn's folder for it is ``XDG_RUNTIME_DIR``).

    Args:
        folder: a folder for the control socket, the log and a SQLite copy.
        workers: gunicorn's worker processes (``WEB_CONCURRENCY``).
        **environment: further environment variables of the server.

    Yields:
        The port it listens on, once ``/healthz`` answers 200.
    """
    port = free_port()
    clean = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "GUNICORN_"))
    }
    env = {
        **clean,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": served_database_url(folder),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": str(workers),
        "XDG_RUNTIME_DIR": str(folder),
        **environment,
    }
    executable = str(Path(sys.executable).with_name("gunicorn"))
    with open(folder / "gunicorn.log", "wb") as log:
        server = subprocess.Popen(
            [executable, "--config", CONFIG],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                assert server.poll() is None, (folder / "gunicorn.log").read_text()
                try:
                    if request(port, "GET", "/healthz")[0] == 200:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, (folder / "gunicorn.log").read_text()
                time.sleep(0.2)
            yield port
        finally:
            server.terminate()
            server.wait(timeout=60)


@pytest.mark.django_db(transaction=True)
def test_gunicorn_serves_the_longest_url_in_chinese_the_model_allows(tmp_path):
    deepest = chinese_sections()
    chapter = Node(title="Chapter", slug=CHINESE * 5, parent=deepest, kind=Node.Kind.CHAPTER)
    chapter.full_clean()
    chapter.save()
    assert len(quote(chapter.path)) == PATH_URL_MAX_LENGTH
    history = reverse("chapters:history", kwargs={"path": chapter.path}) + "?page=999999"
    assert len(f"HEAD {history} HTTP/1.1") == REQUEST_LINE_MAX_LENGTH
    with gunicorn(tmp_path) as port:
        status, body = request(port, "GET", chapter.get_absolute_url())
        assert status == 200
        assert "<h1>Chapter</h1>" in body.decode()
        assert request(port, "HEAD", history)[0] == 200
        assert request(port, "HEAD", history + "0")[0] == 414  # a byte more: URI Too Long
        assert (tmp_path / f"gunicorn-127.0.0.1-{port}.ctl").is_socket()


@pytest.mark.django_db(transaction=True)
def test_gunicorn_answers_the_longest_search_query_a_request_line_holds(tmp_path):
    # Issue 26: a 10,000-character query got a bare 414 from gunicorn, one with a NUL a 400.
    target = "/search/?q=kernel%00%07+"
    target += "x" * (REQUEST_LINE_MAX_LENGTH - len(f"GET {target} HTTP/1.1"))
    assert len(f"GET {target} HTTP/1.1") == REQUEST_LINE_MAX_LENGTH
    with gunicorn(tmp_path) as port:
        status, body = request(port, "GET", target)
        assert status == 200
        assert "Your search was cut to its first 200 characters." in body.decode()
        assert request(port, "GET", target + "x")[0] == 414  # a byte more: URI Too Long


def test_gunicorn_access_log_is_off_unless_named(monkeypatch):
    monkeypatch.delenv("GUNICORN_ACCESS_LOG", raising=False)
    assert gunicorn_settings(monkeypatch).accesslog is None
    assert gunicorn_settings(monkeypatch, GUNICORN_ACCESS_LOG="").accesslog is None
    assert gunicorn_settings(monkeypatch, GUNICORN_ACCESS_LOG="-").accesslog == "-"
    named = gunicorn_settings(monkeypatch, GUNICORN_ACCESS_LOG="/var/log/wiki/access.log")
    assert named.accesslog == "/var/log/wiki/access.log"
    assert gunicorn_settings(monkeypatch).errorlog == "-"


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3",
    reason="an edit by another process of a SQLite file (PostgreSQL: tests/test_version_watch.py)",
)
@pytest.mark.django_db(transaction=True)
def test_gunicorn_on_sqlite_shows_another_process_edit_on_the_next_page(tmp_path, small_tree):
    page = "/area-b/section-b1/chapter-five/"
    with gunicorn(tmp_path) as port:
        before = [request(port, "GET", page) for _ in range(3)]  # rendered, then kept
        assert [status for status, _ in before] == [200] * 3
        assert ">Chapter One</a>" in before[-1][1].decode()
        with closing(sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)) as writer:
            writer.execute(
                "UPDATE chapters_node SET title = 'Chapter 1' WHERE title = 'Chapter One'"
            )
        status, after = request(port, "GET", page)
    assert status == 200
    assert ">Chapter 1</a>" in after.decode()
    assert ">Chapter One</a>" not in after.decode()
