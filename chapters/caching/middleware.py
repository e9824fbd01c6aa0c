"""The two middleware that answer readers before the rest of the stack runs.

:class:`ReaderNotModifiedMiddleware` answers a reader's conditional GET with a 304, and
:class:`ReaderPageMiddleware` serves a reader's page kept by
:func:`~chapters.caching.pages.cached_page`; where each sits in ``MIDDLEWARE``, and why, is
told in :mod:`chapters.caching` and in each class below.
"""

from functools import lru_cache

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse, HttpResponseNotModified
from django.urls import Resolver404, get_resolver, get_urlconf
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from ..metrics import READER_CACHE
from .handover import is_marked
from .pages import kept_page, mark_for_readers, page_key, still_for_readers
from .validators import etag, is_reader, version, wiki_version

__all__ = [
    "PRECONDITIONS",
    "RESOLVED_PATHS",
    "ReaderNotModifiedMiddleware",
    "ReaderPageMiddleware",
    "forget_reader_headers",
    "reader_headers",
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
    ``Last-Modified``, ``Cache-Control`` of :func:`~.pages.mark_for_readers`), and a 304 when
    the preconditions say so (when :class:`ReaderNotModifiedMiddleware` has not answered it).
    When no page is kept, the request goes on to the view, which renders it; on its way back
    through here the page is marked again and kept (:func:`~.pages.still_for_readers`).

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
                    READER_CACHE.labels("miss").inc()
                    return still_for_readers(self.get_response(request))
                READER_CACHE.labels("hit").inc()
                response = _with_reader_headers(request, HttpResponse(content))
            return response
        return self.get_response(request)


def _precondition_answer(request):
    """Return the answer to a reader's preconditions (a 304 or 412), or None to go on.

    A request without any (``PRECONDITIONS``) goes on at once, as Django's
    ``get_conditional_response`` would let it.
    """
    if not any(header in request.META for header in PRECONDITIONS):
        return None
    reader_etag = etag(request)
    if _is_not_modified(request, reader_etag):
        return _with_reader_headers(request, HttpResponseNotModified())
    _, changed = wiki_version(request)
    modified = changed and int(changed.timestamp())
    response = get_conditional_response(request, etag=reader_etag, last_modified=modified)
    return None if response is None else _with_reader_headers(request, response)


def _is_not_modified(request, reader_etag):
    """Return True when ``request`` is a reader's GET or HEAD whose only precondition that
    counts is an ``If-None-Match`` of the page's ETag alone, as a browser or proxy sends
    back what it was given: the common case, answered 304 without parsing the headers.

    Django's ``get_conditional_response`` answers such a request with a bare
    ``HttpResponseNotModified``: ``If-Match`` and ``If-Unmodified-Since`` are absent, and
    an ``If-Modified-Since`` is not looked at when ``If-None-Match`` is present (RFC 9110,
    section 13.2.2). ``W/`` before the ETag is the weak ETag of the compressed page, which
    RFC 9110 compares weakly for ``If-None-Match``. Anything else is left to Django.
    """
    return (
        request.META.get("HTTP_IF_NONE_MATCH") in (reader_etag, f"W/{reader_etag}")
        and "HTTP_IF_MATCH" not in request.META
        and "HTTP_IF_UNMODIFIED_SINCE" not in request.META
    )


def _with_reader_headers(request, response):
    """Return ``response`` (a new one: no validators nor caching headers yet) with the
    headers ``cached_page`` gives a reader's page, as :func:`reader_headers` made them."""
    for name, value in reader_headers(etag(request), wiki_version(request)[1]):
        response.headers[name] = value
    return response


@lru_cache(maxsize=4)
def reader_headers(reader_etag, changed):
    """Return the headers ``cached_page`` gives a reader's page of one version.

    The same for every reader's page of a version, so made once per version (the last
    few are kept) rather than for each answer: the ``ETag``, the ``Last-Modified`` (the
    version's time, in HTTP's date format, when it has one) and what
    :func:`~.pages.mark_for_readers` adds, set on a new response.

    Args:
        reader_etag: the page's ETag, as :func:`~.validators.etag` gives it to a reader.
        changed: the time of the wiki's version, or None.

    Returns:
        A tuple of ``(name, value)`` pairs, in the order they were set.
    """
    model = HttpResponse()
    model.headers["ETag"] = reader_etag
    if changed:
        model.headers["Last-Modified"] = http_date(int(changed.timestamp()))
    mark_for_readers(model)
    return tuple((name, value) for name, value in model.items() if name != "Content-Type")


@receiver(setting_changed)
def forget_reader_headers(**kwargs):
    """Make the readers' headers again after a test changed a setting (``setting_changed``):
    what :func:`~.pages.mark_for_readers` adds may depend on the settings, and the tests'
    trees come back at the same version."""
    reader_headers.cache_clear()


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
    return is_marked(match.func)
