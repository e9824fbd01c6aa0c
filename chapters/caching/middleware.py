"""The two middleware that answer readers before the rest of the stack runs.

:class:`ReaderNotModifiedMiddleware` answers a reader's conditional GET with a 304, and
:class:`ReaderPageMiddleware` serves a reader's page kept by
:func:`~chapters.caching.pages.cached_page`; where each sits in ``MIDDLEWARE``, and why, is
told in :mod:`chapters.caching` and in each class below.
"""

from functools import lru_cache

from django.http import HttpResponse
from django.urls import Resolver404, get_resolver, get_urlconf
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from .pages import kept_page, mark_for_readers, page_key
from .validators import etag, is_reader, version, wiki_version

__all__ = [
    "PRECONDITIONS",
    "RESOLVED_PATHS",
    "ReaderNotModifiedMiddleware",
    "ReaderPageMiddleware",
    "resolves_to_cached_page",
]


# The request headers that make a GET conditional (RFC 9110, section 13.1).
PRECONDITIONS = (
    "HTTP_IF_MATCH",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
)

# How many paths each process remembers whether they resolve to a ``cached_page`` view.
RESOLVED_PATHS = 256


class ReaderNotModifiedMiddleware:
    """Answer a reader's conditional GET of a ``cached_page`` view first: 304 when the
    reader's copy is current.

    A reader's page (:func:`~.validators.is_reader`) is the same for every reader and has the
    same ETag at every path, the version and ``reader``, so whether a reader's copy is current
    needs neither the session, the user nor the view. This middleware comes right after the
    security, static-file and compression middleware, and nothing after it runs for a 304: it
    has no body, and a browser keeps the other headers of the page it has (RFC 9111, section
    4.3.4), so the CSP and frame options need not be built for it. The preconditions are Django's
    ``get_conditional_response`` (RFC 9110, section 13.2.2, as the ``condition`` decorator
    checks them), and the answer has the page's ``ETag``, ``Last-Modified``,
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
            and is_reader(request)
            and _serves_cached_page(request)
        ):
            request.get_host()  # a host not allowed is refused (400), as CommonMiddleware does
            response = _precondition_answer(request)
            if response is not None:
                return response
        return self.get_response(request)


class ReaderPageMiddleware:
    """Answer a reader's request for a ``cached_page`` view with the page kept in the cache,
    before the view.

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
        if is_reader(request) and _serves_cached_page(request):
            response = _precondition_answer(request)
            if response is None:
                try:
                    content = kept_page(page_key(request), version(request))
                except LookupError:
                    return self.get_response(request)
                response = _with_reader_headers(request, HttpResponse(content))
            return response
        return self.get_response(request)


def _precondition_answer(request):
    """Return the answer to a reader's preconditions (a 304 or 412), or None to go on."""
    _, changed = wiki_version(request)
    modified = changed and int(changed.timestamp())
    response = get_conditional_response(request, etag=etag(request), last_modified=modified)
    return None if response is None else _with_reader_headers(request, response)


def _with_reader_headers(request, response):
    """Return ``response`` with the headers ``cached_page`` gives a reader's page."""
    response.headers["ETag"] = etag(request)
    changed = wiki_version(request)[1]
    if changed:
        response.headers["Last-Modified"] = http_date(int(changed.timestamp()))
    mark_for_readers(response)
    return response


def _serves_cached_page(request):
    """Return True when ``request``'s path resolves to a ``cached_page`` view.

    Answered once per request (both middleware ask) by :func:`resolves_to_cached_page`.
    """
    if not hasattr(request, "_serves_cached_page"):
        urlconf = getattr(request, "urlconf", None) or get_urlconf()
        request._serves_cached_page = resolves_to_cached_page(
            get_resolver(urlconf), request.path_info
        )
    return request._serves_cached_page


@lru_cache(maxsize=RESOLVED_PATHS)
def resolves_to_cached_page(resolver, path):
    """Return True when ``resolver`` resolves ``path`` to a ``cached_page`` view.

    What Django's ``resolve()`` answers depends only on the URLconf and the path (the
    wiki's URL patterns have no translated or per-request parts), so a process remembers
    the answer for the last ``RESOLVED_PATHS`` paths it was asked: the most read pages are
    then not resolved before the view, which Django resolves again when the request gets
    there. ``get_resolver()`` makes a new resolver when the URLconf changes (a test's
    ``ROOT_URLCONF``), under which nothing is remembered yet.

    Args:
        resolver: the URLconf's resolver, ``django.urls.get_resolver(urlconf)``.
        path: the request's ``path_info``.
    """
    try:
        match = resolver.resolve(path)
    except Resolver404:
        return False
    return getattr(match.func, "cached_page", False)
