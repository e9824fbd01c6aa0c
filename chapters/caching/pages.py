"""Whole pages kept for readers, and the decorator that serves a view's pages with them.

:func:`cached_page` renders a view's page with conditional GET and keeps a reader's page in
Django's cache under the version of the pages; each process also keeps the last pages it read
(:func:`kept_page`). The story they belong to is told in :mod:`chapters.caching`; the
middleware that serves the kept pages is :mod:`chapters.caching.middleware`.
"""

import hashlib
from functools import lru_cache, wraps

from django.conf import settings
from django.core.cache import cache
from django.utils.cache import cc_delim_re, patch_cache_control
from django.views.decorators.http import condition

from .handover import hand_over, handed_over, mark_view
from .validators import etag, is_reader, last_modified, version

__all__ = [
    "PAGES_IN_PROCESS",
    "cached_page",
    "clear",
    "kept_page",
    "mark_for_readers",
    "mark_private",
    "page_key",
    "still_for_readers",
]

# How many whole pages each process keeps in its own memory, besides Django's cache.
PAGES_IN_PROCESS = 16


@lru_cache(maxsize=PAGES_IN_PROCESS)
def kept_page(key, version):
    """Return the page stored in Django's cache under ``key`` and ``version``, kept in memory.

    A page stored under a version never changes (the next edit is a new version), so a
    process may keep the last pages it read: the most read pages are then served without
    copying them out of the cache. Django's cache pickles what it keeps, and reading a page
    back costs a copy of all its bytes from local memory, or a transfer from Redis, which
    grows with the tree (``bench/README.md``). At most ``PAGES_IN_PROCESS`` pages, the most
    recently read.

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
    kept_page.cache_clear()


def cached_page(view):
    """Serve ``view``'s pages with conditional GET, and keep readers' pages in the cache.

    For views whose page depends only on the wiki's content, the path and the viewer (not
    on the query string). ``ReaderNotModifiedMiddleware`` answers readers' 304s and
    ``ReaderPageMiddleware`` serves the kept pages, before the view is reached; here the
    pages are rendered and marked (:func:`mark_for_readers`, :func:`mark_private`), and
    signed-in users get their 304s. A reader's page is kept by ``ReaderPageMiddleware``
    once the middleware after it have seen it (:func:`still_for_readers`).

    Args:
        view: a function view.

    Returns:
        The decorated view.
    """

    @condition(etag_func=etag, last_modified_func=last_modified)
    def serve(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if is_reader(request) and response.status_code == 200 and not response.streaming:
            hand_over(response, page_key(request), version(request))
        return response

    @wraps(view)
    def respond(request, *args, **kwargs):
        response = serve(request, *args, **kwargs)
        if is_reader(request):
            mark_for_readers(response)
        else:
            mark_private(response)
        return response

    return mark_view(respond)  # the reader middleware answer for it (.handover)


def page_key(request):
    """Return the cache key of the reader's page at ``request``'s URL, without its query.

    The scheme and host are part of it: a page names its own absolute URL (its canonical
    link and Open Graph tags), built from the request's scheme, host and path, so each host
    in ``ALLOWED_HOSTS`` has its own copy, and no page is served to one host naming
    another. Raises ``DisallowedHost`` for a host not allowed, as Django's
    ``get_host()``.
    """
    url = f"{request.scheme}://{request.get_host()}{request.path}"
    return f"page:{hashlib.sha256(url.encode()).hexdigest()}"


def mark_for_readers(response):
    """Say that a reader's page may be kept by a shared cache, and revalidated by browsers.

    ``Cache-Control: public, max-age=0, s-maxage=N, stale-while-revalidate=M`` (RFC 9111,
    section 5.2.2, and RFC 5861), N and M the settings ``WIKI_SHARED_CACHE_SECONDS`` and
    ``WIKI_SHARED_CACHE_STALE_SECONDS``: a browser asks again every time (cheaply, with the
    ETag), and a shared cache in front keeps the page N seconds, then serves it up to M
    seconds more while it asks the wiki again. The page does not say ``Vary: Cookie``: it is
    the same for every reader, and a shared cache must not key it by cookies that differ
    from one reader to the next; the configurations in ``deploy/`` send every request with
    a session or messages cookie to the wiki instead (``chapters.caching``). A response
    that sets a cookie is another reader's: it is made private (:func:`mark_private`).

    Args:
        response: a reader's page or its 304; changed in place.
    """
    if response.cookies:
        mark_private(response)
        return
    patch_cache_control(
        response,
        public=True,
        max_age=0,
        s_maxage=settings.WIKI_SHARED_CACHE_SECONDS,
        stale_while_revalidate=settings.WIKI_SHARED_CACHE_STALE_SECONDS,
    )
    vary = [field for field in cc_delim_re.split(response.get("Vary", "")) if field]
    if any(field.lower() == "cookie" for field in vary):
        response["Vary"] = ", ".join(field for field in vary if field.lower() != "cookie")
        if not response["Vary"]:
            del response["Vary"]


def still_for_readers(response):
    """Mark a reader's page again once the middleware after the view have seen it, and keep
    it when it is still the same for every reader.

    Sessions, CSRF and messages come after ``ReaderPageMiddleware`` and may add
    ``Vary: Cookie`` (Django's ``SessionMiddleware`` does when a template looked at the
    empty session of a reader) or set a cookie (the messages middleware keeps a message
    left for a reader in one). A response :func:`mark_for_readers` made public is marked
    again: without ``Vary: Cookie``, or private when it now sets a cookie. A page
    :func:`cached_page` rendered for a reader (a 200, not streamed) and handed over
    (:mod:`.handover`) is then kept in Django's cache, unless it sets a cookie.

    Args:
        response: the response to a reader's request; changed in place when it is public.

    Returns:
        ``response``.
    """
    if "public" in cc_delim_re.split(response.get("Cache-Control", "")):
        mark_for_readers(response)
    kept = handed_over(response)
    if kept is not None and not response.cookies:
        cache.set(kept.key, response.content, version=kept.version)
    return response


def mark_private(response):
    """Say that a response is for one user only and must be revalidated.

    ``Cache-Control: no-cache, private`` (whatever it said before, ``public`` and
    ``s-maxage`` included): no shared cache keeps it, and a browser asks again with its
    ETag. For signed-in users' pages and any response that sets a cookie.

    Args:
        response: the response; changed in place.
    """
    del response["Cache-Control"]
    patch_cache_control(response, no_cache=True, private=True)
