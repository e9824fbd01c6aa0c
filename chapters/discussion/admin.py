"""The discussion's comments in the admin: find them, read them, hide or show them again."""

from django.contrib import admin
from django.utils import timezone

from ..models import Comment

__all__ = ["CommentAdmin"]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    """Comments, newest first; their text is the reader's, so it is read here, not edited."""

    list_display = ["__str__", "created", "edited", "deleted", "hidden_at"]
    list_filter = ["hidden_at", "deleted"]
    search_fields = ["body", "author__username", "node__path"]
    date_hierarchy = "created"
    fieldsets = [
        (None, {"fields": ["node", "author", "parent", "body", "created", "edited"]}),
        ("Moderation", {"fields": ["deleted", "hidden_by", "hidden_at"]}),
    ]
    readonly_fields = ["node", "author", "parent", "body", "created", "edited", "deleted"]
    raw_id_fields = ["hidden_by"]
    actions = ["hide", "show"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Hide the selected comments from readers")
    def hide(self, request, queryset):
        """Hide the comments, as a moderator does on the thread."""
        queryset.update(hidden_by=request.user, hidden_at=timezone.now())

    @admin.action(description="Show the selected comments again")
    def show(self, request, queryset):
        """Show the comments again."""
        queryset.update(hidden_by=None, hidden_at=None)
