"""The background tasks: work that is slow or unbounded, taken off requests and out of the
tree's lock, and run by ``manage.py worker`` processes (:mod:`chapters.worker`).

Each task is small and idempotent: it takes plain values (primary keys, titles, paths),
reads what it works on when it runs, and leaves the same result however often it runs, so a
task handed back after its worker died, or run again after a failure, is done once. Writes
enqueue their tasks in their own transaction: django-tasks-db keeps tasks in the wiki's
database, so a task exists exactly when the write that asked for it committed, and none is
lost between a commit and its enqueueing.

The modules whose work a task does enqueue it by name (:mod:`chapters.queue`), and this
module imports each of them only when its task runs: no module it imports imports it.
"""

from django_tasks import task

from .queue import register

__all__ = [
    "announce_revisions",
    "build_book",
    "deliver_webhook",
    "mend_links",
    "process_media",
    "render_pages",
    "send_notifications",
    "tell_watchers",
]


@register
@task()
def tell_watchers(first, last, base_url, deleted_watchers):
    """Tell the watchers of the pages one write changed, by notifications e-mailed in turn.

    Args:
        first: the id of the latest revision before the write.
        last: the id of the write's latest revision.
        base_url: the site's address, for the links.
        deleted_watchers: ``{str(node id): [user ids]}`` watching the nodes it deleted.
    """
    from .edit import notify

    notify.tell_of_revisions(first, last, base_url, deleted_watchers)


@register
@task()
def send_notifications(key):
    """E-mail the notifications of ``key`` not e-mailed yet (``chapters.edit.notify.send``);
    a mail server that fails fails the task, which runs again later."""
    from .edit import notify

    notify.send(key)


@register
@task()
def render_pages(pks):
    """Render again the bodies of the nodes ``pks`` (those still there): what they link to
    moved, was renamed or was deleted. A node saved meanwhile is left as its save made it.
    """
    from .models import Node

    for node in Node.objects.filter(pk__in=pks):
        node.refresh_body()


@register
@task()
def mend_links(titles, paths):
    """Render again the nodes whose broken links a node titled or placed anew may mend.

    Args:
        titles: the titles a write gave or took away (of a node and its descendants).
        paths: the stored paths a write gave nodes.
    """
    from .models import mend_broken_links

    mend_broken_links(titles, paths)


@register
@task()
def process_media(pk, version):
    """Process version ``version`` of the media item ``pk`` (``chapters.media.processing``):
    an image cleaned of its metadata and given its copies, then the pages naming the item
    rendered again; a file that is no image only renders them."""
    from .media import processing

    processing.process(pk, version)


@register
@task(queue_name="books")
def build_book(root, format, version):
    """Build a book (``chapters.books.builds.build``): the section's or chapter's ``root``
    (a primary key; None for the whole curriculum) as ``format`` (``"pdf"``, ``"epub"``) at
    the pages' ``version``, as its ``BookBuild`` row asks; a book built already is left as
    it is.

    Returns:
        The build's status afterwards (``"built"``, ``"failed"``), or None if its row is
        gone.
    """
    from .books.builds import BookKey, build

    return build(BookKey(root, format, version))


@register
@task()
def announce_revisions(first, last, base_url):
    """Record the webhook deliveries of the page events of one write's revisions, and
    enqueue the tasks sending them: ``chapters.webhooks.events.announce_revisions``, whose
    arguments (the ids of the revisions before and after the write, the site's address) and
    return value (the number of deliveries recorded) these are."""
    from .webhooks import events

    return events.announce_revisions(first, last, base_url)


@register
@task()
def deliver_webhook(pk):
    """Send the webhook delivery ``pk`` (a UUID as text) unless it was delivered
    (``chapters.webhooks.delivery.deliver``); a receiver that cannot be reached, or does
    not answer 2xx, fails the task, which the worker runs again later.

    Returns:
        ``"delivered"``, ``"refused"`` or ``"skipped"``.
    """
    from .webhooks import delivery

    return delivery.deliver(pk)
