"""What the wiki tells people: the changes to pages they watch, the changes waiting for
review, and the reviews' results; as notifications, e-mailed by a background task.

A :class:`~chapters.models.Watch` of a page covers the page; a watch of a section covers
every page under it. Nobody hears of their own doing: the author of a change is not told of
it, nor the reviewer of their decision (the author of a reviewed change always is).

Every write to the tree (``chapters.models.tree_write``) hands the revisions it recorded to
:func:`tell_of_revisions`, through a task, once it commits: watchers hear of every save,
whichever door it came through (the site's editor, the admin's form or drag, a revert, a
restore, an import, a script), in one message per person and write. A proposal and a
review's decision are told in their own transaction (:func:`change_proposed`,
:func:`change_decided`). Either way each message is a
:class:`~chapters.models.Notification` row, and :func:`send` e-mails the rows of one key
through Django's e-mail backend (``EMAIL_BACKEND``: the console by default, see
docs/operations.md), marking each as sent: a mail server that fails fails the task, which is
logged and runs again later (``chapters.worker``), sending only what was not sent.
"""

from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage, get_connection
from django.urls import reverse
from django.utils import timezone

from .. import queue
from ..models import Node, Notification, Watch, one_line
from ..permissions import can_edit, can_review

__all__ = [
    "SUBJECT_PREFIX",
    "change_decided",
    "change_commented",
    "change_proposed",
    "reviewers",
    "send",
    "tell",
    "tell_of_revisions",
    "watchers",
]

SUBJECT_PREFIX = "[Curriculum Wiki] "

# What each kind of revision (simple-history's history_type) did to its page.
VERBS = {"+": "added", "~": "changed", "-": "deleted"}


def watchers(node, *, besides=(), editors_only=False):
    """Return the active users watching ``node`` or a section above it, each once, in the
    order of their watches, but not ``besides`` (users).

    Args:
        node: the page.
        besides: users to leave out.
        editors_only: only those who may see a pending change (``permissions.can_edit``).
    """
    left_out = {user.pk for user in besides if user is not None}
    found = {}
    for watch in Watch.objects.covering(node).select_related("user").order_by("pk"):
        user = watch.user
        if user.is_active and user.pk not in left_out:
            found.setdefault(user.pk, user)
    return [user for user in found.values() if not editors_only or can_edit(user)]


def tell(recipients, key, subject, body, url):
    """Record a notification for each of ``recipients`` and have it e-mailed.

    Call in the transaction of what it tells of: the rows, and the task sending them,
    commit with it. A recipient told of ``key`` already is not told again.

    Args:
        recipients: users.
        key: what the message is about, the same for each recipient ("change:7:proposed").
        subject: the subject, without the wiki's prefix.
        body: the text.
        url: the page it is about.
    """
    _record(
        key,
        [
            Notification(recipient=user, key=key, subject=subject, body=body, url=url)
            for user in recipients
        ],
    )


def _record(key, rows):
    """Store the notifications ``rows`` of ``key`` (those not stored already) and enqueue the
    task e-mailing them."""
    if rows:
        Notification.objects.bulk_create(rows, ignore_conflicts=True)
        queue.enqueue("send_notifications", key)


def send(key):
    """E-mail the notifications of ``key`` not e-mailed yet, one message each, marking each
    as e-mailed once sent. Recipients without an address are not e-mailed.

    Raises:
        Exception: whatever the e-mail backend raises (a mail server that is down); the
            notifications sent before it stay marked.
    """
    waiting = Notification.objects.filter(key=key, emailed=None).exclude(recipient__email="")
    with get_connection() as connection:
        for note in waiting.select_related("recipient").order_by("pk"):
            message = EmailMessage(
                SUBJECT_PREFIX + note.subject,
                note.body,
                to=[note.recipient.email],
                connection=connection,
            )
            message.send()
            Notification.objects.filter(pk=note.pk).update(emailed=timezone.now())


