"""Books built once per version of the wiki, by a background task, kept in a storage.

A book is a file in Django's storage ``books`` (``STORAGES`` in ``wiki/settings.py``: the
folder ``BOOKS_ROOT``, or S3 through django-storages), named by its format, its node (a
section's or a chapter's primary key, or ``all``) and its version: the version of the pages
(``chapters.caching``), so an edit anywhere, or a deploy, makes the next request build it
anew. Every web and task host uses the same storage, so each book is built once and kept
once, whatever the number of hosts. A request finds the book ready and is sent it, or is
told to come back, with the build's progress (:mod:`.views`); a reader never waits for one.

One build per book and version, whatever the number of requests and processes: the build is
a :class:`~chapters.models.BookBuild` row, unique per book and version, and the request whose
insert makes the row enqueues the build's task (``chapters.tasks.build_book``, queue
``books``) in the same transaction; every other request finds the row. A worker runs the
task (``manage.py worker``): it renders the book (the renderers lay it out in temporary
files of their own), writes its progress on the row as it goes, stores the whole book under
its name, and only then marks the row built, and deletes the files and rows of the same book
at older versions.

A reader is never sent half a book, nor a stale one: a book is sent only when its row, for
that version, says built, which it says only once the storage's ``save()`` has returned.
The storage's own atomicity is not relied on: on S3 an object appears whole or not at all,
but on a file system ``save()`` writes the file in place, and a worker that dies while
writing leaves part of a book under its name. So a build whose row says building never
trusts a file it finds: it renders the book again and replaces the file. The task is
idempotent: run again (a worker that died mid-build is handed back its task,
``chapters.worker``), it stores the same file (the book is dated by the build's start), or
finds the book built. A build that fails is marked failed; a reader's "try again" starts it
once more (:func:`start`).
"""

import hashlib
import logging
from dataclasses import dataclass
from importlib import import_module

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import queue
from ..models import BookBuild, Node
from .content import book_of

__all__ = ["FORMATS", "PROGRESS_STEPS", "BookKey", "book_storage", "build", "ready", "start"]

logger = logging.getLogger(__name__)

# Each format's media type; its renderer is ``render_<format>`` of the module of its name.
FORMATS = {"pdf": "application/pdf", "epub": "application/epub+zip"}

# A build writes its progress about this many times, one UPDATE each: every twentieth of
# its chapters (at least every chapter), and at the last.
PROGRESS_STEPS = 20


@dataclass(frozen=True)
class BookKey:
    """Which book: its node's primary key, a section's or a chapter's (None for the whole
    curriculum), the format (a key of ``FORMATS``) and the version of the pages it is built
    from."""

    root: int | None
    format: str
    version: str

    @property
    def stem(self):
        """Return the start of the book's file names, the same at every version."""
        return f"{self.root if self.root is not None else 'all'}-"

    @property
    def name(self):
        """Return the book's name in the storage, ``<format>/<stem><digest>.<format>``."""
        digest = hashlib.sha256(self.version.encode()).hexdigest()[:16]
        return f"{self.format}/{self.stem}{digest}.{self.format}"

    @property
    def builds(self):
        """Return the queryset of this book's build (one row at most)."""
        return BookBuild.objects.filter(root=self.root, format=self.format, version=self.version)


def book_storage():
    """Return the storage books are kept in, ``STORAGES["books"]``."""
    return storages["books"]


def ready(key):
    """Return the book's name in the storage if it may be sent, else None.

    It may be sent when its build for this version is done, as its row says, and the
    storage holds it: a file whose row is building or failed may be half a book, and one
    without a row is not of a build that ended.
    """
    if not key.builds.filter(status=BookBuild.Status.BUILT).exists():
        return None
    return key.name if book_storage().exists(key.name) else None


