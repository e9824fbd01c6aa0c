"""What a revision holds beyond django-simple-history's own fields: the marks of a delete.

``Node.delete()`` deletes a node and its descendants; simple-history records a "-" revision
for each. :func:`mark_deletion` then makes them one deletion that ``chapters.recovery`` can
restore, with the node's pending changes and drafts kept in them (``chapters.models.kept``).
"""

from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone

from .kept import keep
from .rules import one_line
from .tree import tree_write
from .watches import Watch

__all__ = ["DeletionFields", "NodeDeletion", "mark_deletion"]


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


class NodeDeletion:
    """Deleting a node and its descendants as one deletion that can be restored; a mixin of
    ``Node``.

    It reads nodes and their revisions through the node's own model (``type(self).objects``,
    ``type(self).history``).
    """

    def delete(self, *args, **kwargs):
        """Delete the node and its descendants as one deletion; have the nodes that linked to
        them rendered again.

        simple-history records a "-" revision for every node deleted. They are then given one
        date and author, each node's place among its siblings (``deleted_after``), the id of
        this node's "-" revision (``deletion``) and a summary ("Deleted" unless one was given;
        "Deleted with “<title>”" for the descendants), and each node's pending changes and
        drafts (``kept``: :mod:`.kept`), so the subtree can be restored
        (``chapters.recovery``). One transaction in the open write to the tree (or one of its
        own), with the node's place read under its lock. The users watching the nodes
        deleted are named to the write, as their watches go with the nodes, so that they
        hear of it; the nodes linking to them are rendered again by a task once it commits.
        A node no longer in the database (the admin's bulk delete reaches a node after
        deleting its ancestor) is not deleted again, which would record a second deletion and
        make django-mptt close its gap in the tree again, by its numbers in memory.

        Returns:
            Django's ``(count, counts by model)``; ``(0, {})`` for a node already deleted.
        """
        with tree_write() as write, transaction.atomic():
            return self._delete_in(write, *args, **kwargs)

    def _delete_in(self, write, *args, **kwargs):
        """Delete the node in ``write``, its lock held (see :meth:`delete`)."""
        if not self.refresh_tree_fields():
            return 0, {}
        previous = self.get_previous_sibling()
        pk = self.pk  # Django sets it to None on delete
        after, last_child = {pk: previous.pk if previous else None}, {}
        for child, parent_id in self.get_descendants().values_list("pk", "parent_id"):
            after[child], last_child[parent_id] = last_child.get(parent_id), child
        linking = (
            type(self)
            .objects.filter(outgoing_links__target__in=list(after))
            .exclude(pk__in=list(after))
        )
        write.render.update(linking.values_list("pk", flat=True))
        watching = Watch.objects.filter(node__in=list(after)).values_list("user", flat=True)
        write.watchers.setdefault(pk, set()).update(watching)
        titles = set(self.get_descendants(include_self=True).values_list("title", flat=True))
        kept = keep(list(after))
        recorded = type(self).history.aggregate(latest=Max("history_id"))["latest"] or 0
        self._history_date = timezone.now()
        if getattr(self, "_history_user", None) is None and write.user is not None:
            self._history_user = write.user
        deleted = super().delete(*args, **kwargs)
        records = list(
            type(self).history.filter(history_type="-", id__in=list(after), history_id__gt=recorded)
        )
        mark_deletion(records, pk, after, kept, write.summary)
        # A link that could mean one of them and another page now means the other.
        write.mend_titles.update(titles)
        return deleted
