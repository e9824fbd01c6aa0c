"""What every page's template may name: the wiki's name and description, the page's URL.

The name and description are settings (``WIKI_NAME``, ``WIKI_DESCRIPTION`` in
``wiki/settings.py``), so that another wiki changes them there rather than in templates.
"""

from django.conf import settings

__all__ = ["wiki"]


def wiki(request):
    """Return ``wiki_name`` and ``wiki_description`` from the settings, and ``page_url``.

    ``page_url`` is the page's absolute URL without its query string: readers' pages are
    kept per path (``chapters.caching.pages.page_key``), so a query string one reader sent
    must not show on the page another reader gets. A printout names it (``base.html``).
    """
    return {
        "wiki_name": settings.WIKI_NAME,
        "wiki_description": settings.WIKI_DESCRIPTION,
        "page_url": request.build_absolute_uri(request.path),
    }
