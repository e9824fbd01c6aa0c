"""Soak test: readers request pages continuously while an editor changes the tree.

Run from the repository, after ``bin/bootstrap``::

    .venv/bin/python bench/soak.py                  # 60 seconds on a throwaway SQLite file
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/curriculum_wiki .venv/bin/python bench/soak.py

It makes a throwaway database beside the one ``DATABASE_URL`` names (Django's test-database
machinery: ``<name>_soak_<pid>``; a temporary file for SQLite), migrates it and loads the
curriculum, and serves it with ``manage.py runserver --noreload`` on a free loopback port.
Reader threads request the home page and every node's page in random order, following
redirects, while this process edits through the model API, as fast as it can: chapters' bodies
saved, sections renamed, chapters moved to other sections and reordered among their siblings,
and nodes reverted to their previous revision. When the time is up it checks that no request
failed (no 5xx, no other status than 200 after redirects, no refused connection), that every
edit is in the database (one revision each, and each node as its last edit left it), that the
tree is valid, and that every node's page shows the table of contents of the final tree. It
prints the numbers and exits with status 1 and the failures when a check fails. The throwaway
database is dropped at the end.
"""

import argparse
import collections
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import django

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wiki.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "soak-test-only-not-secret")
django.setup()

# After django.setup(): these import models.
from bs4 import BeautifulSoup  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from mptt.exceptions import InvalidMove  # noqa: E402

from bench.serving import free_port  # noqa: E402
from chapters import history  # noqa: E402
from chapters.models import Node  # noqa: E402
from tests.helpers import toc_outline  # noqa: E402


def fetch(url):
    """GET ``url``, following redirects; return ``(status, body)``; status 0 if unreachable."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""
    except OSError:
        return 0, ""


def wait_for(url, seconds=60):
    """Wait until ``url`` answers 200; raise SystemExit if it does not within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if fetch(url)[0] == 200:
            return
        time.sleep(0.5)
    raise SystemExit(f"soak: the server did not answer {url} within {seconds} seconds.")


class Readers:
    """Threads that request pages until told to stop, counting the answers by status."""

    def __init__(self, base, paths, count):
        self.base, self.paths = base, paths
        self.statuses = collections.Counter()
        self.failures = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.read, args=(n,)) for n in range(count)]

    def read(self, seed):
        """Request random pages until :meth:`stop`; the seed picks this thread's order."""
        rng = random.Random(seed)
        while not self.stopping.is_set():
            path = rng.choice(self.paths)
            status, _ = fetch(self.base + path)
            with self.lock:
                self.statuses[status] += 1
                if status != 200:
                    self.failures.append(f"GET {path} answered {status or 'nothing'}")

    def start(self):
        """Start the threads."""
        for thread in self.threads:
            thread.start()

    def stop(self):
        """Stop the threads and wait for their last requests."""
        self.stopping.set()
        for thread in self.threads:
            thread.join()


class Editor:
    """Edit the tree through the model API, remembering what each node should end up as."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.edits, self.refused = collections.Counter(), 0
        self.expected = collections.defaultdict(dict)  # pk -> {field: value}
        self.sections = list(
            Node.objects.filter(kind=Node.Kind.SECTION).values_list("pk", flat=True)
        )
        self.chapters = list(
            Node.objects.filter(kind=Node.Kind.CHAPTER).values_list("pk", flat=True)
        )

    def run(self, seconds):
        """Make random edits for ``seconds`` seconds."""
        deadline = time.monotonic() + seconds
        number = 0
        while time.monotonic() < deadline:
            number += 1
            operation = self.rng.choice(["save", "save", "rename", "move", "reorder", "revert"])
            getattr(self, operation)(number)

    def note(self, operation, node, **fields):
        """Count an edit, and remember the fields it gave ``node``."""
        self.edits[operation] += 1
        self.expected[node.pk].update(fields)

    def save(self, number):
        """Add a line to a random chapter's body."""
        chapter = Node.objects.get(pk=self.rng.choice(self.chapters))
        chapter.body += f"\n\nSoak edit {number}."
        chapter.save()
        self.note("save", chapter, body=chapter.body)

    def rename(self, number):
        """Change a random section's title (its slug, and so its path, stay)."""
        section = Node.objects.get(pk=self.rng.choice(self.sections))
        section.title = f"{section.title.split(' (', 1)[0]} ({number})"
        section.save()
        self.note("rename", section, title=section.title)

    def move(self, number):
        """Move a random chapter into a random section, first or last."""
        chapter = Node.objects.get(pk=self.rng.choice(self.chapters))
        section = Node.objects.get(pk=self.rng.choice(self.sections))
        try:
            Node.objects.move_node(chapter, section, self.rng.choice(["first-child", "last-child"]))
        except InvalidMove:  # a child of the section has the chapter's slug
            self.refused += 1
            return
        self.note("move", chapter, parent_id=section.pk)

    def reorder(self, number):
        """Move a random chapter beside one of its siblings."""
        chapter = Node.objects.get(pk=self.rng.choice(self.chapters))
        siblings = list(chapter.get_siblings())
        if not siblings:
            return
        Node.objects.move_node(
            chapter, self.rng.choice(siblings), self.rng.choice(["left", "right"])
        )
        self.note("reorder", chapter, parent_id=chapter.parent_id)

    def revert(self, number):
        """Revert a node edited before to its previous revision."""
        if not self.expected:
            return
        node = Node.objects.get(pk=self.rng.choice(list(self.expected)))
        previous = Node.history.filter(id=node.pk)[1]
        notes = history.revert(node, previous)
        restored = {"title": previous.title, "body": previous.body, "status": previous.status}
        if not notes:
            restored["parent_id"] = previous.parent_id
        self.note("revert", node, **restored)


