"""The search page's form: the query and the filters, read from the query string."""

from django import forms

from .models import Node
from .search import MAX_QUERY_LENGTH

__all__ = ["QueryField", "SearchForm"]


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
