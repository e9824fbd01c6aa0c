"""Edit conflicts in the editors' forms: merged three ways, never silently overwritten.

A form remembers the revision it was opened at (``base_revision``). When it is saved after
someone else saved the page, :class:`MergingFormMixin` merges the form with their revision
(:mod:`chapters.edit.merge`) instead of saving over it, and gives the form back, unsaved,
with the merged text, a notice and the diff of their change. Only then does the form's base
move to their revision, so the next Save saves what the editor has seen:

- a change made on one side only is in the merged form already;
- a body conflict is in the text between markers, shown side by side with buttons choosing
  yours, theirs or both (:func:`resolve_conflict`); the form refuses to save while a marker
  is left;
- a field both changed (title, status, slug, parent, ...) becomes a required choice between
  the two values, so it cannot be saved without choosing.

Used by the site's editor (``chapters.edit.forms.EditForm``) and the admin's change form
(``chapters.forms.NodeAdminForm``). The check must run under the tree's lock, in the
transaction of the save, so that no save comes between the check and the save: both views
open :func:`~chapters.models.tree_write` before validating.
"""

import json
from dataclasses import dataclass

from django import forms

from ..history import compare
from ..models import REVISION_FIELDS, Node
from .merge import conflicts_in, has_markers, merge_fields, merge_text, resolve
from .prerequisites import requires_text

__all__ = [
    "CHOOSE",
    "FOREIGN_BASE",
    "NO_BASE",
    "Merge",
    "MergingFormMixin",
    "resolve_conflict",
    "revision_fields",
]

# The error of a conflicting field left unchosen.
CHOOSE = "Choose yours or theirs."
# The error of a form for a page with revisions that does not say which one it was opened at.
NO_BASE = (
    "The form came without the revision it was opened at, so it cannot tell what changed "
    "since: copy your text, open the editor again and paste it."
)
# The error of a form whose base revision is a revision of another page (a forged form).
FOREIGN_BASE = (
    "The form says it was opened at a revision of another page, so it cannot be saved to "
    "this one: open the editor again from the page."
)


def revision_fields(revision):
    """Return the fields a revision records, by name (``parent_id`` for the parent)."""
    return {name: getattr(revision, name) for name in REVISION_FIELDS}


@dataclass
class Merge:
    """What the form shows after merging: whose revision, what they changed, what conflicts.

    ``fields`` and ``body`` are their change, from the form's base revision to theirs, as
    ``chapters.history.compare`` returns it (empty when the base revision is unknown).
    """

    message: str
    revision: object
    fields: list
    body: list
    conflicting_fields: list
    body_conflicts: int = 0

    @property
    def clean(self):
        """True when the two merged without a conflict, in the text or in a field."""
        return not self.conflicting_fields and not self.body_conflicts

    def saved_notice(self):
        """Return the sentence telling the editor their save was merged and saved at once."""
        return f"{_saved_meanwhile(self.revision)}: their change was merged with yours."


def _saved_meanwhile(theirs):
    """Return who saved the revision ``theirs`` while the editor was editing, and when."""
    author = theirs.history_user or "a script"
    return (
        f"{author} saved this page at {theirs.history_date:%Y-%m-%d %H:%M} UTC while you "
        "were editing it"
    )


def resolve_conflict(data, choice):
    """Resolve one marked body conflict in a form's POST data, for a "Use yours/theirs" button.

    Args:
        data: the form's data (a ``QueryDict``); a copy is returned.
        choice: the button's value, ``"<index>:<yours|theirs|both>"``.

    Returns:
        The data with that conflict of its ``body`` resolved; unchanged for a value that
        names no conflict.
    """
    data = data.copy()
    index, _, side = choice.partition(":")
    if index.isdecimal() and side in ("yours", "theirs", "both"):
        data["body"] = resolve(data.get("body", ""), int(index), side)
    return data


