"""Forms: the query parameters of the reader's pages, and the admin's node form."""

import re

from django import forms
from mptt.forms import MPTTAdminForm

from .edit.conflicts import MergingFormMixin
from .edit.forms import SummaryField
from .edit.prerequisites import PrerequisitesField
from .models import Node
from .permissions import PUBLISHED, can_move, can_publish, statuses_for
from .search import MAX_QUERY_LENGTH

# Control characters but tab, newline and carriage return (whitespace, which splits).
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

__all__ = ["QueryField", "SearchForm", "AreaForm", "CompareForm", "NodeAdminForm"]


class QueryField(forms.CharField):
    """A text field that cuts a value longer than ``length`` rather than refusing it.

    The cut happens before cleaning (then surrounding spaces are stripped) and also for
    display, so a form redisplayed with a 10,000-character query shows what was searched;
    control characters (NUL among them) are dropped first.
    """

    def __init__(self, *, length, **kwargs):
        super().__init__(widget=forms.SearchInput(attrs={"maxlength": length}), **kwargs)
        self.length = length

    def bound_data(self, data, initial):
        """Return the submitted value as it is shown again: kept (:meth:`kept`)."""
        return self.kept(data)

    def to_python(self, value):
        """Return the value kept (:meth:`kept`), then stripped (``CharField.to_python``)."""
        return super().to_python(self.kept(value))

    def kept(self, value):
        """Return ``value`` without control characters, cut to ``length``.

        Control characters are no text to search for, and PostgreSQL can neither store nor
        compare a NUL, which ``CharField`` would refuse: dropped, the rest is searched
        (issue 26: "control characters dropped").
        """
        return CONTROL.sub("", value)[: self.length] if isinstance(value, str) else value

    def was_cut(self, value):
        """Return whether ``value`` (as submitted) is longer than ``length`` once kept."""
        return isinstance(value, str) and len(CONTROL.sub("", value)) > self.length


class SearchForm(forms.Form):
    """What to search for, and in which area and status.

    An area or status that does not exist is an error, shown on the page with status 400. A
    query longer than :data:`~chapters.search.MAX_QUERY_LENGTH` is cut rather than refused, so
    a pasted paragraph still searches; its control characters, NUL among them, are dropped
    (:class:`QueryField`).
    """

    q = QueryField(label="Search for", required=False, length=MAX_QUERY_LENGTH)
    area = forms.ChoiceField(
        label="Area",
        required=False,
        error_messages={"invalid_choice": "There is no area “%(value)s”."},
    )
    status = forms.ChoiceField(
        label="Status",
        required=False,
        choices=[("", "Any status"), *Node.Status.choices],
        error_messages={"invalid_choice": "There is no status “%(value)s”."},
    )

    def query_was_cut(self):
        """Return whether the query submitted was cut to its length (the page says so)."""
        return self.fields["q"].was_cut(self.data.get("q"))

    def __init__(self, *args, areas, **kwargs):
        """Offer ``areas``, the ``(slug, title)`` of every area in tree order, by slug.

        The search page's template renders the area menu from the options kept with them
        (``chapters.search.areas``), not from this field's widget.
        """
        super().__init__(*args, **kwargs)
        self.fields["area"].choices = [("", "All areas"), *areas]


class AreaForm(forms.Form):
    """A page's filter by area, by its slug (recent changes, the dashboard)."""

    area = forms.ModelChoiceField(
        queryset=Node.objects.root_nodes(),
        to_field_name="slug",
        required=False,
        empty_label="All areas",
    )


class CompareForm(forms.Form):
    """The two revisions to compare, by id, as the history page's radio buttons send them.

    Without ``old``, ``new`` is compared with the revision before it (MediaWiki's
    ``diff=prev``).
    """

    old = forms.IntegerField(min_value=1, required=False)
    new = forms.IntegerField(min_value=1)

    def clean(self):
        """Refuse comparing a revision with itself."""
        cleaned = super().clean()
        if cleaned.get("old") is not None and cleaned.get("old") == cleaned.get("new"):
            raise forms.ValidationError("Choose two different revisions to compare.")
        return cleaned


class NodeAdminForm(MergingFormMixin, MPTTAdminForm):
    """The admin's node form, with an edit summary, merges and the review workflow.

    ``base_revision`` carries the id of the node's latest revision when the form was opened.
    If another revision was saved since, the form is merged with it three ways and shown
    again, unsaved, as the site's editor does (``chapters.edit.conflicts``): the next Save
    saves the merged form, and never discards the other editor's change unseen. The parent
    is chosen by its path of titles, the prerequisites by their paths
    (``chapters.edit.prerequisites``). The workflow holds here too
    (``permissions.statuses_for``): only a reviewer publishes or unpublishes, and an edit of
    a published page by someone who may not publish is refused, pointing to the site's
    editor, where it becomes a pending change; so is their move of a section with published
    pages under it (as a drag of it is: ``NodeAdmin.changelist_view``). ``user`` is set by
    ``NodeAdmin.get_form``; the parent's field is the admin's (``NodeAdmin``: an
    autocomplete, ``chapters.parents``).
    """

    user = None

    summary = SummaryField()
    requires = PrerequisitesField()

    class Meta:
        model = Node
        fields = ["title", "slug", "kind", "status", "parent", "body", "requires"]

    def clean(self):
        """Merge with a newer revision if there is one; then keep to the workflow.

        Raises:
            ValidationError: the form was merged with a newer revision (``self.merge``
                holds what to show), or the workflow refuses the change.
        """
        cleaned = super().clean()
        if self.errors:
            return cleaned
        if self.clean_merge():
            raise forms.ValidationError(self.merge.message)
        if self.user is None:
            return cleaned
        stored = self.instance.status if self.instance.pk else None
        if cleaned.get("status") not in statuses_for(self.user, stored):
            self.add_error("status", "Only a reviewer may publish a page or unpublish it.")
        elif stored == PUBLISHED and not can_publish(self.user) and self.changes_content():
            raise forms.ValidationError(
                "This page is published, and your changes to it need a reviewer's approval: "
                "propose them in the site's editor, where they wait for review."
            )
        elif self.moves_published_pages():
            raise forms.ValidationError(
                "Published pages are under this section, and moving them needs a reviewer: "
                "only a reviewer may change its section or slug."
            )
        return cleaned

    def moves_published_pages(self):
        """Return True when the form moves published pages to other addresses, which the
        user may not do (a new section or slug for a node with published pages under it:
        ``permissions.can_move``, the rule of every move)."""
        if not self.instance.pk or not {"parent", "slug"} & set(self.changed_data):
            return False
        return not can_move(self.user, self.instance)

    def changes_content(self):
        """Return True when the form changes a field of the page, not only the summary."""
        return any(name in self.changed_data for name in self.Meta.fields)
