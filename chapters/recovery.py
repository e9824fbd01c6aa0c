"""Deleted nodes: what one delete removed, and restoring it from its revisions.

``Node.delete()`` marks the "-" revisions of a node and its descendants as one deletion
(``deletion`` is the id of the node's own "-" revision, ``deleted_after`` each node's previous
sibling). A deletion is restored by creating every node again with its id, so its history goes
on, from its last revision, in its old place.
"""

from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, F, OuterRef, Subquery

from .edit.workflow import propose_restored
from .markdown import MarkdownError
from .models import Node, PathRedirect, tree_write
from .models.kept import bring_back
from .permissions import PUBLISHED, can_publish

__all__ = ["deletions", "deleted_nodes", "restore"]

RESTORED = "Restored"


def deletions():
    """Return the deletions that can still be restored, newest first.

    A deletion is listed by the "-" revision of the node the delete was asked for, with
    ``pages``, the number of nodes it removed. Once the node has a later revision (it was
    restored, or restored and deleted again) the deletion is no longer listed.

    Returns:
        A queryset of historical records with their authors.
    """
    revisions = Node.history.model.objects
    later = revisions.filter(id=OuterRef("id"), history_id__gt=OuterRef("history_id"))
    pages = (
        revisions.filter(deletion=OuterRef("history_id"))
        .values("deletion")
        .annotate(count=Count("history_id"))
        .values("count")
    )
    return (
        revisions.filter(history_type="-", deletion=F("history_id"))
        .exclude(Exists(later))
        .annotate(pages=Subquery(pages))
        .select_related("history_user")
    )


def deleted_nodes(revision):
    """Return the revisions of one deletion in the tree order the nodes had.

    Args:
        revision: the "-" revision of the node the delete was asked for.

    Returns:
        A list of historical records, ``revision`` first.

    Raises:
        ValidationError: the revisions do not form the subtree (they were edited by hand).
    """
    records = list(Node.history.filter(deletion=revision.history_id))
    following = {(record.parent_id, record.deleted_after): record for record in records}
    ordered = []

    def walk(record):
        ordered.append(record)
        child = following.get((record.id, None))
        while child is not None:
            walk(child)
            child = following.get((record.id, child.id))

    walk(revision)
    if len(ordered) != len(records):
        raise ValidationError("The revisions of this deletion do not form a tree.")
    return ordered


def restore(revision, user=None, base_url=None):
    """Restore the node of a deletion and the descendants deleted with it.

    Each node comes back with its id, its last title, slug, kind, status and body, under the
    same parent, after the sibling it followed (first if it was first; last if that sibling
    is gone); its descendants in their old order. Each restore is a "+" revision with the
    summary "Restored". Saving recomputes paths and links and renders the pages whose links
    find the nodes again; the paths the nodes had before (from their revisions) redirect to
    them again where no node or other redirect uses them. The nodes' pending changes and
    editors' drafts, kept in the deletion's revisions, come back with them
    (``chapters.models.kept``).

    The workflow holds (``chapters.edit.workflow``): restored by someone who may not
    publish (``permissions.can_publish``), a node that was published comes back as a
    draft, and a pending change proposes publishing it again
    (``workflow.propose_restored``), so that nothing deleted goes live again unreviewed.

    Args:
        revision: the "-" revision of the node the delete was asked for.
        user: the author of the restore, or None (a script, which may publish).
        base_url: the site's address, for the e-mail's links (see ``tree_write``).

    Returns:
        The restored node; its ``waiting_for_review`` lists the nodes brought back as
        drafts whose publication waits for review.

    Raises:
        ValidationError: the deletion cannot be restored: the node is back already, or was
            deleted again; its parent is deleted; a node has taken its path; its place
            breaks the tree's rules (see ``Node.validate_placement``); or a body cannot be
            rendered any more. Nothing is written.
    """
    # The write to the tree first, before anything is read: the places the nodes go back to
    # are read under its lock, and two restores of one deletion run one after the other (the
    # second finds the node back). The bodies are rendered before it (revisions never change).
    bodies = Node.history.filter(deletion=revision.history_id).values_list("body", flat=True)
    with tree_write(user=user, base_url=base_url, bodies=list(bodies)):
        return _restore(Node.history.get(history_id=revision.history_id), user, base_url)