def _links(base_url, path):
    """Return the lines linking to the page at ``path`` and to its history."""
    base = base_url.rstrip("/")
    return [
        f"The page: {base}{reverse('chapters:node', kwargs={'path': path})}",
        f"Its history: {base}{reverse('chapters:history', args=[path])}",
    ]


def _told(revision, base_url, under):
    """Return what a message says of one revision: a headline (what happened to the page, by
    whom) and its lines (the headline, why, where).

    Args:
        revision: a revision of the write.
        base_url: the site's address, for the links.
        under: for a deletion, the number of pages deleted with the page.
    """
    by = f" by {revision.history_user}" if revision.history_user_id else ""
    headline = f"“{revision.title}” was {VERBS[revision.history_type]}{by}"
    lines = [
        f"{headline}, with {under} page{'s' * (under != 1)} under it." if under else f"{headline}."
    ]
    summary = one_line(revision.history_change_reason)
    if summary:
        lines.append(f"Summary: {summary}")
    if revision.history_type != "-":
        lines += _links(base_url, revision.path)
    return headline, lines


def tell_of_revisions(first, last, base_url, deleted_watchers):
    """Tell the watchers of the pages a write changed what it did: one message each.

    The revisions are those with ids after ``first`` up to ``last``, which one write to the
    tree recorded. A page's watchers are those of the page and of the sections above it, at
    the path the revision records; a deleted page's own watches are gone with it, so the
    write named its watchers (``deleted_watchers``). The pages deleted with a section are
    told of as the section's. A message to one watcher names each page of theirs the write
    changed; none tells its author of their own revision. Users are told in the order they
    joined.

    Args:
        first: the id of the latest revision before the write.
        last: the id of the write's latest revision.
        base_url: the site's address, for the links.
        deleted_watchers: ``{str(node id): [user ids]}`` for the nodes the write deleted.
    """
    revisions = [
        revision
        for revision in Node.history.filter(history_id__gt=first, history_id__lte=last)
        .select_related("history_user")
        .order_by("history_id")
        # The pages deleted with a section are the section's deletion.
        if revision.history_type != "-" or revision.deletion in (None, revision.history_id)
    ]
    under = {}
    for deletion in Node.history.filter(
        history_id__gt=first, history_id__lte=last, history_type="-"
    ).values_list("deletion", "history_id"):
        if deletion[0] != deletion[1]:
            under[deletion[0]] = under.get(deletion[0], 0) + 1
    prefixes = {p for revision in revisions for p in _covering(revision.path)}
    watching = {}
    for path, user in Watch.objects.filter(node__path__in=prefixes).values_list(
        "node__path", "user"
    ):
        watching.setdefault(path, []).append(user)
    told = {}
    for revision in revisions:
        users = [u for path in _covering(revision.path) for u in watching.get(path, [])]
        users += deleted_watchers.get(str(revision.id), []) if revision.history_type == "-" else []
        for user in users:
            if user != revision.history_user_id:
                told.setdefault(user, []).append(revision)
    active = get_user_model().objects.filter(pk__in=told, is_active=True).in_bulk()
    key, rows = f"revisions:{first}-{last}", []
    for user_id, theirs in sorted(told.items()):
        if user_id not in active:
            continue
        parts = [_told(r, base_url, under.get(r.history_id, 0)) for r in theirs]
        subject = parts[0][0]
        if len(theirs) > 1:
            authors = {revision.history_user for revision in theirs}
            by = f" by {authors.pop()}" if len(authors) == 1 and None not in authors else ""
            subject = f"{len(theirs)} pages were changed{by}"
        body = "\n\n".join("\n".join(lines) for _, lines in parts) + "\n"
        rows.append(
            Notification(
                recipient=active[user_id], key=key, subject=subject, body=body, url=_url(theirs[0])
            )
        )
    _record(key, rows)


