"""Books built once per version of the wiki, in the background, kept as files.

A book is a file under ``BOOKS_ROOT`` (``wiki/settings.py``) named by its section (or
``all``), format and version: the version of the pages (``chapters.caching``), so an edit
anywhere, or a deploy, makes the next request build it anew. A request finds the file ready
and is sent it, or starts a build and is told to come back (:mod:`.views`); a reader never
waits for one.

Only one process builds a given book at a time, whatever the number of workers: the build
holds an exclusive ``flock`` on a lock file beside the book, which the kernel lets go when
the process ends, even if it dies mid-build, so a lock is never left behind (a cache key or
a database row would need a timeout for that). A second process finds the lock taken and
leaves the build to the first. The book is written to a temporary file and renamed into
place, so a reader is never sent half a book. When a build is done, the files of the same
book at older versions are deleted. App servers that do not share ``BOOKS_ROOT`` each build
their own copy.

Each process builds in a thread of its own, one per book at a time (a sync gunicorn worker
goes on answering requests meanwhile); ``manage.py build_books`` builds them ahead, for
example after a deploy.
"""

import fcntl
import hashlib
import os
import threading
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from django.conf import settings
from django.db import connections

from ..models import Node
from .content import book_of

__all__ = ["FORMATS", "BookKey", "build", "ready", "start"]

# Each format's media type; its renderer is ``render_<format>`` of the module of its name.
FORMATS = {"pdf": "application/pdf", "epub": "application/epub+zip"}

_running = set()
_running_lock = threading.Lock()


@dataclass(frozen=True)
class BookKey:
    """Which book: the section's primary key (None for the whole curriculum), the format
    (a key of ``FORMATS``) and the version of the pages it is built from."""

    root: int | None
    format: str
    version: str

    @property
    def stem(self):
        """Return the start of the book's file names, the same at every version."""
        return f"{self.root if self.root is not None else 'all'}-"

    @property
    def path(self):
        """Return the book's file."""
        digest = hashlib.sha256(self.version.encode()).hexdigest()[:16]
        return Path(settings.BOOKS_ROOT) / self.format / f"{self.stem}{digest}.{self.format}"


def ready(key):
    """Return the book's file if it has been built, else None."""
    return key.path if key.path.is_file() else None


def start(key):
    """Build the book in a thread of this process, unless this process builds it already."""
    with _running_lock:
        if key in _running:
            return
        _running.add(key)
    threading.Thread(target=_build_in_thread, args=(key,), daemon=True).start()


def _build_in_thread(key):
    try:
        build(key)
    finally:
        with _running_lock:
            _running.discard(key)
        connections.close_all()


def build(key):
    """Build the book into its file, unless it is built or another process is building it.

    Returns:
        True if the file is there afterwards; False if another process holds the lock or
        the section no longer exists.
    """
    path = key.path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        if path.is_file():
            return True
        root = None
        if key.root is not None:
            root = Node.objects.filter(pk=key.root, kind=Node.Kind.SECTION).first()
            if root is None:
                return False
        data = _renderer(key.format)(book_of(root))
        partial = path.with_suffix(".partial")
        partial.write_bytes(data)
        os.replace(partial, path)
        for old in path.parent.glob(f"{key.stem}*"):
            if old.stem != path.stem:
                old.unlink(missing_ok=True)
    return True


def _renderer(format):
    """Return the function rendering a book as ``format``.

    Imported when a book is built, not with the URLs: WeasyPrint and ziamath take a
    noticeable part of a second to import, which every process and command would pay.
    """
    return getattr(import_module(f"{__package__}.{format}"), f"render_{format}")
