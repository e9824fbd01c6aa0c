"""Editing the curriculum: one tree of sections and chapters with drag-and-drop."""

from django.contrib import admin
from mptt.admin import DraggableMPTTAdmin

from .models import Node


@admin.register(Node)
class NodeAdmin(DraggableMPTTAdmin):
    """Sections and chapters in one draggable tree.

    Dragging a row moves the node through ``NodeManager.move_node``, which refuses moves that
    would break the tree; the change form refuses the same through ``Node.clean()``.
    """

    list_display = ["tree_actions", "indented_title", "kind", "status", "updated"]
    list_display_links = ["indented_title"]
    list_filter = ["status", "kind"]
    search_fields = ["title", "body"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["path", "updated"]
    fieldsets = [
        (None, {"fields": ["title", "slug", "kind", "status", "parent"]}),
        ("Content", {"fields": ["body"]}),
        ("Derived", {"fields": ["path", "updated"], "classes": ["collapse"]}),
    ]