def _url(revision):
    """Return the address of what a revision tells of: its page, or, for a page deleted,
    the revision (the page as it was)."""
    if revision.history_type == "-":
        return reverse("chapters:revision", args=[revision.history_id])
    return reverse("chapters:node", kwargs={"path": revision.path})


def _covering(path):
    """Return ``path`` and the paths of the sections above it."""
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]


def reviewers(*, besides=()):
    """Return the active users who may review (``permissions.can_review``: the Reviewer and
    Admin groups, superusers), in the order they joined, but not ``besides`` (users)."""
    left_out = {user.pk for user in besides if user is not None}
    found = get_user_model().objects.with_perm(
        "chapters.publish_node", backend="django.contrib.auth.backends.ModelBackend"
    )
    found = found.order_by("pk")
    return [user for user in found if user.pk not in left_out and can_review(user)]


def change_proposed(change, base_url):
    """Tell the reviewers, and the watchers of a page who may see a pending change
    (editors), that a change to it waits for review.

    Readers do not see a change before it is approved, so neither do the watchers who are
    not editors hear of it; the message names the page by its stored title, never the title
    proposed.

    Args:
        change: the :class:`~chapters.models.PendingChange`, just saved.
        base_url: the site's address, for the links.
    """
    author = change.author
    node = Node.objects.get(pk=change.node_id)
    summary = one_line(change.summary)
    lines = [
        f"{author} proposed a change to “{node.title}”; it waits for a reviewer.",
        f"Summary: {summary}" if summary else "",
        f"The change: {base_url.rstrip('/')}{change.get_absolute_url()}",
    ]
    told = reviewers(besides=[author])
    told += [
        user for user in watchers(node, besides=[author], editors_only=True) if user not in told
    ]
    tell(
        told,
        f"change:{change.pk}:proposed:{change.version}",
        f"A change to “{node.title}” by {author} waits for review",
        "\n".join(line for line in lines if line) + "\n",
        change.get_absolute_url(),
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
    comment = one_line(change.comment)
    lines = [
        f"The change to “{node.title}” by {author} was {verb} by {reviewer}.",
        f"Their comment: {comment}" if comment else "",
        f"The change: {base_url.rstrip('/')}{change.get_absolute_url()}",
    ]
    told = [author] if author != reviewer and author.is_active else []
    editors_only = change.state != change.State.APPROVED
    told += [
        user
        for user in watchers(node, besides=[reviewer], editors_only=editors_only)
        if user != author
    ]
    tell(
        told,
        f"change:{change.pk}:{change.state}:{change.version}",
        f"The change to “{node.title}” by {author} was {verb} by {reviewer}",
        "\n".join(line for line in lines if line) + "\n",
        change.get_absolute_url(),
    )


def change_commented(comment, base_url):
    """Tell the author of a pending change, and everyone who commented on it before, of a
    new comment on it; not the comment's own author.

    Args:
        comment: the :class:`~chapters.models.ReviewComment`, just saved.
        base_url: the site's address, for the links.
    """
    change = comment.change
    node = Node.objects.get(pk=change.node_id)
    before = change.comments.exclude(pk=comment.pk).select_related("author")
    told = {}
    for user in [change.author, *(earlier.author for earlier in before)]:
        if user.is_active and user != comment.author:
            told.setdefault(user.pk, user)
    where = f" on line {comment.line.split('-')[1]}" if comment.line else ""
    url = f"{change.get_absolute_url()}#comment-{comment.pk}"
    lines = [
        f"{comment.author} commented{where} on the change to “{node.title}” by {change.author}:",
        one_line(comment.text),
        f"The change: {base_url.rstrip('/')}{url}",
    ]
    tell(
        list(told.values()),
        f"change:{change.pk}:comment:{comment.pk}",
        f"{comment.author} commented on the change to “{node.title}”",
        "\n".join(lines) + "\n",
        url,
    )
