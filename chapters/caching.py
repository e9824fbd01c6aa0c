"""HTTP caching of the reader's pages: conditional GET, and whole pages for readers.

Everything is keyed by the wiki's version (``WikiVersion``), which the database bumps on
every write that changes what a page shows, and which each request reads once
(``version_watch``: a query on SQLite, from memory on PostgreSQL until a change), together
with a digest of the code, templates and static files that make the pages (so a deploy that
changes them is a new version too, for the cache and for browsers). So:

- a page's ``ETag`` is the version and whom the page is for, its ``Last-Modified`` the time
  of the version; a request whose ``If-None-Match`` or ``If-Modified-Since`` still matches
  is answered 304 before anything is rendered: a reader's by
  :class:`ReaderNotModifiedMiddleware`, before the rest of the middleware, a signed-in
  user's by Django's ``condition`` decorator on the view;
- a page asked for by a reader (a GET or HEAD without a session or messages cookie, so
  anonymous and with no messages waiting) is kept whole in Django's cache under the
  version and the path, and served from there by :class:`ReaderPageMiddleware` until the
  next edit, before sessions and authentication run. Signed-in users, staff included,
  always get a freshly rendered page (it may have their "Edit" link or messages), and only
  a 200 that sets no cookie is kept;
- every such page says ``Cache-Control: no-cache``, so browsers and proxies ask again
  (cheaply, with the ETag) instead of showing a page an edit has changed, and a reader's
  says ``Vary: Cookie``.
"""

import hashlib
from functools import cache as once
from functools import lru_cache, wraps
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.http import HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date
from django.views.decorators.http import condition

from .permissions import can_edit
from .version_watch import watch

__all__ = [
    "ReaderNotModifiedMiddleware",
    "ReaderPageMiddleware",
    "cached_page",
    "clear",
    "source_digest",
    "version",
]

# What the pages are made from, besides the database.
SOURCES = ["chapters", "wiki", "templates", "static"]

# How many whole pages each process keeps in its own memory, besides Django's cache.
PAGES_IN_PROCESS = 16


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
        request._pages_version = f"{_version(request)[0]}-{_release()}"
    return request._pages_version


def _version(request):
    """Return the wiki's version (``version_watch.watch.current()``), once per request."""
    if not hasattr(request, "_wiki_version"):
        request._wiki_version = watch.current()
    return request._wiki_version


def _is_reader(request):
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


def _viewer(request):
    """Return whom the page is for, as part of its ETag; None when it must be rendered.

    Returns:
        ``"reader"`` for anyone not signed in; ``"user-<pk>"`` for a signed-in user, with
        ``-editor`` when they may edit (``permissions.can_edit``: their pages have an "Edit"
        link); None when messages are waiting to be shown.
    """
    if _is_reader(request):
        return "reader"
    if len(messages.get_messages(request)):
        return None
    if not request.user.is_authenticated:
        return "reader"
    return f"user-{request.user.pk}{'-editor' if can_edit(request.user) else ''}"


def _etag(request, *args, **kwargs):
    """Return the page's ETag (for ``condition``): the version and the viewer, or None."""
    viewer = _viewer(request)
    return None if viewer is None else f'"{version(request)}-{viewer}"'


def _last_modified(request, *args, **kwargs):
    """Return the page's Last-Modified (for ``condition``): the version's time, or None."""
    return None if _viewer(request) is None else _version(request)[1]


@lru_cache(maxsize=PAGES_IN_PROCESS)
def _kept_page(key, version):
    """Return the page stored in Django's cache under ``key`` and ``version``, kept in memory.

    A page stored under a version never changes (the next edit is a new version), so a
    process may keep the last pages it read: the most read pages are then served without
    copying them out of the cache. Django's cache pickles what it keeps, and reading a page
    back costs a copy of all its bytes (a 5.6 MB page at 20,000 nodes) from local memory, or
    a transfer from Redis. At most ``PAGES_IN_PROCESS`` pages, the most recently read.

    Raises:
        LookupError: the cache holds no such page (an exception, so that ``lru_cache``
            keeps nothing for it).
    """
    content = cache.get(key, version=version)
    if content is None:
        raise LookupError(key)
    return content


def clear():
    """Empty Django's cache and forget the pages this process keeps (tests, the benchmark)."""
    cache.clear()
    _kept_page.cache_clear()


