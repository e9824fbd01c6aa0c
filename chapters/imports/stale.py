"""The stale rule: a file dated before a change made on the site leaves that change alone.

Used by the import engine (:mod:`.engine`) for entries that carry the date of the revision
they were exported from (a folder of Markdown files' ``updated``).
"""

from django.core.exceptions import ValidationError
from django.db.models import Q

from ..models import Node

__all__ = ["IMPORTED", "REASON", "not_stale"]

REASON = "Imported"
# How the summaries of the import commands start (``chapters.management.importing``), and
# those of curriculum files (``chapters.curriculum_file``): imports, not edits on the site.
IMPORTED = f"{REASON} from "


def not_stale(node, entry, changed, as_written):
    """Return the fields of ``changed`` the file changes, leaving out those it would only
    put back as they were before someone changed the page on the site.

    A file dated by ``updated`` was exported from the node's revision of that date (its
    base). When someone has saved the page on the site since (a revision after that date
    that is not an import's), each field is compared with the base on both sides: one
    the file leaves as it was is the site's to keep (a stale export never undoes an edit
    made since); one only the file changed is imported; one both changed is a conflict,
    refused, and the message says how to settle it (docs/editing.md, "Keeping the
    curriculum in files"). Without a base (the page's first revision is later than the
    file's date) every field of ``changed`` counts as changed on both sides.

    Args:
        node: the matched node, as stored.
        entry: its entry, with its ``updated``.
        changed: the fields the entry changes.
        as_written: the format's body as it would write a stored one
            (``chapters.files.frontmatter.normalize_body``).

    Returns:
        The fields of ``changed`` to write.

    Raises:
        ValidationError: the file and the site both changed a field since its date.
    """
    since = Node.history.filter(id=node.pk, history_date__gt=entry.updated)
    imports = Q(history_change_reason=REASON) | Q(history_change_reason__startswith=IMPORTED)
    edit = since.exclude(imports).select_related("history_user").first()
    if edit is None:
        return changed
    base = Node.history.filter(id=node.pk, history_date__lte=entry.updated).first()
    if base is None:
        _refuse(node, entry, edit, changed)

    def value(source, name):
        found = getattr(source, name)
        return as_written(found) if name == "body" else found

    files = [name for name in changed if value(base, name) != getattr(entry, name)]
    both = [name for name in files if value(base, name) != value(node, name)]
    if both:
        _refuse(node, entry, edit, both)
    return files


def _refuse(node, entry, edit, fields):
    """Refuse a file that changes ``fields``, which the site's ``edit`` changed since."""
    who = f" by {edit.history_user}" if edit.history_user else ""
    raise ValidationError(
        f"“{node.title}” was changed on the site{who} at "
        f"{edit.history_date:%Y-%m-%d %H:%M:%S %Z}, after this file's “updated” "
        f"({entry.updated:%Y-%m-%d %H:%M:%S %Z}), and the file changes its "
        f"{', '.join(fields)} too. Export it again and make your change there, or "
        "delete the file's “updated” line to replace the site's change."
    )
