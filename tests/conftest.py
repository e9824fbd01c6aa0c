"""Shared fixtures: the curriculum and small named trees, each loaded once per session;
PostgreSQL- and Redis-only tests."""

import json
import os
from unittest import mock

import bleach.sanitizer
import markdown
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from chapters import caching
from chapters.caching import watch
from chapters.outline import build_fixture, parse_outline
from tests.helpers import SMALL_TREE, run_ready_tasks
from tests.oidc_provider import Provider
from tests.snapshots import Snapshot, chapters_models

# The property tests (tests/test_properties.py). "ci", the default, runs few, fixed sequences:
# derandomize makes Hypothesis draw the same examples on every run, so a failure in CI is
# reproduced by running the test again, and a green run is not luck. "explore" runs ten times
# as many random sequences (HYPOTHESIS_PROFILE=explore; docs/testing.md). A step takes
# milliseconds to tens of them, the pages at the end of a sequence a request each: no deadline.
hypothesis_settings.register_profile(
    "ci",
    max_examples=20,
    stateful_step_count=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.register_profile(
    "explore",
    max_examples=200,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    """Add ``--lexer-scan``, which runs the tests marked ``lexer_scan``."""
    parser.addoption(
        "--lexer-scan",
        action="store_true",
        help="run the lexer scan (tests marked lexer_scan; .ci/run's step of its own)",
    )


def pytest_collection_modifyitems(config, items):
    """Skip tests marked ``postgresql`` unless the suite runs on PostgreSQL, and tests marked
    ``redis`` unless ``REDIS_URL`` is set; leave out the lexer scan unless ``--lexer-scan``.

    ``.ci/run`` runs the suite a second time on PostgreSQL with Redis, where they run; there a
    Redis that is down fails them rather than skipping them. The lexer scan takes minutes:
    ``.ci/run`` runs it as a step of its own, and pytest reports it as deselected otherwise.
    """
    if not config.getoption("--lexer-scan"):
        scan = [item for item in items if item.get_closest_marker("lexer_scan")]
        if scan:
            config.hook.pytest_deselected(items=scan)
            items[:] = [item for item in items if not item.get_closest_marker("lexer_scan")]
    skips = {}
    if connection.vendor != "postgresql":
        skips["postgresql"] = "needs PostgreSQL: set DATABASE_URL=postgres://..."
    if not settings.REDIS_URL:
        skips["redis"] = "needs Redis: set REDIS_URL=redis://..."
    for item in items:
        for marker, reason in skips.items():
            if item.get_closest_marker(marker):
                item.add_marker(pytest.mark.skip(reason=reason))


def write_outline(text, directory):
    """Write the fixture an outline describes (see chapters.outline) into ``directory``.

    Returns:
        The fixture file's path, for ``loaddata``.
    """
    fixture = directory / "outline.json"
    fixture.write_text(json.dumps(build_fixture(parse_outline(text))), encoding="utf-8")
    return str(fixture)


@pytest.fixture(scope="session")
def curriculum_snapshot(django_db_setup, django_db_blocker):
    """Load fixtures/curriculum.json once for the session; return the rows it leaves."""
    with django_db_blocker.unblock():
        return Snapshot.take(
            lambda: call_command("loaddata", "curriculum", verbosity=0), chapters_models()
        )


@pytest.fixture
def curriculum(db, curriculum_snapshot):
    """Give the test the database as loading fixtures/curriculum.json leaves it.

    The nodes with their derived fields, their revisions, links, redirects and the wiki's
    version, as ``manage.py loaddata curriculum`` (an operator's command) leaves them in an
    empty database: loaded once per session (``curriculum_snapshot``) and written back here,
    inside the test's transaction (or, for a transactional test, before its flush). The
    version's time is that of the session's load.
    """
    curriculum_snapshot.restore()


@pytest.fixture
def load_outline(db, tmp_path):
    """Return a function that loads an outline (see chapters.outline) through a fixture file."""

    def load(text):
        call_command("loaddata", write_outline(text, tmp_path), verbosity=0)

    return load


@pytest.fixture(scope="session")
def small_tree_snapshot(django_db_setup, django_db_blocker, tmp_path_factory):
    """Load ``SMALL_TREE`` once for the session; return the rows it leaves."""
    fixture = write_outline(SMALL_TREE, tmp_path_factory.mktemp("small_tree"))
    with django_db_blocker.unblock():
        return Snapshot.take(
            lambda: call_command("loaddata", fixture, verbosity=0), chapters_models()
        )


@pytest.fixture
def small_tree(db, small_tree_snapshot):
    """Give the test a tree of two areas, three sections and six chapters (``SMALL_TREE``),
    as loading its outline through a fixture file leaves it (see ``curriculum``)."""
    small_tree_snapshot.restore()


@pytest.fixture
def books_root(settings, tmp_path):
    """Keep the test's books (the storage ``books``, chapters/books/builds.py) in a folder of
    its own, ``BOOKS_ROOT``; return the folder."""
    settings.BOOKS_ROOT = tmp_path / "books"
    settings.STORAGES = {
        **settings.STORAGES,
        "books": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": settings.BOOKS_ROOT},
        },
    }
    return settings.BOOKS_ROOT


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Keep the test's uploads (``MEDIA_ROOT``, the default storage) in a folder of its own."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def empty_cache():
    """Start every test with an empty cache.

    Each test's database is rolled back to the same version of the wiki, so pages cached by
    one test would otherwise be served to the next.
    """
    caching.clear()


@pytest.fixture
def run_tasks(db):
    """Return a function that runs every background task ready now, in this process and
    transaction, as a worker (``chapters.worker.Worker``) would, tasks that they enqueue
    included; it returns how many ran. Tasks deferred to later (a retry's delay) wait.

    Tasks are rows the write's transaction adds (``chapters.tasks``), so a test runs them
    where a worker would take them after the commit.
    """

    return run_ready_tasks


@pytest.fixture(scope="session", autouse=True)
def stop_listening(django_db_setup):
    """Close this process's connection listening for the wiki's version
    (``chapters.caching.version_watch``) before the test database is dropped: PostgreSQL drops no
    database that a connection is open to."""
    yield
    watch.close()


# The provider's user of the single sign-on tests, and her password there.
ADA = ("ada", "analytical engine 1843")


@pytest.fixture(scope="session")
def oidc_provider():
    """Start a real OpenID provider on localhost for the session (tests/oidc_provider/),
    with the user ``ada`` (``ADA``) in its groups ``wiki-editors`` and ``canteen``."""
    provider = Provider.start()
    provider.add_user(*ADA, "ada@example.org", "wiki-editors", "canteen")
    yield provider
    provider.stop()


@pytest.fixture
def renderers():
    """Count calls of Python-Markdown's ``convert`` and bleach's ``Cleaner.clean``."""
    convert, clean = markdown.Markdown.convert, bleach.sanitizer.Cleaner.clean
    with (
        mock.patch.object(markdown.Markdown, "convert", autospec=True, side_effect=convert) as md,
        mock.patch.object(
            bleach.sanitizer.Cleaner, "clean", autospec=True, side_effect=clean
        ) as cleaner,
    ):
        yield md, cleaner
