"""Shared fixtures: the curriculum and small named trees; PostgreSQL- and Redis-only tests."""

import json

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from chapters.outline import build_fixture, parse_outline
from tests.helpers import SMALL_TREE


def pytest_collection_modifyitems(config, items):
    """Skip tests marked ``postgresql`` unless the suite runs on PostgreSQL, and tests marked
    ``redis`` unless ``REDIS_URL`` is set.

    ``.ci/run`` runs the suite a second time on PostgreSQL with Redis, where they run; there a
    Redis that is down fails them rather than skipping them.
    """
    skips = {}
    if connection.vendor != "postgresql":
        skips["postgresql"] = "needs PostgreSQL: set DATABASE_URL=postgres://..."
    if not settings.REDIS_URL:
        skips["redis"] = "needs Redis: set REDIS_URL=redis://..."
    for item in items:
        for marker, reason in skips.items():
            if item.get_closest_marker(marker):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def curriculum(db):
    """Load fixtures/curriculum.json, as an operator would."""
    call_command("loaddata", "curriculum", verbosity=0)


@pytest.fixture
def load_outline(db, tmp_path):
    """Return a function that loads an outline (see chapters.outline) through a fixture file."""

    def load(text):
        fixture = tmp_path / "outline.json"
        fixture.write_text(json.dumps(build_fixture(parse_outline(text))), encoding="utf-8")
        call_command("loaddata", str(fixture), verbosity=0)

    return load


@pytest.fixture
def small_tree(load_outline):
    """Load a tree of two areas, three sections and six chapters (``SMALL_TREE``)."""
    load_outline(SMALL_TREE)
