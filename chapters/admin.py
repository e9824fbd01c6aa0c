"""Editing the curriculum: one tree of sections and chapters with drag-and-drop."""

from django.contrib import admin
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from mptt.admin import DraggableMPTTAdmin

from .forms import NodeAdminForm
from .history import all_revisions, with_size_changes
from .models import Node


@admin.register(Node)
class NodeAdmin(DraggableMPTTAdmin):
    """Sections and chapters in one draggable tree, with revisions.

    Dragging a row moves the node through ``NodeManager.move_node``, which refuses moves that
    would break the tree; the change form refuses the same through ``Node.clean()``, and
    refuses a save that would overwrite someone else's (see ``NodeAdminForm``). Every save is
    a revision; the "History" button lists them with a revert button each.
    """

    form = NodeAdminForm
    list_display = ["tree_actions", "indented_title", "kind", "status", "updated"]
    list_display_links = ["indented_title"]
    list_filter = ["status", "kind"]
    search_fields = ["title", "body"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["path", "updated"]
    fieldsets = [
        (None, {"fields": ["title", "slug", "kind", "status", "parent"]}),
        ("Content", {"fields": ["body", "summary", "base_revision"]}),
        ("Derived", {"fields": ["path", "updated"], "classes": ["collapse"]}),
    ]

    def save_model(self, request, obj, form, change):
        """Save the node with the form's edit summary as the revision's summary."""
        obj._change_reason = form.cleaned_data.get("summary") or None
        super().save_model(request, obj, form, change)

    def history_view(self, request, object_id, extra_context=None):
        """List the node's revisions, newest first, each with a revert button."""
        node = get_object_or_404(Node, pk=object_id)
        revisions = list(all_revisions().filter(id=node.pk))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": node,
            "title": f"Revisions of “{node.title}”",
            "rows": with_size_changes(revisions, None),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/chapters/node/revisions.html", context)