def merge_message(theirs, body_conflicts, labels):
    """Return the sentence telling the editor what happened to their save.

    Args:
        theirs: the revision saved meanwhile.
        body_conflicts: how many places in the text conflict.
        labels: the labels of the fields that conflict.
    """
    said = f"{_saved_meanwhile(theirs)}, so your changes have not been saved yet. "
    if not body_conflicts and not labels:
        return said + (
            "Their change (shown below) has been merged with yours: check the result, "
            "then save again."
        )
    parts = []
    if body_conflicts:
        parts.append(f"{body_conflicts} place{'s' if body_conflicts != 1 else ''} in the text")
    if labels:
        parts.append(f"the field{'s' if len(labels) != 1 else ''} {', '.join(labels)}")
    return said + (
        f"You both changed {' and '.join(parts)}: choose between your version and theirs "
        "below, then save again. Their other changes have been merged with yours."
    )


class MergingFormMixin(forms.Form):
    """Merge a node form saved over someone else's newer revision (see the module).

    The form's model fields named in ``merged`` are merged; ``self.instance`` is the node
    (a ``ModelForm``'s, or one the form sets). After :meth:`clean_merge` returns a
    :class:`Merge`, ``self.merge`` holds it and the form's data holds the merged values.
    """

    merged = ("title", "slug", "kind", "status", "parent", "body", "requires")

    # A revision's id is a 64-bit integer on every database (simple-history's AutoField).
    base_revision = forms.IntegerField(
        required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput
    )
    conflicts = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.merge = None
        self.resolving = "resolve" in self.data
        if self.resolving:
            self.data = resolve_conflict(self.data, self.data["resolve"])
        node = self.instance
        if node.pk and not node._state.adding:
            self.fields["base_revision"].initial = self.latest_revision_id()
        for name, (yours, theirs) in self.field_conflicts().items():
            self.offer_choice(name, yours, theirs)

    def latest_revision_id(self):
        """Return the id of the node's latest revision, or None."""
        revisions = Node.history.filter(id=self.instance.pk)
        return revisions.values_list("history_id", flat=True).first()

    def field_conflicts(self):
        """Return the field conflicts the form carries, ``{name: [yours, theirs]}``."""
        try:
            found = json.loads(self.data.get("conflicts") or "{}")
        except ValueError:
            return {}
        if not isinstance(found, dict):
            return {}
        return {
            name: pair
            for name, pair in found.items()
            if name in self.merged
            and name in self.fields
            and isinstance(pair, list)
            and len(pair) == 2
            and all(value is None or isinstance(value, str | int) for value in pair)
        }

    def offer_choice(self, name, yours, theirs):
        """Make field ``name`` a required choice between ``yours`` and ``theirs``."""
        field = self.fields[name]
        field.widget = forms.RadioSelect(
            choices=[
                ("" if yours is None else str(yours), f"Yours: {self.label(name, yours)}"),
                ("" if theirs is None else str(theirs), f"Theirs: {self.label(name, theirs)}"),
            ]
        )
        field.help_text = "You and the other editor both changed this: choose one."
        field.error_messages = {**field.error_messages, "required": CHOOSE}

    def label(self, name, value):
        """Return how field ``name`` shows ``value``: a choice's label, a node's titles."""
        field = self.fields[name]
        if hasattr(field, "label_for_value"):
            return field.label_for_value(value)
        if isinstance(field, forms.ChoiceField):
            return dict(field.choices).get(value, value)
        return value

    def body_conflicts(self):
        """Return the conflicts still marked in the form's body, for the side-by-side view."""
        return conflicts_in(self["body"].value() or "") if "body" in self.fields else []

    def clean(self):
        """Refuse conflict markers, and a form for a page with revisions that does not say
        which it was opened at (it could save over a newer one unseen); require a choice for
        each conflicting field; after a "Use mine/theirs/both" button, show the form again
        instead of saving."""
        cleaned = super().clean()
        if self.resolving:
            self.add_error(None, "One conflict is resolved: check the text, then save.")
        node = self.instance
        if (
            node.pk
            and not node._state.adding
            and "base_revision" not in self.errors
            and cleaned.get("base_revision") is None
            and self.latest_revision_id() is not None
        ):
            self.add_error(None, NO_BASE)
        elif self.foreign_base(cleaned.get("base_revision")):
            self.add_error(None, FOREIGN_BASE)
        for name in self.field_conflicts():
            if name not in self.data and name not in self.errors:
                self.add_error(name, CHOOSE)
        body = cleaned.get("body")
        if body is not None and has_markers(body):
            count = len(conflicts_in(body))
            self.add_error(
                "body",
                f"Resolve the conflict{'s' if count != 1 else ''} marked in the text first "
                "(keep yours, theirs or both, and remove the marker lines).",
            )
        return cleaned

    def foreign_base(self, base_id):
        """Return True when ``base_id`` is a revision, but not one of the form's node (or the
        form adds a node, which has none)."""
        if base_id is None:
            return False
        revision = Node.history.filter(history_id=base_id).values_list("id", flat=True).first()
        node = self.instance
        own = node.pk if node.pk and not node._state.adding else None
        return revision is not None and revision != own

    def clean_merge(self):
        """Merge the form with the node's newer revision, if someone saved it since.

        Call from ``clean()`` under the tree's lock, with the form's own fields cleaned.

        Returns:
            None when the form's base revision is the node's latest; otherwise a
            :class:`Merge`, kept as ``self.merge``, and the form's data then holds the merged
            values (its base revision is the latest), so the form shown again saves them.
        """
        node = self.instance
        if not node.pk or node._state.adding:
            return None
        base_id, latest = self.cleaned_data.get("base_revision"), self.latest_revision_id()
        if base_id is None or latest is None or base_id == latest:
            return None
        theirs = Node.history.get(history_id=latest)
        base = Node.history.filter(id=node.pk, history_id=base_id).first()
        yours = {
            self.attname(name): self.cleaned_data[name]
            for name in self.merged
            if name in self.fields and name in self.cleaned_data and name != "body"
        }
        yours = {name: getattr(value, "pk", value) for name, value in yours.items()}
        old = revision_fields(base) if base else {}
        values, conflicting = merge_fields(old, revision_fields(theirs), yours)
        data = self.data.copy()
        for name, value in values.items():
            value = self.form_value(name, value)
            data[self.field_name(name)] = "" if value is None else str(value)
        carried = {}
        for name, (mine, other) in conflicting.items():
            field = self.field_name(name)
            carried[field] = [self.form_value(name, mine), self.form_value(name, other)]
            data.pop(field, None)
        body_conflicts = 0
        if "body" in self.fields and "body" in self.cleaned_data:
            text = merge_text(base.body if base else "", theirs.body, self.cleaned_data["body"])
            data["body"], body_conflicts = text.text, len(text.conflicts)
        data["base_revision"] = str(latest)
        data["conflicts"] = json.dumps(carried) if carried else ""
        self.data = data
        for field, (mine, other) in carried.items():
            self.offer_choice(field, mine, other)
        changes = compare(base, theirs) if base else {"fields": [], "body": []}
        labels = [self.fields[name].label or name for name in carried]
        self.merge = Merge(
            message=merge_message(theirs, body_conflicts, labels),
            revision=theirs,
            fields=changes["fields"],
            body=changes["body"],
            conflicting_fields=labels,
            body_conflicts=body_conflicts,
        )
        return self.merge

    def form_value(self, name, value):
        """Return a revision's value of field ``name`` as the form's data holds it: itself,
        but the prerequisites as the paths their field shows (``PrerequisitesField``)."""
        return requires_text(value) if name == "requires" else value

    def attname(self, name):
        """Return the revision's name for form field ``name`` (``parent_id`` for the parent)."""
        return "parent_id" if name == "parent" else name

    def field_name(self, attname):
        """Return the form field's name for a revision's field name."""
        return "parent" if attname == "parent_id" else attname
