"""Helpers for editing the tree and reading it and its pages back in tests."""

import importlib
import os
import subprocess
import sys

from bs4 import BeautifulSoup
from django.conf import settings
from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils.dateparse import parse_datetime
from django_tasks_db.models import DBTaskResult

from chapters.models import Node
from chapters.outline import build_fixture, parse_outline
from chapters.words import identifier_parts, spaceless_grams
from chapters.worker import Worker

__all__ = [
    "SITE_SCRIPTS",
    "SMALL_TREE",
    "build_tree",
    "edit",
    "form_values",
    "library_image",
    "node",
    "page_scripts",
    "role_user",
    "run_ready_tasks",
    "run_with_environment",
    "soup",
    "toc_outline",
    "tree_table",
]

SMALL_TREE = """\
Area A
  Section A1
    Chapter One
    Chapter Two
    Chapter Three
  Section A2
    Chapter Four
Area B
  Section B1
    Chapter Five
    Chapter Six
"""


def node(title):
    """Return the node titled ``title``, fetched fresh from the database."""
    return Node.objects.get(title=title)


def edit(title, /, *, user=None, summary=None, **fields):
    """Change fields of the node titled ``title`` and save it, as an editor's one revision.

    Args:
        title: the node's current title (positional only, so that ``title=`` sets a new one).
        user: the revision's author (django-simple-history's ``_history_user``), or None.
        summary: the revision's summary (django-simple-history's ``_change_reason``), or None.
        **fields: the new values, by field name.

    Returns:
        The saved node.
    """
    target = node(title)
    for name, value in fields.items():
        setattr(target, name, value)
    target._history_user, target._change_reason = user, summary
    target.save()
    return target


@transaction.atomic
def build_tree(outline):
    """Write the tree an outline describes in bulk, as loading its fixture leaves it.

    For trees too large to load through ``loaddata`` in a test about something else (pages'
    queries): a few queries instead of some for every node. The rows are those
    ``chapters.outline.build_fixture`` makes, with the derived fields ``Node.save()`` keeps
    (path, rendered body, text, headings, sections, words and identifiers' parts) and one
    revision each, as ``loaddata`` records it. Outlines' bodies link nowhere, so there are no
    links to store; only the wiki's version counts differently, as the database's triggers
    count statements or rows (tests/test_snapshots.py compares the two).

    Args:
        outline: an outline, as ``chapters.outline.parse_outline`` reads it, of an empty tree.

    Returns:
        The number of nodes written.
    """
    rendered, paths, nodes = {}, {}, []
    for row in build_fixture(parse_outline(outline)):
        fields = dict(row["fields"], updated=parse_datetime(row["fields"]["updated"]))
        parent = fields.pop("parent")
        paths[row["pk"]] = f"{paths[parent]}/{fields['slug']}" if parent else fields["slug"]
        node = Node(pk=row["pk"], parent_id=parent, path=paths[row["pk"]], **fields)
        if node.body not in rendered:
            assert node.render_body() == [], "build_tree() stores no links"
            rendered[node.body] = (
                node.body_html, node.body_text, node.headings, node.sections, node.words,
                node.text_parts,
            )  # fmt: skip
        (
            node.body_html, node.body_text, node.headings, node.sections, node.words,
            node.text_parts,
        ) = rendered[node.body]  # fmt: skip
        node.title_parts = identifier_parts(node.title)
        node.grams = spaceless_grams(node.title, node.body_text)
        nodes.append(node)
    Node.objects.bulk_create(nodes)
    revision = Node.history.model
    revision.objects.bulk_create(
        revision(
            history_date=node.updated,
            history_type="+",
            history_change_reason="Loaded from a fixture",
            **{field.attname: getattr(node, field.attname) for field in revision.tracked_fields},
        )
        for node in nodes
    )
    # Rows written with their primary keys leave PostgreSQL's sequence behind.
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [Node]):
            cursor.execute(statement)
    return len(nodes)


def tree_table():
    """Return the tree as text, one row per node in tree order: indent, title, kind, path."""
    return "\n".join(f"{'  ' * n.level}{n.title} [{n.kind}] {n.path}" for n in Node.objects.all())


def soup(response, only=None):
    """Parse a response's HTML.

    Args:
        response: a response with an HTML page.
        only: a ``bs4.SoupStrainer``: keep only the elements it matches, with all they hold,
            for a test that reads one part of many pages (BeautifulSoup's ``parse_only``;
            building the whole table of contents of every page costs most of such a test).
    """
    return BeautifulSoup(response.content.decode(), "html.parser", parse_only=only)


