"""What every page's template may name: the wiki's name and description, the page's URL,
and what a signed-in user's header counts.

The name and description are settings (``WIKI_NAME``, ``WIKI_DESCRIPTION`` in
``wiki/settings.py``), so that another wiki changes them there rather than in templates.
"""

from django.conf import settings
from django.utils.functional import cached_property

from .models import PendingChange
from .permissions import can_review

__all__ = ["Account", "account", "wiki"]


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


class Account:
    """What a signed-in user's header shows besides their name: "Review (N)" for those who
    may review, and "Notifications (N)". Each count is read (one query) only when the page
    shows it; the page's ETag follows both (``chapters.caching.validators.viewer``).

    Args:
        user: the signed-in user.
    """

    def __init__(self, user):
        self.user = user

    @cached_property
    def may_review(self):
        """Whether the user may review (``permissions.can_review``)."""
        return can_review(self.user)

    @cached_property
    def waiting(self):
        """How many changes wait for review; 0 for those who may not review."""
        return PendingChange.objects.waiting().count() if self.may_review else 0

    @cached_property
    def unread(self):
        """How many of the user's notifications are unread."""
        return self.user.notifications.unread().count()


def account(request):
    """Return ``account``: an :class:`Account` for a signed-in user, else None."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"account": None}
    return {"account": Account(user)}