def _restore(revision, user, base_url):
    """Restore the deletion ``revision`` in the write open (see :func:`restore`)."""
    present = Node.objects.filter(pk=revision.id).first()
    if present is not None:
        raise ValidationError(f"“{present.title}” has been restored already, at /{present.path}/.")
    if Node.history.filter(id=revision.id).first() != revision:
        raise ValidationError(
            f"“{revision.title}” was restored and deleted again since: restore the later deletion."
        )
    parent = parent_of(revision)
    path = f"{parent.path}/{revision.slug}" if parent else revision.slug
    taken = Node.objects.filter(path=path).first()
    if taken is not None:
        raise ValidationError(
            f"“{taken.title}” is at /{path}/ now: move it or change its slug, then restore "
            f"“{revision.title}”."
        )
    records = deleted_nodes(revision)
    parents = {revision.parent_id: parent}
    held = user is not None and not can_publish(user)
    waiting = []
    for record in records:
        parent = parents[record.parent_id]
        node = Node(
            pk=record.id,
            title=record.title,
            slug=record.slug,
            kind=record.kind,
            status=Node.Status.DRAFT if held and record.status == PUBLISHED else record.status,
            body=record.body,
        )
        node.validate_placement(parent)
        node.insert_at(*place(record, parent))
        node._change_reason, node._history_user = RESTORED, user
        try:
            node.save(force_insert=True)
        except MarkdownError as error:
            raise ValidationError(f"“{node.title}” cannot be rendered: {error}") from error
        parents[record.id] = node
        if node.status != record.status:
            waiting.append(node)
    restore_redirects([record.id for record in records])
    bring_back(records)
    for node in waiting:
        propose_restored(node, user, base_url)
    restored = Node.objects.get(pk=revision.id)
    restored.waiting_for_review = waiting
    return restored


def parent_of(revision):
    """Return the node a deleted node goes back under, or None for the top level.

    Raises:
        ValidationError: the parent is deleted too; the message names what to restore first.
    """
    if revision.parent_id is None:
        return None
    parent = Node.objects.filter(pk=revision.parent_id).first()
    if parent is not None:
        return parent
    gone = Node.history.filter(id=revision.parent_id).first()
    if gone is None or gone.deletion is None:
        raise ValidationError(f"The section “{revision.title}” was in no longer exists.")
    if gone.deletion == gone.history_id:
        raise ValidationError(
            f"The section it was in, “{gone.title}”, is deleted too: restore it first."
        )
    root = Node.history.get(history_id=gone.deletion)
    raise ValidationError(
        f"The section it was in, “{gone.title}”, was deleted with “{root.title}”: "
        f"restore “{root.title}” first."
    )


def place(record, parent):
    """Return ``(target, position)`` for django-mptt's ``insert_at``: the node's old place.

    After the sibling it followed when that sibling is still under ``parent``; first when it
    was the first child (or the first area); otherwise last.
    """
    siblings = Node.objects.filter(parent=parent)
    previous = siblings.filter(pk=record.deleted_after).first() if record.deleted_after else None
    if previous is not None:
        return previous, "right"
    first = siblings.first()
    if record.deleted_after is None and first is not None:
        return first, "left"
    return parent, "last-child"


def restore_redirects(pks):
    """Make the paths restored nodes had before redirect to them again.

    A path is taken back only when no node and no other redirect uses it now: a node or a
    redirect that came to the path while the node was deleted is newer, and wins.

    Args:
        pks: the ids of the restored nodes.
    """
    current = set(Node.objects.filter(pk__in=pks).values_list("path", flat=True))
    old = {}
    for pk, path in Node.history.filter(id__in=pks).values_list("id", "path"):
        if path not in current:
            old.setdefault(path, pk)
    used = set(Node.objects.filter(path__in=old).values_list("path", flat=True))
    used |= set(PathRedirect.objects.filter(old_path__in=old).values_list("old_path", flat=True))
    PathRedirect.objects.bulk_create(
        PathRedirect(old_path=path, node_id=pk) for path, pk in old.items() if path not in used
    )
