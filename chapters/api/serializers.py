"""What the API answers with: the tree's nodes, pages, revisions, diffs, search results.

Each serializer reads an object as the site shows it; :class:`PageSerializer` adds the
page's pending changes (ids and authors only) for editors alone, as the page's tools do
(``chapters.edit.workflow.page_tools``): nobody else learns that a change waits.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..models import Node
from ..permissions import can_edit

__all__ = [
    "CrumbSerializer",
    "DiffSerializer",
    "PageSerializer",
    "PendingSerializer",
    "RevisionDetailSerializer",
    "RevisionSerializer",
    "SearchResultSerializer",
    "TreeNodeSerializer",
]

# django-simple-history's history_type, as words.
REVISION_TYPES = {"+": "created", "~": "changed", "-": "deleted"}


class CrumbSerializer(serializers.Serializer):
    """A node as a link: a step of a breadcrumb."""

    id = serializers.IntegerField(source="pk")
    title = serializers.CharField()
    path = serializers.CharField()


class TreeNodeSerializer(CrumbSerializer):
    """A node of the tree, in tree order: its place, kind and status."""

    slug = serializers.CharField()
    kind = serializers.ChoiceField(choices=Node.Kind.choices)
    status = serializers.ChoiceField(choices=Node.Status.choices)
    parent = serializers.IntegerField(source="parent_id", allow_null=True)
    level = serializers.IntegerField()


class PendingSerializer(serializers.Serializer):
    """A change to a page waiting for review: who proposed it and when."""

    id = serializers.IntegerField(source="pk")
    author = serializers.CharField(source="author.get_username")
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    summary = serializers.CharField()


class PageSerializer(TreeNodeSerializer):
    """A page as its reader sees it, with the id of its latest revision (``revision``), the
    base of an edit. Context: ``request``, ``breadcrumb`` (nodes), ``revision`` (an id)."""

    breadcrumb = serializers.SerializerMethodField()
    updated = serializers.DateTimeField()
    revision = serializers.SerializerMethodField()
    body = serializers.CharField()
    body_html = serializers.CharField()
    requires = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The ids of the chapters it builds on, in reading order.",
    )
    pending_changes = PendingSerializer(many=True, required=False, help_text="Editors only.")

    @extend_schema_field(CrumbSerializer(many=True))
    def get_breadcrumb(self, node):
        return CrumbSerializer(self.context["breadcrumb"], many=True).data

    def get_revision(self, node) -> int | None:
        return self.context["revision"]

    def to_representation(self, node):
        data = super().to_representation(node)
        user = self.context["request"].user
        if can_edit(user):
            pending = node.pending_changes.waiting().select_related("author")
            data["pending_changes"] = PendingSerializer(pending, many=True).data
        else:
            del data["pending_changes"]
        return data


class RevisionSerializer(serializers.Serializer):
    """A revision of a page, as its history lists it."""

    id = serializers.IntegerField(source="history_id")
    page = serializers.IntegerField(source="id")
    date = serializers.DateTimeField(source="history_date")
    type = serializers.SerializerMethodField()
    author = serializers.SerializerMethodField()
    summary = serializers.CharField(source="history_change_reason", allow_null=True)
    title = serializers.CharField()
    status = serializers.CharField()
    size = serializers.SerializerMethodField()

    def get_type(self, revision) -> str:
        return REVISION_TYPES[revision.history_type]

    def get_author(self, revision) -> str | None:
        user = revision.history_user
        return user.get_username() if user else None

    def get_size(self, revision) -> int:
        return len(revision.body)


class RevisionDetailSerializer(RevisionSerializer):
    """A revision with its body, rendered as the page would be (context: ``body_html``)."""

    parent = serializers.IntegerField(source="parent_id", allow_null=True)
    body = serializers.CharField()
    body_html = serializers.SerializerMethodField()

    def get_body_html(self, revision) -> str:
        return self.context["body_html"]


class FieldChangeSerializer(serializers.Serializer):
    """A field that differs between two revisions, as the site's comparison shows it."""

    field = serializers.CharField(source="label")
    old = serializers.CharField()
    new = serializers.CharField()


class DiffSerializer(serializers.Serializer):
    """Two revisions compared: the fields that differ and the body's unified diff."""

    old = RevisionSerializer()
    new = RevisionSerializer()
    fields = FieldChangeSerializer(many=True)
    body_diff = serializers.CharField(help_text="A unified diff of the Markdown bodies.")


class SearchResultSerializer(serializers.Serializer):
    """A search result: the node, its breadcrumb, where it opens (its URL, with the
    best-matching heading's ``#id``, and that heading, as on the search page), and its title,
    heading and snippet with the words found in ``<mark>`` (HTML, escaped as the search page
    shows it)."""

    id = serializers.IntegerField(source="node.pk")
    path = serializers.CharField(source="node.path")
    kind = serializers.CharField(source="node.kind")
    status = serializers.CharField(source="node.status")
    title = serializers.CharField(source="node.title")
    title_html = serializers.CharField()
    url = serializers.CharField(
        source="quote.url",
        help_text="The page's URL, with the heading's #id when the result opens at one.",
    )
    heading = serializers.CharField(
        source="quote.heading", help_text="The heading it opens at; empty at the top."
    )
    heading_html = serializers.CharField(source="quote.heading_html")
    snippet_html = serializers.CharField(source="quote.snippet")
    breadcrumb = CrumbSerializer(many=True)
