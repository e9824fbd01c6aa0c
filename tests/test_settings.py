"""Settings from the environment, and the refusal to serve without a secret key."""

import json
import os
import re
import subprocess
import sys
from wsgiref.util import setup_testing_defaults

import psycopg
import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection

from tests.helpers import run_with_environment

PRINT_DATABASE = (
    "import django; django.setup(); from django.conf import settings; "
    "db = settings.DATABASES['default']; print(db['ENGINE'], db['NAME'], settings.DEBUG)"
)


def run_settings(**env):
    """Import wiki.settings in a fresh interpreter with only ``env`` set; return the result."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    clean.update(env, DJANGO_SETTINGS_MODULE="wiki.settings")
    return subprocess.run(
        [sys.executable, "-c", PRINT_DATABASE],
        cwd=settings.BASE_DIR,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


def test_settings_refuse_to_load_without_secret_key_when_debug_is_off():
    result = run_settings()
    assert result.returncode == 1
    assert (
        "django.core.exceptions.ImproperlyConfigured: DJANGO_SECRET_KEY is not set. Set it to a "
        "long random string before serving with debug off, or set DJANGO_DEBUG=1 for local "
        "development." in result.stderr
    )


def test_settings_default_to_a_sqlite_file_beside_manage_py():
    result = run_settings(DJANGO_DEBUG="1")
    assert result.stdout.split() == [
        "django.db.backends.sqlite3",
        str(settings.BASE_DIR / "db.sqlite3"),
        "True",
    ]


def test_settings_read_postgresql_from_database_url():
    result = run_settings(
        DJANGO_SECRET_KEY="k", DATABASE_URL="postgres://postgres@127.0.0.1:5432/curriculum"
    )
    assert result.stdout.split() == ["django.db.backends.postgresql", "curriculum", "False"]


def test_settings_read_allowed_hosts():
    result = subprocess.run(
        [sys.executable, "-c", "from wiki import settings; print(settings.ALLOWED_HOSTS)"],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_SECRET_KEY": "k", "DJANGO_ALLOWED_HOSTS": "wiki.example, a.b"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "['wiki.example', 'a.b']"


PRINT_HTTPS = (
    "from wiki import settings as s; print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, "
    "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
    "s.SECURE_HSTS_PRELOAD, getattr(s, 'SECURE_PROXY_SSL_HEADER', None), "
    "getattr(s, 'AXES_CLIENT_IP_CALLABLE', None))"
)


def https_settings(**env):
    """Return the HTTPS-related settings that ``env`` gives, as printed words."""
    return run_with_environment(PRINT_HTTPS, DJANGO_SECRET_KEY="k", **env).split()


def test_settings_serve_plain_http_by_default():
    assert https_settings() == ["False", "False", "False", "0", "False", "False", "None", "None"]


def test_settings_turn_on_https_only_settings_with_django_https():
    assert https_settings(DJANGO_HTTPS="1") == [
        "True", "True", "True", "31536000", "True", "True", "None", "None"
    ]  # fmt: skip
    assert https_settings(DJANGO_HTTPS="yes", DJANGO_HSTS_SECONDS="3600")[3] == "3600"


def test_settings_trust_one_proxy_with_django_behind_proxy():
    assert https_settings(DJANGO_HTTPS="1", DJANGO_BEHIND_PROXY="1")[6:] == [
        "('HTTP_X_FORWARDED_PROTO',", "'https')", "wiki.proxy.client_ip"
    ]  # fmt: skip


def database_options(url):
    """Return the default database's OPTIONS that DATABASE_URL=``url`` gives (None if unset)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    code = "import json; from wiki import settings as s; print(json.dumps(s.DATABASES['default']))"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env={**clean, "DJANGO_SECRET_KEY": "k", "DATABASE_URL": url},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout).get("OPTIONS")


def test_settings_make_sqlite_writers_wait_for_the_write_lock_at_begin():
    assert database_options("sqlite:////tmp/wiki.sqlite3") == {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }


def test_settings_leave_postgresql_transactions_as_they_are():
    assert database_options("postgres://postgres@127.0.0.1:5432/curriculum") is None