def cached_page(view):
    """Serve ``view``'s pages with conditional GET, and keep readers' pages in the cache.

    For views whose page depends only on the wiki's content, the path and the viewer (not
    on the query string). :class:`ReaderNotModifiedMiddleware` answers readers' 304s and
    :class:`ReaderPageMiddleware` serves the kept pages, before the view is reached; here the
    pages are rendered, a reader's is kept, and signed-in users get their 304s.

    Args:
        view: a function view.

    Returns:
        The decorated view.
    """

    @condition(etag_func=_etag, last_modified_func=_last_modified)
    def serve(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if (
            _is_reader(request)
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
        ):
            cache.set(_page_key(request), response.content, version=version(request))
        return response

    @wraps(view)
    def respond(request, *args, **kwargs):
        response = serve(request, *args, **kwargs)
        if _is_reader(request):
            _mark_for_readers(response)
        else:
            patch_cache_control(response, no_cache=True, private=True)
        return response

    respond.cached_page = True  # the reader middleware answer for it
    return respond


def _page_key(request):
    """Return the cache key of the reader's page at ``request``'s path."""
    return f"page:{hashlib.sha256(request.path.encode()).hexdigest()}"


def _mark_for_readers(response):
    """Say that a reader's page must be revalidated and depends on the cookies sent."""
    patch_cache_control(response, no_cache=True)
    patch_vary_headers(response, ["Cookie"])


# The request headers that make a GET conditional (RFC 9110, section 13.1).
PRECONDITIONS = (
    "HTTP_IF_MATCH",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
)


class ReaderNotModifiedMiddleware:
    """Answer a reader's conditional GET of a :func:`cached_page` view first: 304 when the
    reader's copy is current.

    A reader's page (:func:`_is_reader`) is the same for every reader and has the same ETag
    at every path, the version and ``reader``, so whether a reader's copy is current needs
    neither the session, the user nor the view. This middleware comes right after the
    security and static-file middleware, and nothing after it runs for a 304: it has no
    body, and a browser keeps the other headers of the page it has (RFC 9111, section
    4.3.4), so the CSP and frame options need not be built for it. The preconditions are
    Django's ``get_conditional_response`` (RFC 9110, section 13.2.2, as the ``condition``
    decorator checks them), and the answer has the page's ``ETag``, ``Last-Modified``,
    ``Cache-Control`` and ``Vary``. Any other request goes on down the stack.

    Args:
        get_response: the next middleware, as Django passes it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        """Return a reader's 304 (or 412) when the preconditions say so, else go on."""
        if (
            any(header in request.META for header in PRECONDITIONS)
            and _is_reader(request)
            and _serves_cached_page(request)
        ):
            request.get_host()  # a host not allowed is refused (400), as CommonMiddleware does
            response = _precondition_answer(request)
            if response is not None:
                return response
        return self.get_response(request)


class ReaderPageMiddleware:
    """Answer a reader's request for a :func:`cached_page` view with the page kept in the
    cache, before the view.

    It comes after the middleware that sets headers on every response (CSP,
    ``Content-Length``, frame options) and before the ones with nothing to do for an
    anonymous GET (sessions, CSRF, authentication, messages, history, axes), which then do
    not run. Its answer is the view's: the same bytes and headers (``ETag``,
    ``Last-Modified``, ``Cache-Control: no-cache``, ``Vary: Cookie``), and a 304 when the
    preconditions say so (when :class:`ReaderNotModifiedMiddleware` has not answered it).
    When no page is kept, the request goes on to the view, which renders and keeps it.

    Args:
        get_response: the next middleware, as Django passes it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        """Return the kept page (or a 304) for a reader, else go on to the view."""
        if _is_reader(request) and _serves_cached_page(request):
            response = _precondition_answer(request)
            if response is None:
                try:
                    content = _kept_page(_page_key(request), version(request))
                except LookupError:
                    return self.get_response(request)
                response = _with_reader_headers(request, HttpResponse(content))
            return response
        return self.get_response(request)


def _precondition_answer(request):
    """Return the answer to a reader's preconditions (a 304 or 412), or None to go on."""
    _, changed = _version(request)
    modified = changed and int(changed.timestamp())
    response = get_conditional_response(request, etag=_etag(request), last_modified=modified)
    return None if response is None else _with_reader_headers(request, response)


def _with_reader_headers(request, response):
    """Return ``response`` with the headers ``cached_page`` gives a reader's page."""
    response.headers["ETag"] = _etag(request)
    changed = _version(request)[1]
    if changed:
        response.headers["Last-Modified"] = http_date(int(changed.timestamp()))
    _mark_for_readers(response)
    return response


def _serves_cached_page(request):
    """Return True when ``request``'s path resolves to a :func:`cached_page` view.

    Resolved once per request; both middleware ask.
    """
    if not hasattr(request, "_serves_cached_page"):
        try:
            match = resolve(request.path_info, urlconf=getattr(request, "urlconf", None))
        except Resolver404:
            request._serves_cached_page = False
        else:
            request._serves_cached_page = getattr(match.func, "cached_page", False)
    return request._serves_cached_page
