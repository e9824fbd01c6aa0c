"""What a page's validators are made of: the version of the pages and whom a page is for.

A page's ``ETag`` is the version of the pages for the request (:func:`version`: the wiki's
version and the release digest) and the viewer (:func:`viewer`); its ``Last-Modified`` is
the time of the wiki's version. The story they belong to is told in :mod:`chapters.caching`.
"""

import hashlib
from functools import cache as once
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage

from ..models import Notification, PendingChange, Watch
from ..permissions import can_edit
from .version_watch import watch

__all__ = [
    "SOURCES",
    "etag",
    "is_reader",
    "last_modified",
    "source_digest",
    "version",
    "viewer",
    "wiki_version",
]

# What the pages are made from, besides the database.
SOURCES = ["chapters", "wiki", "templates", "static"]


def source_digest(root, folders):
    """Return a digest of the files under ``folders`` of ``root``: their paths and contents.

    Compiled Python (``__pycache__``) is left out; it differs between machines running the
    same code.

    Args:
        root: a directory.
        folders: names of directories in it.

    Returns:
        16 hexadecimal digits of a SHA-256 of every file's path and bytes, in path order.
    """
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted((Path(root) / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _release():
    """Return the digest of the code, templates and static files.

    Computed once per process; with debug on (``bin/serve``, whose server reloads code but
    not the process for a template) for each request, so that an edited template shows at
    once.
    """
    return source_digest(settings.BASE_DIR, SOURCES) if settings.DEBUG else _deployed()


@once
def _deployed():
    """Return the digest of this process's code, templates and static files, once."""
    return source_digest(settings.BASE_DIR, SOURCES)


def version(request):
    """Return the version of the pages for ``request``, read once per request (with debug
    on, the digest of the code walks every file: once per request too).

    Returns:
        The wiki's version token (``WikiVersion.current()``) and the digest of the code,
        templates and static files, so that servers running the same code share what they
        cache and a deploy never serves pages (or 304s) of the code before it.
    """
    if not hasattr(request, "_pages_version"):
        request._pages_version = f"{wiki_version(request)[0]}-{_release()}"
    return request._pages_version


def wiki_version(request):
    """Return the wiki's version (``version_watch.watch.current()``), once per request.

    Returns:
        A ``(token, changed)`` pair, as ``WikiVersion.current()``.
    """
    if not hasattr(request, "_wiki_version"):
        request._wiki_version = watch.current()
    return request._wiki_version


def is_reader(request):
    """Return True for a request whose page is the same for every reader.

    A GET or HEAD without a session cookie is anonymous and has no messages in a session;
    without the messages cookie it has none in a cookie either. Nothing else in the
    reader's pages depends on the request (the colour scheme is the browser's own choice,
    in localStorage; the pages hold no CSRF token).
    """
    return (
        request.method in ("GET", "HEAD")
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and CookieStorage.cookie_name not in request.COOKIES
    )


def viewer(request):
    """Return whom the page is for, as part of its ETag; None when it must be rendered.

    Returns:
        ``"reader"`` for anyone not signed in; ``"user-<pk>"`` for a signed-in user, with
        ``-editor`` when they may edit (``permissions.can_edit``: their pages have an "Edit"
        link), then the state of what their pages show that the wiki's version does not
        follow, when there is any: for an editor, the pending changes (a page says a change
        waits for review: ``PendingChange.objects.stamp()``), and the pages they watch
        (their Watch buttons: ``Watch.objects.stamp()``), and their notifications (the
        header's count: ``Notification.objects.stamp()``). None when messages are waiting
        to be shown.
    """
    if is_reader(request):
        return "reader"
    if len(messages.get_messages(request)):
        return None
    user = request.user
    if not user.is_authenticated:
        return "reader"
    editor = can_edit(user)
    seen_by = f"user-{user.pk}{'-editor' if editor else ''}"
    pending = PendingChange.objects.stamp() if editor else ""
    shown = (pending, Watch.objects.stamp(user), Notification.objects.stamp(user))
    state = [part for part in shown if part]
    return "-".join([seen_by, *state])


def etag(request, *args, **kwargs):
    """Return the page's ETag (for ``condition``): the version and the viewer, or None."""
    seen_by = viewer(request)
    return None if seen_by is None else f'"{version(request)}-{seen_by}"'


def last_modified(request, *args, **kwargs):
    """Return the page's Last-Modified (for ``condition``): the version's time, or None."""
    return None if viewer(request) is None else wiki_version(request)[1]
