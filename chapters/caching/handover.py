"""The hand-over between :func:`~.pages.cached_page` and the reader middleware.

The decorator runs in the view, the middleware around it; they tell each other two things,
each set in one place here and read in one place:

- **which views keep readers' pages.** :func:`mark_view` marks the view ``cached_page``
  returns; :func:`~.middleware.resolves_to_cached_page` asks :func:`is_marked` of the view a
  path resolves to, before any view runs, so that both middleware know which requests are
  theirs.
- **which page to keep, and under what.** The view renders a reader's page under the version
  of the pages it read (``validators.version``); the page may only be kept once the
  middleware after :class:`~.middleware.ReaderPageMiddleware` have seen it (they may set a
  cookie). So the decorator hands the response over with :func:`hand_over`, a
  :class:`KeptPage` of the page's cache key and that version, and the middleware, on the
  response's way back, reads it with :func:`handed_over` and keeps the page
  (:func:`~.pages.still_for_readers`).

Both travel as attributes (of the view function, of the response) because that is all a
view and a middleware share; their names are this module's and no other's.
"""

from typing import NamedTuple

__all__ = ["KeptPage", "hand_over", "handed_over", "is_marked", "mark_view"]

# The view's attribute that says it keeps readers' pages, and the response's that carries
# the page to keep.
VIEW_ATTRIBUTE = "cached_page"
RESPONSE_ATTRIBUTE = "kept_page"


class KeptPage(NamedTuple):
    """Where a reader's page is to be kept: its cache key (``pages.page_key``) and the
    version of the pages it was rendered under (``validators.version``)."""

    key: str
    version: str


def mark_view(view):
    """Mark ``view`` as one that keeps readers' pages; return it."""
    setattr(view, VIEW_ATTRIBUTE, True)
    return view


def is_marked(view):
    """Return True when ``view`` was marked by :func:`mark_view`."""
    return getattr(view, VIEW_ATTRIBUTE, False)


def hand_over(response, key, version):
    """Hand a reader's page over to be kept under ``key`` and ``version`` once the
    middleware after the reader middleware have seen it.

    Args:
        response: the page the view rendered for a reader (a 200, not streamed).
        key: its cache key.
        version: the version of the pages it was rendered under.
    """
    setattr(response, RESPONSE_ATTRIBUTE, KeptPage(key, version))


def handed_over(response):
    """Return the :class:`KeptPage` a view handed ``response`` over with, or None."""
    return getattr(response, RESPONSE_ATTRIBUTE, None)