@pytest.mark.parametrize(
    "url", ["sqlite:////tmp/wiki.sqlite3", "postgres://postgres@127.0.0.1:5432/curriculum"]
)
def test_settings_keep_database_connections_and_check_them_before_use(url):
    code = (
        "from wiki import settings as s; db = s.DATABASES['default']; "
        "print(db['CONN_MAX_AGE'], db['CONN_HEALTH_CHECKS'])"
    )
    assert run_with_environment(code, DJANGO_SECRET_KEY="k", DATABASE_URL=url) == "60 True"


def wsgi_get(path):
    """Answer a GET of ``path`` with Django's WSGI handler, as a server's worker does.

    Unlike the test client, which skips it, the handler closes connections that are too old
    or unusable at the start and end of each request (``close_old_connections``).

    Returns:
        The status line and the body.
    """
    environ = {"PATH_INFO": path, "HTTP_HOST": "testserver"}
    setup_testing_defaults(environ)
    started = []
    response = WSGIHandler()(environ, lambda status, headers: started.append(status))
    try:
        return started[0], b"".join(response)
    finally:
        response.close()


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_database_connection_closed_between_requests_costs_no_500(small_tree):
    assert wsgi_get("/")[0] == "200 OK"
    assert connection.connection is not None  # kept for the next request
    pid = connection.connection.info.backend_pid
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    status, body = wsgi_get("/area-b/section-b1/chapter-five/")
    assert status == "200 OK", body.decode()[:2000]
    assert "<h1>Chapter Five</h1>" in body.decode()
    assert connection.connection.info.backend_pid != pid


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, "True"), ("1", "True"), ("true", "True"), ("0", "False"), ("false", "False"),
     ("off", "False"), ("no", "False")],
)  # fmt: skip
def test_settings_read_wiki_version_notify_as_a_flag(value, expected):
    env = {"WIKI_VERSION_NOTIFY": value} if value is not None else {}
    unset = "" if env else "import os; os.environ.pop('WIKI_VERSION_NOTIFY', None); "
    code = f"{unset}from wiki import settings; print(settings.WIKI_VERSION_NOTIFY)"
    assert run_with_environment(code, DJANGO_SECRET_KEY="k", **env) == expected


# A fresh process with the project's settings serves one request to a view that raises; it
# prints the status, and logs a warning and an info line of its own under "chapters".
SERVE_A_FAILING_VIEW = """
import logging, os, types
os.environ["DJANGO_SETTINGS_MODULE"] = "wiki.settings"
import django
django.setup()
from django.test import Client, override_settings
from django.urls import path

def fail(request):
    raise RuntimeError("the view failed")

urls = types.ModuleType("urls")
urls.urlpatterns = [path("fail/", fail)]
with override_settings(ROOT_URLCONF=urls):
    response = Client(raise_request_exception=False).get("/fail/", HTTP_HOST="localhost")
logging.getLogger("chapters.anything").warning("a warning of ours")
logging.getLogger("chapters.anything").info("an info line of ours")
print(response.status_code)
"""

# The start of a log line: the time (logging's asctime), the level and the logger.
LOG_LINE = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "


def serve_a_failing_view(**env):
    """Run ``SERVE_A_FAILING_VIEW`` with only ``env`` of the project's variables; return it."""
    clean = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    return subprocess.run(
        [sys.executable, "-c", SERVE_A_FAILING_VIEW],
        cwd=settings.BASE_DIR,
        env={**clean, "DJANGO_SECRET_KEY": "k", **env},
        capture_output=True,
        text=True,
        check=True,
    )


def test_settings_log_tracebacks_of_500s_and_our_warnings_to_stderr_with_debug_off():
    result = serve_a_failing_view()
    assert result.stdout == "500\n"
    assert re.search(
        LOG_LINE + r"ERROR django\.request: Internal Server Error: /fail/\n"
        r"Traceback \(most recent call last\):\n(.*\n)*RuntimeError: the view failed\n",
        result.stderr,
        re.MULTILINE,
    ), result.stderr
    assert re.search(
        LOG_LINE + "WARNING chapters.anything: a warning of ours$", result.stderr, re.M
    )
    assert "an info line of ours" not in result.stderr
    assert result.stderr.count("Traceback") == 1


def test_settings_print_each_traceback_once_with_debug_on():
    result = serve_a_failing_view(DJANGO_DEBUG="1")
    assert result.stdout == "500\n"
    assert result.stderr.count("RuntimeError: the view failed") == 1
