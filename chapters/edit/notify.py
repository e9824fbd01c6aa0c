"""E-mail to the people watching a page: its changes, the changes waiting for review, and the
reviews' results.

A :class:`~chapters.models.Watch` of a page covers the page; a watch of a section covers
every page under it. Nobody hears of their own doing: the author of a change is not told of
it, nor the reviewer of their decision (the author of a reviewed change always is). The mail
goes through Django's e-mail backend (``EMAIL_BACKEND``: the console by default, see
docs/operations.md), one message per recipient, once the transaction that made the change
has committed (``transaction.on_commit``): a change rolled back sends nothing, and a mail
server that fails is logged by Django without undoing the change.
"""

from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.urls import reverse

from ..models import Node, Watch
from ..permissions import can_edit

__all__ = ["SUBJECT_PREFIX", "change_decided", "change_proposed", "page_changed"]

SUBJECT_PREFIX = "[Curriculum Wiki] "


def watchers(node, *, besides=(), editors_only=False):
    """Return the active users watching ``node`` or a section above it, with an e-mail
    address, but not ``besides`` (users), each once, in the order of their watches.

    Args:
        node: the page.
        besides: users to leave out.
        editors_only: only those who may see a pending change (``permissions.can_edit``).
    """
    left_out = {user.pk for user in besides if user is not None}
    found = {}
    for watch in Watch.objects.covering(node).select_related("user").order_by("pk"):
        user = watch.user
        if user.is_active and user.email and user.pk not in left_out:
            found.setdefault(user.pk, user)
    return [user for user in found.values() if not editors_only or can_edit(user)]


def _send_after_commit(recipients, subject, body):
    """Send ``subject`` and ``body`` to each of ``recipients`` once the transaction commits."""
    addresses = [user.email for user in recipients if user.email]
    if not addresses:
        return
    messages = [EmailMessage(SUBJECT_PREFIX + subject, body, to=[to]) for to in addresses]

    # A function, not a functools.partial: Django logs a robust callback's failure by its
    # __qualname__, which a partial lacks (the logging itself then fails, and the request
    # whose change has committed answers 500).
    def send_mail_after_commit():
        get_connection().send_messages(messages)

    transaction.on_commit(send_mail_after_commit, robust=True)


def page_changed(node, author, summary, base_url):
    """Tell the watchers of ``node`` that ``author`` saved it.

    Args:
        node: the page, just saved.
        author: who saved it, or None for a script.
        summary: the revision's edit summary, or "".
        base_url: the site's address, ``https://host/``, for the links.
    """
    by = f" by {author}" if author else ""
    lines = [
        f"“{node.title}” was changed{by}.",
        f"Summary: {summary}" if summary else "",
        f"The page: {base_url.rstrip('/')}{node.get_absolute_url()}",
        f"Its history: {base_url.rstrip('/')}{reverse('chapters:history', args=[node.path])}",
    ]
    _send_after_commit(
        watchers(node, besides=[author]),
        f"“{node.title}” was changed{by}",
        "\n".join(line for line in lines if line) + "\n",
    )


def change_proposed(change, base_url):
    """Tell the watchers of a page who may see a pending change (editors) that a change to
    it waits for review.

    Readers do not see a change before it is approved, so neither do the watchers who are
    not editors hear of it; the mail names the page by its stored title, never the title
    proposed.

    Args:
        change: the :class:`~chapters.models.PendingChange`, just saved.
        base_url: the site's address, for the links.
    """
    author = change.author
    node = Node.objects.get(pk=change.node_id)
    lines = [
        f"{author} proposed a change to “{node.title}”; it waits for a reviewer.",
        f"Summary: {change.summary}" if change.summary else "",
        f"The change: {base_url.rstrip('/')}{change.get_absolute_url()}",
    ]
    _send_after_commit(
        watchers(node, besides=[author], editors_only=True),
        f"A change to “{node.title}” by {author} waits for review",
        "\n".join(line for line in lines if line) + "\n",
    )


def change_decided(change, base_url):
    """Tell the author of a reviewed change, and the page's watchers, what the review decided.

    Only the watchers who may see the change (editors) hear that it was sent back: it never
    went live, and the reviewer's comment may quote it.

    Args:
        change: the :class:`~chapters.models.PendingChange`, approved or sent back.
        base_url: the site's address, for the links.
    """
    node, author, reviewer = change.node, change.author, change.reviewer
    verb = "approved" if change.state == change.State.APPROVED else "sent back"
    lines = [
        f"The change to “{node.title}” by {author} was {verb} by {reviewer}.",
        f"Their comment: {change.comment}" if change.comment else "",
        f"The change: {base_url.rstrip('/')}{change.get_absolute_url()}",
    ]
    told = [author] if author != reviewer else []
    editors_only = change.state != change.State.APPROVED
    told += [
        user
        for user in watchers(node, besides=[reviewer], editors_only=editors_only)
        if user != author
    ]
    _send_after_commit(
        told,
        f"The change to “{node.title}” by {author} was {verb} by {reviewer}",
        "\n".join(line for line in lines if line) + "\n",
    )
