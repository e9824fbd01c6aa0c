"""What a revision holds beyond django-simple-history's own fields: the marks of a delete.

``Node.delete()`` deletes a node and its descendants; simple-history records a "-" revision
for each. :func:`mark_deletion` then makes them one deletion that ``chapters.recovery`` can
restore, with the node's pending changes and drafts kept in them (``chapters.models.kept``).
"""

from django.db import models

from .rules import one_line

__all__ = ["DeletionFields", "mark_deletion"]


class DeletionFields(models.Model):
    """Fields a revision has beyond simple-history's own, set on the revisions of a delete.

    Deleting a node deletes its descendants with it (django-mptt), and simple-history records
    a "-" revision for each, each at its own moment. ``Node.delete()`` then marks those
    revisions as one deletion, so that ``chapters.recovery`` can restore the subtree as it was
    (extra fields on the historical model through ``HistoricalRecords(bases=...)`` are
    simple-history's documented way to store more with each revision).
    """

    deletion = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        editable=False,
        db_index=True,
        help_text="On the revisions of one delete: the id of the revision recording the "
        "deletion of the node the delete was asked for (its own id on that revision).",
    )
    kept = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="On a node's revision of a delete: its pending changes and drafts, deleted "
        "with it, for a restore to bring back (chapters.models.kept).",
    )
    deleted_after = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="On the revisions of a delete: the id of the node that preceded this one "
        "among its siblings; empty for a first child.",
    )

    class Meta:
        abstract = True


def mark_deletion(records, pk, after, kept, summary):
    """Mark the "-" revisions of one delete as one deletion, and save them.

    The revision of the node the delete was asked for (``pk``) keeps its date, author and
    summary ("Deleted" unless the node or the write gave one, on one line); the others take
    its date and author and the summary "Deleted with “<title>”". Each gets ``deletion``
    (the id of that revision), ``deleted_after`` (its previous sibling) and ``kept`` (its
    pending changes and drafts).

    Args:
        records: the "-" revisions of the nodes deleted.
        pk: the id of the node the delete was asked for.
        after: each deleted node's previous sibling's id (None for a first child), by id.
        kept: what :func:`chapters.models.kept.keep` kept, by node id.
        summary: the write's summary, or None.
    """
    root = next(record for record in records if record.id == pk)
    root.history_change_reason = one_line(root.history_change_reason or summary or "Deleted")
    for record in records:
        record.deletion, record.deleted_after = root.history_id, after[record.id]
        record.kept = kept.get(record.id)
        if record is not root:
            record.history_date, record.history_user = root.history_date, root.history_user
            record.history_change_reason = f"Deleted with “{root.title}”"
    type(root).objects.bulk_update(
        records,
        ["deletion", "deleted_after", "kept", "history_date", "history_user"]
        + ["history_change_reason"],
    )
