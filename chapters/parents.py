"""The admin's choice of a node's parent: an autocomplete of sections by their titles' path.

A select listing every node would send the whole tree with every change form. Django's
admin autocomplete (``ModelAdmin.autocomplete_fields``, select2) renders only the current
parent and asks for more as the editor types. This module gives it what the wiki needs:

- :class:`ParentSelect`, Django's ``AutocompleteSelect`` asking :class:`ParentAutocompleteView`
  rather than the admin's generic endpoint, and telling it which node the form edits;
- :class:`ParentAutocompleteView`, Django's ``AutocompleteJsonView`` (its checks of the
  request and its permission, the view permission on nodes, as for any autocomplete),
  offering only sections, never the node itself or one under it, found by the words of
  their titles, each labelled by its titles from its area down ("ML Systems / ML
  Compilers"), as several sections share a title;
- :class:`ParentChoiceField`, the form's field, labelling its one rendered choice the same.

The form still checks the chosen parent (``Node.clean()``: the tree's rules), whatever was
posted.
"""

from urllib.parse import urlencode

from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.contrib.admin.widgets import AutocompleteSelect

from .edit.forms import NodePathChoiceField
from .models import Node
from .navigation import breadcrumbs

__all__ = ["ParentAutocompleteView", "ParentChoiceField", "ParentSelect", "path_labels"]


def path_labels(nodes):
    """Return each node's titles from its area down, joined by " / ", by primary key.

    One query for the ancestors of all of ``nodes`` (``navigation.breadcrumbs``), none when
    they are all areas.

    Args:
        nodes: a list of nodes.

    Returns:
        A dict from each node's primary key to its label, e.g. "ML Systems / ML Compilers".
    """
    ancestors = breadcrumbs(nodes)
    return {
        node.pk: " / ".join([*(a.title for a in ancestors[node.pk]), node.title]) for node in nodes
    }


class ParentChoiceField(NodePathChoiceField):
    """The admin's choice of parent, labelled by titles' path from one node's ancestors.

    The autocomplete renders the chosen parent only, and a merge at most two parents: their
    labels read those nodes' ancestors, not every node's titles as the site editor's full
    list does (``NodePathChoiceField``).
    """

    def label_from_instance(self, obj):
        """Return the node's titles from its area down, joined by " / "."""
        return path_labels([obj])[obj.pk]

    def label_for_value(self, value):
        """Return the label of the node with primary key ``value`` (a conflict's choice);
        "(top level)" for none, "#<value>" for a node no longer stored."""
        if value in (None, ""):
            return "(top level)"
        key = str(value).isdecimal() and len(str(value)) <= 18  # within every database's keys
        found = Node.objects.filter(pk=value).first() if key else None
        return path_labels([found])[found.pk] if found else f"#{value}"


class ParentSelect(AutocompleteSelect):
    """Django's autocomplete select, asking :class:`ParentAutocompleteView` for sections.

    Args:
        field: the model's ``parent`` field.
        admin_site: the admin site serving the view.
        node_id: the primary key of the node the form edits, whose subtree the view leaves
            out; None on the add form.
        using: the database alias, as for ``AutocompleteSelect``.
    """

    url_name = "%s:chapters_node_parents"

    def __init__(self, field, admin_site, node_id=None, using=None):
        super().__init__(field, admin_site, using=using)
        self.node_id = node_id

    def get_url(self):
        """Return the view's URL, naming the edited node (select2's requests add the rest
        of the query: jQuery appends its data to a URL with "&" when it has a query)."""
        url = super().get_url()
        return f"{url}?{urlencode({'node': self.node_id})}" if self.node_id else url


class ParentAutocompleteView(AutocompleteJsonView):
    """Sections a node may move under, matching the typed words, in tree order, 20 a page.

    The query is Django's autocomplete's (``term``, ``page``, ``app_label``, ``model_name``,
    ``field_name``) and ``node``, the edited node's primary key. Answers
    ``{"results": [{"id", "text"}], "pagination": {"more"}}`` with each section's path of
    titles as its ``text``; 403 without the view permission on nodes, as Django's own.
    """

    def get_queryset(self):
        """Return the sections whose title holds every word of ``term`` (ignoring case),
        without the node named by ``node`` and its descendants.

        Chapters are left out, as they cannot have children (``Node.check_placement``); so
        is the node's own subtree, which it cannot move into. A ``node`` that is no stored
        node's key leaves nothing else out.
        """
        sections = self.model_admin.get_queryset(self.request).filter(kind=Node.Kind.SECTION)
        for word in self.term.split():
            sections = sections.filter(title__icontains=word)
        node_id = self.request.GET.get("node", "")
        key = node_id.isdecimal() and len(node_id) <= 18  # within every database's keys
        node = Node.objects.filter(pk=node_id).first() if key else None
        if node is not None:
            sections = sections.exclude(
                tree_id=node.tree_id, lft__gte=node.lft, rght__lte=node.rght
            )
        return sections

    def get_context_data(self, **kwargs):
        """Return the page of sections, and label them all with one query."""
        context = super().get_context_data(**kwargs)
        self.labels = path_labels(list(context["object_list"]))
        return context

    def serialize_result(self, obj, to_field_name):
        """Return a section as select2 shows it: its key and its titles' path."""
        return {"id": str(getattr(obj, to_field_name)), "text": self.labels[obj.pk]}
