"""Forms: the query parameters of the reader's pages, and the admin's node form."""

from django import forms
from mptt.forms import MPTTAdminForm

from .history import compare
from .models import Node
from .search import MAX_QUERY_LENGTH

__all__ = ["QueryField", "SearchForm", "AreaForm", "CompareForm", "NodeAdminForm"]


class QueryField(forms.CharField):
    """A text field that cuts a value longer than ``length`` rather than refusing it.

    The cut happens before cleaning (then surrounding spaces are stripped) and also for
    display, so a form redisplayed with a 10,000-character query shows what was searched.
    """

    def __init__(self, *, length, **kwargs):
        super().__init__(widget=forms.SearchInput(attrs={"maxlength": length}), **kwargs)
        self.length = length

    def bound_data(self, data, initial):
        """Return the submitted value as it is shown again: cut to ``length``."""
        return data[: self.length] if isinstance(data, str) else data

    def to_python(self, value):
        """Return the value cut to ``length``, then stripped (``CharField.to_python``)."""
        return super().to_python(value[: self.length] if isinstance(value, str) else value)


class SearchForm(forms.Form):
    """What to search for, and in which area and status.

    An area or status that does not exist is an error, shown on the page with status 400. A
    query longer than :data:`~chapters.search.MAX_QUERY_LENGTH` is cut rather than refused, so
    a pasted paragraph still searches; a query with a NUL character is refused by Django's
    ``CharField``, as PostgreSQL cannot store or compare one.
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

    def __init__(self, *args, **kwargs):
        """Offer the areas (root nodes) by slug, in tree order: one query."""
        super().__init__(*args, **kwargs)
        areas = Node.objects.root_nodes().values_list("slug", "title")
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


class NodeAdminForm(MPTTAdminForm):
    """The admin's node form, with an edit summary and edit-conflict detection.

    ``base_revision`` carries the id of the node's latest revision when the form was opened.
    If another revision was saved since, the save is refused (MediaWiki's "edit conflict"),
    the other editor's change is shown as a diff (``conflict``), and the text typed stays in
    the form; the form then takes the newer revision as its base, so saving again, after
    merging by hand, goes through.
    """

    summary = forms.CharField(
        max_length=255,
        required=False,
        label="Edit summary",
        help_text="Briefly describe your change; it is shown in the page's history.",
    )
    base_revision = forms.IntegerField(required=False, widget=forms.HiddenInput)

    class Meta:
        model = Node
        fields = ["title", "slug", "kind", "status", "parent", "body"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.conflict = None
        if self.instance.pk:
            self.fields["base_revision"].initial = self.latest_revision_id()

    def latest_revision_id(self):
        """Return the id of the node's latest revision, or None."""
        return Node.history.filter(id=self.instance.pk).values_list("history_id", flat=True).first()

    def clean(self):
        """Refuse the save if someone else saved the node since this form was opened.

        Raises:
            ValidationError: an edit conflict; ``self.conflict`` then holds the other
                editor's revision and the diff from this form's base revision to it.
        """
        cleaned = super().clean()
        base = cleaned.get("base_revision")
        latest = self.latest_revision_id() if self.instance.pk else None
        if base is None or latest is None or base == latest:
            return cleaned
        theirs = Node.history.get(history_id=latest)
        mine = Node.history.filter(id=self.instance.pk, history_id=base).first() or theirs
        self.conflict = {"revision": theirs, **compare(mine, theirs)}
        self.data = self.data.copy()
        self.data["base_revision"] = latest
        author = theirs.history_user or "a script"
        raise forms.ValidationError(
            f"Edit conflict: {author} saved this page at "
            f"{theirs.history_date:%Y-%m-%d %H:%M} UTC while you were editing it. Your text "
            "is still in the form below and has not been saved. Their change is shown above: "
            "merge it into your text, then save again."
        )
