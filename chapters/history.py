"""Revisions of nodes, as django-simple-history records them: lists, comparisons, reverts.

Every save of a node is a revision (a row of ``Node.history.model``, "HistoricalNode"),
with its author (``history_user``), date (``history_date``) and edit summary
(``history_change_reason``). Revision ids (``history_id``) are unique across the wiki.
"""

from django.core.exceptions import ValidationError

from .diff import choice_label, diff_text, field_changes
from .models import REVISION_FIELDS, Node, tree_write

__all__ = [
    "NOTHING_TO_REVERT",
    "all_revisions",
    "compare",
    "restore_fields",
    "revert",
    "with_size_changes",
]

# What revert() says when the page is already as the revision left it.
NOTHING_TO_REVERT = "Nothing to revert: the page is already as that revision left it."


def all_revisions(area=None):
    """Return the revisions of every node, newest first, optionally of one area's subtree.

    Args:
        area: a node; only revisions of it and its current descendants are returned.

    Returns:
        A queryset of historical records with their authors.
    """
    revisions = Node.history.select_related("history_user")
    if area is not None:
        revisions = revisions.filter(id__in=area.get_descendants(include_self=True).values("pk"))
    return revisions


def with_size_changes(revisions, older):
    """Pair each revision with the change in body length from the revision before it.

    Args:
        revisions: revisions of one node, newest first.
        older: the revision just before the oldest of ``revisions``, or None.

    Returns:
        A list of ``(revision, change)``; ``change`` is a signed number of characters.
    """
    sizes = [len(r.body) for r in revisions] + [len(older.body) if older else 0]
    return [(r, sizes[i] - sizes[i + 1]) for i, r in enumerate(revisions)]


def compare(old, new):
    """Return what differs between two revisions: fields to show, and the body's line diff.

    Args:
        old, new: two revisions, usually of the same node.

    Returns:
        A dict with ``fields`` (a list of :class:`chapters.diff.FieldChange` for title,
        slug, kind, status, parent and prerequisites, by title) and ``body`` (hunks as
        ``diff_text`` returns them).
    """
    parents = dict(
        Node.objects.filter(pk__in=[old.parent_id, new.parent_id]).values_list("pk", "title")
    )

    def parent(revision):
        if revision.parent_id is None:
            return "(top level)"
        return parents.get(revision.parent_id, f"(deleted section #{revision.parent_id})")

    def requires(revision):
        named = [titles.get(pk, f"(deleted page #{pk})") for pk in revision.requires]
        return ", ".join(named) or "(none)"

    titles = {}
    if old.requires != new.requires:
        wanted = {*old.requires, *new.requires}
        titles = dict(Node.objects.filter(pk__in=wanted).values_list("pk", "title"))
    fields = [
        ("Title", lambda r: r.title),
        ("Slug", lambda r: r.slug),
        ("Kind", lambda r: choice_label(Node.Kind, r.kind)),
        ("Status", lambda r: choice_label(Node.Status, r.status)),
        ("Parent", parent),
        ("Prerequisites", requires),
    ]
    return {"fields": field_changes(old, new, fields), "body": diff_text(old.body, new.body)}


def restore_fields(node, revision, *, keep_status=False):
    """Set on ``node``, in memory, the fields a revert to ``revision`` gives it now.

    Title, status and body are always restored, and the prerequisites that are still pages.
    Slug, kind and parent are restored only where the tree allows it now (the parent still
    exists and may hold the node, no sibling has taken the slug, a node with children stays a
    section). Nothing is saved: :func:`revert`
    saves, and the revert's confirmation page compares the result with the page as it is.

    Args:
        node: the node, freshly loaded.
        revision: one of ``node``'s revisions.
        keep_status: keep the node's status (for someone who may not publish: see
            ``chapters.edit.workflow``).

    Returns:
        A list of sentences saying what could not be restored.
    """
    notes = []
    node.title, node.body = revision.title, revision.body
    present = set(Node.objects.filter(pk__in=revision.requires).values_list("pk", flat=True))
    node.requires = [pk for pk in revision.requires if pk in present]
    if len(node.requires) < len(revision.requires):
        notes.append("A prerequisite it named has been deleted, so it is left out.")
    if not keep_status:
        node.status = revision.status
    current = (node.kind, node.parent, node.slug)
    old_parent = node.parent
    if revision.parent_id != node.parent_id:
        old_parent = (
            Node.objects.filter(pk=revision.parent_id).first() if revision.parent_id else None
        )
        if revision.parent_id and old_parent is None:
            notes.append("The section it was in no longer exists, so it stays where it is.")
            old_parent = node.parent
    if revision.kind == Node.Kind.CHAPTER and node.get_children().exists():
        notes.append("It has children now, so it stays a section.")
    else:
        node.kind = revision.kind
    candidates = [
        (old_parent, revision.slug),
        (node.parent, revision.slug),
        (old_parent, node.slug),
        (node.parent, node.slug),
    ]
    first_error = None
    for parent, slug in candidates:
        node.slug = slug
        try:
            node.validate_placement(parent)
        except ValidationError as error:
            first_error = first_error or error
            continue
        node.parent = parent
        break
    else:
        node.kind, node.parent, node.slug = current
    if first_error is not None:
        notes.extend(first_error.messages)
    return notes


def revert(node, revision, user=None, *, keep_status=False):
    """Restore ``node``'s content from ``revision`` and save that as a new revision.

    The fields restored are :func:`restore_fields`'; the node is moved only through
    django-mptt, never by writing tree fields. One write to the tree (``tree_write``):
    ``node`` is read again under its lock, so the checks see the tree the save will change. When
    that leaves every field of a revision as it is stored, nothing is saved: a revert to an
    identical state writes no revision.

    Args:
        node: the node, freshly loaded.
        revision: one of ``node``'s revisions.
        user: the author of the revert, or None.
        keep_status: keep the node's status (for someone who may not publish: see
            ``chapters.edit.workflow``).

    Returns:
        A list of sentences saying what could not be restored, ending with
        :data:`NOTHING_TO_REVERT` when nothing was saved.

    Raises:
        ValueError: ``revision`` belongs to another node.
    """
    if revision.id != node.pk:
        raise ValueError(f"Revision {revision.history_id} is not a revision of “{node.title}”.")
    with tree_write(user=user, bodies=[revision.body]):
        node.refresh_from_db()
        stored = {name: getattr(node, name) for name in REVISION_FIELDS}
        notes = restore_fields(node, revision, keep_status=keep_status)
        if all(getattr(node, name) == value for name, value in stored.items()):
            return [*notes, NOTHING_TO_REVERT]
        node._change_reason = f"Reverted to revision {revision.history_id}"
        node._history_user = user
        node.save()
    return notes
