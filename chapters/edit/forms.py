"""The site editor's forms: editing or adding a page, and deciding on a pending change."""

from django import forms
from django.core.exceptions import ValidationError
from mptt.forms import TreeNodeChoiceField

from ..markdown import BODY_MAX_LENGTH, MarkdownError
from ..models import TITLE_MAX_LENGTH, Node, one_line
from ..navigation import title_paths
from ..permissions import statuses_for
from .conflicts import MergingFormMixin
from .merge import lines
from .prerequisites import PrerequisitesField

__all__ = ["DecisionForm", "EditForm", "NodePathChoiceField", "SummaryField"]


class SummaryField(forms.CharField):
    """An edit summary: one line of at most 255 characters, its line breaks, tabs and runs of
    spaces cleaned to single spaces (``chapters.models.one_line``), as the history stores it.

    The site's editor and the admin's change form both use it.
    """

    def __init__(self, **kwargs):
        super().__init__(
            max_length=255,
            required=False,
            label="Edit summary",
            help_text="Briefly describe your change; it is shown in the page's history.",
            **kwargs,
        )

    def to_python(self, value):
        """Return the value on one line."""
        return one_line(super().to_python(value))


class NodePathChoiceField(TreeNodeChoiceField):
    """A choice of node labelled by its titles from its area down: "ML Systems / ML Compilers".

    django-mptt's own labels indent a title by its depth ("--- Fundamentals"), and several
    sections share a title; a path of titles tells them apart. The titles are read once per
    form (``chapters.navigation.title_paths``: one query).
    """

    def paths(self):
        """Return every node's titles by primary key, read once for this field."""
        if not hasattr(self, "_paths"):
            self._paths = title_paths()
        return self._paths

    def label_from_instance(self, obj):
        """Return the node's titles from its area down, joined by " / "."""
        return " / ".join(self.paths().get(obj.pk, [obj.title]))

    def label_for_value(self, value):
        """Return the label of the node with primary key ``value``; "(top level)" for none."""
        if value in (None, ""):
            return "(top level)"
        found = self.paths().get(int(value)) if str(value).isdecimal() else None
        return " / ".join(found or [f"#{value}"])


