"""What a deletion keeps besides the nodes: their pending changes and editors' drafts.

Deleting a node deletes its :class:`~.review.PendingChange` and :class:`~.drafts.EditDraft`
rows with it (their foreign keys cascade). ``Node.delete()`` first copies them, as they are
stored, into the ``kept`` field of each node's "-" revision (:func:`keep`), so that a
restore (``chapters.recovery``) puts them back with their ids (:func:`bring_back`): the
links of the e-mail that told of a change still lead to it, and a reviewer's open form
still decides it. Only their rows are kept, in the revisions, where the rest of a deleted
page is: nothing else reads them while the page is deleted.
"""

from datetime import datetime

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models
from django.utils.dateparse import parse_datetime

from .drafts import EditDraft
from .review import PendingChange

__all__ = ["bring_back", "keep"]

# The models kept, by the key of their rows in a revision's ``kept``.
KEPT = {"pending_changes": PendingChange, "drafts": EditDraft}


def keep(pks):
    """Return the pending changes and drafts of the nodes ``pks``, as JSON, by node id.

    Args:
        pks: the ids of the nodes a delete removes.

    Returns:
        ``{node id: {"pending_changes": [row, ...], "drafts": [row, ...]}}`` for the nodes
        that have any; a row is the model's stored values by column name (``author_id``),
        its dates in ISO 8601 to the microsecond.
    """
    found = {}
    for key, model in KEPT.items():
        for row in model.objects.filter(node__in=pks).order_by("pk").values():
            values = {
                name: value.isoformat() if isinstance(value, datetime) else value
                for name, value in row.items()
            }
            found.setdefault(row["node_id"], {}).setdefault(key, []).append(values)
    return found


def bring_back(records):
    """Store again the pending changes and drafts kept in ``records``, restored nodes' "-"
    revisions, once those nodes are back.

    A row comes back with its id unless a row has taken it since (then with a new one). A
    row whose author (or a draft's user) has been deleted since stays deleted; a reviewer
    deleted since, or a proposed section that is not back, is left empty, as their
    ``on_delete=SET_NULL`` would have left it.

    Args:
        records: historical records of the nodes restored, each with its ``kept`` (or None).

    Returns:
        The number of rows stored.
    """
    rows = {key: [] for key in KEPT}
    for record in records:
        for key in KEPT:
            rows[key].extend((record.kept or {}).get(key, []))
    users = {row.get(name) for key in KEPT for row in rows[key] for name in _user_columns(key)}
    users = set(get_user_model().objects.filter(pk__in=users - {None}).values_list("pk", flat=True))
    parents = {row.get("parent_id") for key in KEPT for row in rows[key]} - {None}
    # By name: Node's deletion (.deletions) keeps rows with this module, which Node imports.
    nodes = apps.get_model("chapters", "Node")
    parents = set(nodes.objects.filter(pk__in=parents).values_list("pk", flat=True))
    stored = 0
    for key, model in KEPT.items():
        owner = "author_id" if key == "pending_changes" else "user_id"
        taken = set(
            model.objects.filter(pk__in=[row["id"] for row in rows[key]]).values_list(
                "pk", flat=True
            )
        )
        objects = []
        for row in rows[key]:
            if row[owner] not in users:
                continue
            values = _decoded(model, row)
            if "reviewer_id" in values and values["reviewer_id"] not in users:
                values["reviewer_id"] = None
            if values["parent_id"] not in parents:
                values["parent_id"] = None
            if values["id"] in taken:
                values["id"] = None
            objects.append(model(**values))
        stored += len(model.objects.bulk_create(objects))
    return stored


def _user_columns(key):
    """Return the columns of the rows of ``key`` that name users."""
    return ("author_id", "reviewer_id") if key == "pending_changes" else ("user_id",)


def _decoded(model, row):
    """Return a kept row's values as the model takes them, its dates parsed again."""
    values = {}
    for name, value in row.items():
        field = model._meta.get_field(name.removesuffix("_id"))
        is_date = isinstance(field, models.DateTimeField) and value is not None
        values[name] = parse_datetime(value) if is_date else value
    return values