def start(key, again=False, build=None):
    """Start the book's build unless it is started already; return its ``BookBuild``.

    A build that is there and need not start again is only read: the requests of readers
    waiting for it write nothing. Otherwise the row is inserted, and the task enqueued, in
    one transaction: of any number of concurrent callers in any number of processes, the
    one whose insert succeeds enqueues the one task; the others, refused by the unique
    constraint, read the row it made. A build that was done but whose file is gone (deleted
    by hand, or by the build of another version) is started again, as is a failed one when
    ``again``; the update that restarts it checks the status it changes, so that only one
    caller enqueues.

    Args:
        key: the :class:`BookKey`.
        again: start a failed build again (a reader's "try again").
        build: the build's row if the caller has just read it (so that a request for a
            book being built reads it once); read here when None.

    Returns:
        The build's row, as it is after this call.
    """
    if build is None:
        build = key.builds.first()
    if build is not None and build.status == BookBuild.Status.BUILDING:
        return build
    if build is not None and build.status == BookBuild.Status.FAILED and not again:
        return build
    with transaction.atomic():
        try:
            with transaction.atomic():
                build = BookBuild.objects.create(
                    root=key.root, format=key.format, version=key.version
                )
        except IntegrityError:
            build = key.builds.get()
        else:
            queue.enqueue("build_book", key.root, key.format, key.version)
            return build
        restart = [BookBuild.Status.FAILED] if again else []
        if not book_storage().exists(key.name):
            restart.append(BookBuild.Status.BUILT)
        if key.builds.filter(status__in=restart).update(
            status=BookBuild.Status.BUILDING, done=0, error="", finished=None
        ):
            queue.enqueue("build_book", key.root, key.format, key.version)
            build.refresh_from_db()
    return build


def build(key):
    """Build the book of ``key`` into the storage, once, as its build's row asks.

    Does nothing unless the row is there and not failed (a build is only run by the task its
    row's insert enqueued). If the row says built and the storage holds the book (a task
    run again after it ended), nothing is rendered. Otherwise the book is rendered, with its
    progress written on the row, and stored under its name, replacing whatever is there (a
    part of a book left by a worker that died while storing it); then the row is marked
    built, and the files and rows of the same book at other versions are deleted. A render
    that raises is logged at ERROR with its traceback, and the row marked failed with the
    error: running it again would fail the same way, so the task itself succeeds.

    Args:
        key: the :class:`BookKey`.

    Returns:
        The row's status afterwards, or None if there is no row.

    Raises:
        OSError: the storage failed; the task runs again later (``chapters.worker``).
    """
    row = key.builds.first()
    if row is None:
        return None
    if row.status == BookBuild.Status.FAILED:
        return row.status
    storage = book_storage()
    if row.status != BookBuild.Status.BUILT or not storage.exists(key.name):
        try:
            data = _render(key, row)
        except Exception as error:
            logger.exception("The %s of book %s could not be built.", key.format, key.stem)
            key.builds.update(
                status=BookBuild.Status.FAILED, error=repr(error), finished=timezone.now()
            )
            return BookBuild.Status.FAILED
        _store(storage, key.name, data)
    _delete_others(storage, key)
    key.builds.update(status=BookBuild.Status.BUILT, done=row.total, finished=timezone.now())
    BookBuild.objects.filter(root=key.root, format=key.format).exclude(version=key.version).exclude(
        status=BookBuild.Status.BUILDING
    ).delete()
    return BookBuild.Status.BUILT


def _store(storage, name, data):
    """Store ``data`` as ``name`` in ``storage``, replacing the file there.

    A storage that keeps an existing name (Django's file system storage) stores a second
    copy under a name of its own choosing: that happens only when another run of the same
    build stored the book between the delete and the save here, and its copy, the same
    book, is kept.
    """
    storage.delete(name)
    stored = storage.save(name, ContentFile(data))
    if stored != name:
        storage.delete(stored)


def _delete_others(storage, key):
    """Delete from ``storage`` the files of ``key``'s book at every other version."""
    try:
        _folders, files = storage.listdir(key.format)
    except FileNotFoundError:
        return
    for file in files:
        name = f"{key.format}/{file}"
        if file.startswith(key.stem) and name != key.name:
            storage.delete(name)


def _render(key, row):
    """Return the book's bytes, writing its progress on ``row``'s table as it goes.

    The book is dated by the build's start, so that rendering it again gives the same file.

    Raises:
        LookupError: the node is gone.
        Exception: whatever the renderer raises.
    """
    root = None
    if key.root is not None:
        root = Node.objects.filter(pk=key.root).first()
        if root is None:
            raise LookupError(f"There is no node {key.root} any more.")
    book = book_of(root)
    total = book.chapter_count
    key.builds.update(done=0, total=total)
    row.total = total
    every = max(1, total // PROGRESS_STEPS)
    done = 0

    def progress(node):
        nonlocal done
        if not node.is_chapter:
            return
        done += 1
        if done % every == 0 or done == total:
            key.builds.update(done=done)

    return _renderer(key.format)(book, built=row.started, progress=progress)


def _renderer(format):
    """Return the function rendering a book as ``format``.

    Imported when a book is built, not with the URLs: WeasyPrint and ziamath take a
    noticeable part of a second to import, which every process and command would pay.
    """
    return getattr(import_module(f"{__package__}.{format}"), f"render_{format}")
