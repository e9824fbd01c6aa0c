"""What posting, editing, deleting and hiding a comment do, and who hears of a new one.

Moderators are the reviewers (``permissions.can_review``: the Reviewer and Admin groups,
superusers): they already decide what readers see of the pages, and Editors, who write
pages, are not asked to judge the readers who discuss them.
"""

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from ..edit import notify
from ..models import Comment, one_line
from ..permissions import can_review

__all__ = [
    "RATE_WINDOW",
    "can_moderate",
    "delete",
    "edit",
    "hide",
    "over_rate",
    "post",
]

# The rate limit's window, in seconds: DISCUSSION_COMMENTS_PER_MINUTE posts in each.
RATE_WINDOW = 60


def can_moderate(user):
    """Return True when ``user`` may hide and show again others' comments (as
    ``permissions.can_review``; see the module's docstring for why).

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return can_review(user)


def over_rate(user):
    """Count a post by ``user`` and return True when it is beyond the limit.

    The limit is ``DISCUSSION_COMMENTS_PER_MINUTE`` posts in a window of
    :data:`RATE_WINDOW` seconds that starts with the first post, counted in the cache
    (``cache.add`` then ``cache.incr``, atomic in Redis and in the local memory cache).
    """
    key = f"discussion:posts:{user.pk}"
    cache.add(key, 0, RATE_WINDOW)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: a new window
        cache.add(key, 1, RATE_WINDOW)
        count = 1
    return count > settings.DISCUSSION_COMMENTS_PER_MINUTE


def post(node, author, body, html, parent, base_url):
    """Save a new comment on ``node`` and tell its watchers and the thread's people.

    A reply to a reply becomes a reply to its top comment: replies go one level deep.

    Args:
        node: the chapter.
        author: the signed-in user.
        body: the Markdown.
        html: ``body`` rendered (``chapters.markdown.render_comment``).
        parent: the comment replied to, or None.
        base_url: the site's address, for the links in the mail.

    Returns:
        The :class:`~chapters.models.Comment`.
    """
    if parent is not None and parent.parent_id is not None:
        parent = parent.parent
    with transaction.atomic():
        comment = Comment.objects.create(
            node=node, author=author, parent=parent, body=body, body_html=html
        )
        _tell(comment, base_url)
    return comment


def _tell(comment, base_url):
    """Tell the chapter's watchers and everyone who commented on it before of ``comment``,
    once each, not its author, in the order of :func:`notify.watchers` then of their first
    comments."""
    node, author = comment.node, comment.author
    told = {user.pk: user for user in notify.watchers(node, besides=[author])}
    earlier = Comment.objects.filter(node=node, deleted=None).exclude(pk=comment.pk)
    for user in [c.author for c in earlier.select_related("author").order_by("created", "pk")]:
        if user.is_active and user.pk != author.pk:
            told.setdefault(user.pk, user)
    verb = "replied" if comment.parent_id else "commented"
    url = comment.get_absolute_url()
    lines = [
        f"{author} {verb} on “{node.title}”:",
        one_line(comment.body),
        f"The discussion: {base_url.rstrip('/')}{url}",
    ]
    notify.tell(
        list(told.values()),
        f"comment:{comment.pk}",
        f"{author} {verb} on “{node.title}”",
        "\n".join(lines) + "\n",
        url,
    )


def edit(comment, body, html):
    """Replace the text of ``comment`` (its author's own), marking it edited now."""
    comment.body, comment.body_html, comment.edited = body, html, timezone.now()
    comment.save(update_fields=["body", "body_html", "edited"])


def delete(comment):
    """Delete ``comment`` (its author's own).

    A comment with replies keeps its place, its text gone, shown as deleted; any other goes,
    and a deleted top comment whose last reply goes goes with it.
    """
    with transaction.atomic():
        if comment.replies.exists():
            comment.body, comment.body_html, comment.deleted = "", "", timezone.now()
            comment.save(update_fields=["body", "body_html", "deleted"])
            return
        parent = comment.parent
        comment.delete()
        if parent is not None and parent.deleted and not parent.replies.exists():
            parent.delete()


def hide(comment, moderator, hidden):
    """Hide ``comment`` from readers, or show it again (``hidden`` False).

    Args:
        comment: any comment.
        moderator: a user who :func:`can_moderate`.
        hidden: True to hide, False to show again.
    """
    comment.hidden_by = moderator if hidden else None
    comment.hidden_at = timezone.now() if hidden else None
    comment.save(update_fields=["hidden_by", "hidden_at"])