def lost_edits(editor):
    """Return sentences for each node whose stored fields differ from its last edit."""
    lost = []
    for pk, fields in editor.expected.items():
        stored = Node.objects.filter(pk=pk).values(*fields).first()
        for field, value in fields.items():
            if stored is None or stored[field] != value:
                lost.append(f"node {pk}: {field} is {stored and stored[field]!r}, not {value!r}")
    return lost


def stale_pages(base, threads):
    """Return sentences for each node's page whose table of contents is not the stored tree's.

    Args:
        base: the server's URL.
        threads: how many pages to request at a time.
    """
    nodes = list(Node.objects.all())
    expected = "".join(f"{'  ' * n.level}{n.title}\n" for n in nodes)

    def check(path):
        status, body = fetch(base + path)
        if status != 200:
            return f"GET {path} answered {status or 'nothing'} after the last edit"
        if toc_outline(BeautifulSoup(body, "html.parser")) != expected:
            return f"GET {path} shows another table of contents than the tree's"
        return None

    paths = [urllib.parse.quote(f"/{n.path}/") for n in nodes]
    with ThreadPoolExecutor(threads) as pool:
        return [problem for problem in pool.map(check, paths) if problem]


def main():
    """Run the soak test; return the process's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="how long to edit (60)")
    parser.add_argument("--readers", type=int, default=4, help="reader threads (4)")
    args = parser.parse_args()

    source = os.environ.get("DATABASE_URL", "")
    original = connection.settings_dict["NAME"]
    scratch = tempfile.mkdtemp(prefix="soak-")
    if connection.vendor == "sqlite":
        connection.settings_dict["TEST"]["NAME"] = f"{scratch}/soak.sqlite3"
    else:
        connection.settings_dict["TEST"]["NAME"] = f"{original}_soak_{os.getpid()}"
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    if connection.vendor == "sqlite":
        url = f"sqlite:///{name}"
    else:
        url = urllib.parse.urlsplit(source)._replace(path=f"/{name}").geturl()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = Path(scratch) / "server.log"
    server = None
    try:
        call_command("loaddata", "curriculum", verbosity=0)
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=BASE_DIR,
            env={**os.environ, "DATABASE_URL": url},
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
        )
        wait_for(base + "/")
        revisions = Node.history.count()
        paths = [
            "/",
            *(urllib.parse.quote(f"/{p}/") for p in Node.objects.values_list("path", flat=True)),
        ]
        readers = Readers(base, paths, args.readers)
        editor = Editor(seed=0)
        started = time.monotonic()
        readers.start()
        try:
            editor.run(args.seconds)
        finally:
            readers.stop()
        elapsed = time.monotonic() - started
        edits = sum(editor.edits.values())
        failures = readers.failures[:]
        if Node.history.count() != revisions + edits:
            failures.append(
                f"{Node.history.count() - revisions} revisions recorded for {edits} edits"
            )
        failures += lost_edits(editor)
        failures += Node.objects.check_tree()
        failures += stale_pages(base, args.readers)
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        connection.creation.destroy_test_db(original, verbosity=0)
    requests = sum(readers.statuses.values())
    print(
        f"soak: {connection.vendor}, {elapsed:.0f} s, {args.readers} readers: {requests} requests "
        f"({requests / elapsed:.0f}/s; by status {dict(sorted(readers.statuses.items()))}), "
        f"{edits} edits ({', '.join(f'{k} {v}' for k, v in sorted(editor.edits.items()))}; "
        f"{editor.refused} moves refused by the tree's rules), {len(failures)} failures."
    )
    if failures:
        print("\n".join(failures[:20]), file=sys.stderr)
        print(f"soak: FAILED; the server's log is {log}", file=sys.stderr)
        return 1
    shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
