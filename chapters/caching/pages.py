"""Whole pages kept for readers, and the decorator that serves a view's pages with them.

:func:`cached_page` renders a view's page with conditional GET and keeps a reader's page in
Django's cache under the version of the pages; each process also keeps the last pages it read
(:func:`kept_page`). The story they belong to is told in :mod:`chapters.caching`; the
middleware that serves the kept pages is :mod:`chapters.caching.middleware`.
"""

import hashlib
from functools import lru_cache, wraps

from django.core.cache import cache
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import condition

from .validators import etag, is_reader, last_modified, version

__all__ = [
    "PAGES_IN_PROCESS",
    "cached_page",
    "clear",
    "kept_page",
    "mark_for_readers",
    "page_key",
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
    pages are rendered, a reader's is kept, and signed-in users get their 304s.

    Args:
        view: a function view.

    Returns:
        The decorated view.
    """

    @condition(etag_func=etag, last_modified_func=last_modified)
    def serve(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if (
            is_reader(request)
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
        ):
            cache.set(page_key(request), response.content, version=version(request))
        return response

    @wraps(view)
    def respond(request, *args, **kwargs):
        response = serve(request, *args, **kwargs)
        if is_reader(request):
            mark_for_readers(response)
        else:
            patch_cache_control(response, no_cache=True, private=True)
        return response

    respond.cached_page = True  # the reader middleware answer for it
    return respond


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
    """Say that a reader's page must be revalidated and depends on the cookies sent."""
    patch_cache_control(response, no_cache=True)
    patch_vary_headers(response, ["Cookie"])