def page_scripts(page):
    """Return the ``src`` of each ``<script>`` of a parsed page; None for an inline script.

    Every page loads the site's own scripts from /static/js/; anything else in the list is a
    script that got into the page.
    """
    return [script.get("src") for script in page.find_all("script")]


SITE_SCRIPTS = [
    "/static/js/theme.js",
    "/static/js/keys.js",
    "/static/js/toc.js",
    "/static/js/page.js",
    "/static/js/progress.js",
    "/static/js/search-box.js",
]


def toc_outline(page):
    """Return the "All chapters" navigation of a parsed page as outline text.

    One title per line, indented two spaces per level, in document order: the format of
    fixtures/curriculum-outline.txt. A section's entries are in a ``<details>`` of its item.
    """
    nav = page.find("nav", attrs={"aria-label": "All chapters"})
    lines = []

    def walk(ol, depth):
        for item in ol.find_all("li", recursive=False):
            lines.append("  " * depth + item.find("a", recursive=False).get_text())
            details = item.find("details", recursive=False)
            if details:
                walk(details.find("ol", recursive=False), depth + 1)

    walk(nav.find("ol"), 0)
    return "\n".join(lines) + "\n"


def run_with_environment(code, **env):
    """Run Python ``code`` in a fresh interpreter with only ``env`` of the project's variables.

    Settings are read once per process, so a test of what the environment makes of them runs
    them in another one. Every ``DJANGO_*``, ``DATABASE_URL`` and ``REDIS_URL`` variable of
    this process is left out; ``env`` gives the ones that count.

    Args:
        code: Python source run with the project's folder as the working directory.
        **env: the environment variables to set.

    Returns:
        What ``code`` printed, stripped of surrounding white space.

    Raises:
        subprocess.CalledProcessError: ``code`` failed.
    """
    clean = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def role_user(name, role, **fields):
    """Create an active staff user in the group ``role`` (Editor, Reviewer or Admin).

    The groups are made by migration ``0013_roles``; a transactional test's flush empties
    them, so its function makes them again here first (it adds what is missing).

    Args:
        name: the username; the e-mail address is ``<name>@example.com``.
        role: the group's name.
        **fields: other fields of the user.

    Returns:
        The user, fetched anew (without a cache of permissions).
    """
    from django.apps import apps
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    roles = importlib.import_module("chapters.migrations.0013_roles")
    roles.create_roles(apps, None)
    user_model = get_user_model()
    fields = {"is_staff": True, "email": f"{name}@example.com", **fields}
    user = user_model.objects.create_user(name, **fields)
    user.groups.add(Group.objects.get(name=role))
    return user_model.objects.get(pk=user.pk)


def form_values(page, form_id):
    """Return the POST data a browser would send for the form ``form_id`` on a parsed page.

    Text and hidden inputs, the checked radio buttons and checkboxes, textareas (without the
    line break HTML drops after ``<textarea>``) and the selected option of each select; not
    the CSRF token nor the submit buttons.
    """
    form = page.find("form", id=form_id)
    data = {}
    for field in form.find_all("input"):
        kind = field.get("type", "text")
        if kind in ("submit", "button", "file") or not field.get("name"):
            continue
        if kind in ("radio", "checkbox") and not field.has_attr("checked"):
            continue
        data[field["name"]] = field.get("value", "")
    for area in form.find_all("textarea"):
        data[area["name"]] = area.get_text().removeprefix("\n")
    for select in form.find_all("select"):
        chosen = select.find("option", selected=True)
        data[select["name"]] = chosen["value"] if chosen else ""
    data.pop("csrfmiddlewaretoken", None)
    return data


def library_image(name, width, height, process=True):
    """Add a PNG ``width`` × ``height`` pixels to the media library, processed as its task
    does unless not ``process``; return its ``MediaItem``."""
    from chapters.media import processing, uploads
    from chapters.models import MediaItem
    from tests.images import png_upload

    item = uploads.add(png_upload(name, width, height), title="T", alt="A", uploader=None)
    if process:
        processing.process(item.pk, item.version)
    return MediaItem.objects.get(pk=item.pk)


def run_ready_tasks():
    """Run every background task ready now, in this process and transaction, as a worker
    (``chapters.worker.Worker``) would, tasks that they enqueue included; return how many ran.
    Tasks deferred to later (a retry's delay) wait.

    Raises:
        AssertionError: tasks went on enqueueing tasks past 1,000.
    """
    worker = Worker.draining(["*"], "tests")
    for count in range(1000):
        result = DBTaskResult.objects.ready().first()
        if result is None:
            return count
        result.claim(worker.worker_id)
        worker.run_task(result)
    raise AssertionError("Tasks went on enqueueing tasks: 1,000 ran.")