class EditForm(MergingFormMixin):
    """A page's title, status, section, edit summary, Markdown body and prerequisites
    (:class:`~.prerequisites.PrerequisitesField`), as the site edits it.

    The statuses offered are those the user may set (``permissions.statuses_for``); a
    posted form also accepts those they could set when they opened it, so that a status
    changed meanwhile merges as any other field does. The sections are every section but
    the page's own subtree. ``clean()`` checks the page as
    ``Node.clean()`` does (title, lengths, rendering, the tree's rules) on a copy with the
    form's values, after merging with a newer revision (:class:`MergingFormMixin`).

    Args:
        data: the POST data, or None for a form shown fresh.
        node: the page (for a new chapter, an unsaved ``Node`` with its section as parent).
        user: who edits.
        initial: the fields' first values, for a form shown fresh.
    """

    merged = ("title", "status", "parent", "body", "requires")

    title = forms.CharField(max_length=TITLE_MAX_LENGTH)
    status = forms.ChoiceField()
    parent = NodePathChoiceField(
        queryset=Node.objects.filter(kind=Node.Kind.SECTION),
        label="Section",
        empty_label="(top level)",
        required=False,
    )
    summary = SummaryField()
    body = forms.CharField(
        required=False,
        strip=False,
        max_length=BODY_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "true"}),
        help_text=f"Markdown, at most {BODY_MAX_LENGTH:,} characters.",
    )
    requires = PrerequisitesField()

    def __init__(self, data=None, *, node, user, initial=None):
        self.instance = node
        stored = node.status if node.pk else None
        if initial is None and data is None:
            initial = {
                "title": node.title,
                "status": node.status,
                "parent": node.parent_id,
                "body": node.body,
                "requires": node.requires,
            }
        super().__init__(data, initial=initial)
        self.user, self.stored_status = user, stored
        allowed = statuses_for(user, stored)
        opened = self.opened_status() if data is not None else None
        if opened is not None:
            # Someone may have changed the status since the form was opened (a reviewer
            # published the page): what the editor could choose then merges with it
            # (``clean_merge``), instead of failing as "not one of the available choices".
            allowed |= statuses_for(user, opened)
        self.allow_statuses(allowed)
        parent = self.fields["parent"]
        if node.pk:
            parent.queryset = parent.queryset.exclude(
                pk__in=node.get_descendants(include_self=True).values("pk")
            )
        parent.required = node.is_chapter
        if not node.is_chapter:
            del self.fields["requires"]

    def allow_statuses(self, allowed):
        """Offer the statuses in ``allowed``, in ``Node.Status``'s order."""
        self.fields["status"].choices = [c for c in Node.Status.choices if c[0] in allowed]

    def opened_status(self):
        """Return the page's status in the revision the posted form was opened at, or None
        (a new page, or no such revision of the page)."""
        base = str(self.data.get("base_revision", ""))
        if not self.instance.pk or not base.isdecimal() or len(base) > 18:
            return None
        revisions = Node.history.filter(id=self.instance.pk, history_id=int(base))
        return revisions.values_list("status", flat=True).first()

    def clean_body(self):
        """Return the body with ``\n`` line breaks, as fixtures and imports store them
        (browsers send a textarea's as ``\r\n``)."""
        return "\n".join(lines(self.cleaned_data["body"]))

    def clean(self):
        """Merge with a newer revision, then check the page with the form's values.

        A merge leaves the form unsaved, to be shown again (``self.merge``); otherwise the
        form's values are set on ``self.instance``, which ``Node.clean()`` then checks.
        """
        cleaned = super().clean()
        if self.errors or self.clean_merge():
            if self.merge:
                self.add_error(None, self.merge.message)
                if "status" not in self.field_conflicts():
                    self.allow_statuses(statuses_for(self.user, self.stored_status))
            return cleaned
        node = self.instance
        node.title, node.status = cleaned["title"], cleaned["status"]
        node.parent, node.body = cleaned.get("parent"), cleaned["body"]
        if "requires" in self.fields:
            node.requires = cleaned["requires"]
        try:
            node.clean()
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
        except MarkdownError as error:
            self.add_error("body", str(error))
        return cleaned


class DecisionForm(forms.Form):
    """A reviewer's decision on a pending change: approve it, or send it back with a comment.

    ``version`` is the change's ``PendingChange.version`` as the reviewer saw it: the
    workflow refuses the decision if the change was edited since.
    """

    version = forms.CharField(widget=forms.HiddenInput, max_length=40)
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("send_back", "Send back")])
    comment = forms.CharField(
        label="Message to the author",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why it goes back (needed to send it back), or a word with the approval.",
    )

    def clean(self):
        """Require a comment to send a change back."""
        cleaned = super().clean()
        if cleaned.get("decision") == "send_back" and not cleaned.get("comment", "").strip():
            self.add_error("comment", "Say why the change goes back to its author.")
        return cleaned


class CommentForm(forms.Form):
    """A comment on a pending change, on the whole of it or on one ``line`` of its diff.

    Args:
        lines: the keys of the diff's lines (``chapters.diff.Line.key``) a comment may name.
    """

    line = forms.CharField(required=False, widget=forms.HiddenInput, max_length=16)
    text = forms.CharField(
        label="Comment on the change",
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": "Write the comment first."},
    )

    def __init__(self, *args, lines=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.lines = set(lines)

    def clean_line(self):
        """Refuse a line the change's diff does not show (it may have been edited since)."""
        line = self.cleaned_data["line"]
        if line and line not in self.lines:
            raise forms.ValidationError(
                "That line is not in the change's diff any more: the change was edited since. "
                "Comment on the change as a whole, or on a line of it as it is now."
            )
        return line
