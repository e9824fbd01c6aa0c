"""Editing the curriculum: one tree of sections and chapters with drag-and-drop."""

from functools import partial

from django.contrib import admin, messages
from django.db import router
from django.http import HttpResponse
from django.urls import path
from django.utils.html import format_html
from django.views.decorators.http import require_POST
from mptt.admin import DraggableMPTTAdmin

from . import admin_views as pages
from .edit import views as edit_views
from .files import admin_views as markdown
from .forms import NodeAdminForm
from .models import Node, Synonym, tree_write
from .parents import ParentAutocompleteView, ParentChoiceField, ParentSelect
from .permissions import can_move

MAX_INDENTED_LEVEL = 8  # css/admin-tree.css indents depths 1 to 8


@admin.register(Node)
class NodeAdmin(DraggableMPTTAdmin):
    """Sections and chapters in one draggable tree, with revisions.

    Dragging a row moves the node through ``NodeManager.move_node``, which refuses moves that
    would break the tree; the change form refuses the same through ``Node.clean()``, and
    merges a save made over someone else's instead of overwriting it (see
    ``NodeAdminForm``). Every save is a revision; the "History" button lists them with a
    revert button each. The change form shows a live preview of the body, rendered by the
    site's own pipeline, with its broken links. Deleting asks for confirmation listing every
    node under the deleted ones with its path; "Deleted pages" lists deletions, each with a
    button restoring it. The list and a section's change form download the wiki or the
    section as a ZIP of Markdown files, and "Import Markdown" uploads one back. The parent
    is chosen by an autocomplete of sections (``chapters.parents``), so a change form sends
    its current parent only, not the whole tree.
    """

    class Media:
        css = {
            "all": [
                "css/pygments.css",
                "css/admin-preview.css",
                "css/admin-tree.css",
                "css/conflicts.css",
            ]
        }
        js = ["js/admin-preview.js", "js/conflicts.js"]

    form = NodeAdminForm
    list_display = ["tree_actions", "indented_title", "kind", "status", "updated"]
    list_display_links = ["indented_title"]
    list_filter = ["status", "kind"]
    search_fields = ["title", "body"]
    autocomplete_fields = ["parent"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["path", "updated"]
    fieldsets = [
        (None, {"fields": ["title", "slug", "kind", "status", "parent"]}),
        ("Content", {"fields": ["body", "requires", "summary", "base_revision", "conflicts"]}),
        ("Derived", {"fields": ["path", "updated"], "classes": ["collapse"]}),
    ]

    @admin.display(description="title")
    def indented_title(self, item):
        """Return the node's title, indented by its depth in the tree.

        django-mptt's own writes the indent into a ``style`` attribute, which the site's
        Content-Security-Policy (``style-src 'self'``) refuses; css/admin-tree.css indents a
        class per depth instead (the deepest ones alike).

        Args:
            item: a node of the change list.

        Returns:
            HTML, with the title escaped.
        """
        depth = min(item.level, MAX_INDENTED_LEVEL)
        return format_html('<div class="tree-title depth-{}">{}</div>', depth, item)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """Show the add or change form; on a POST, open the write to the tree first.

        Django's admin reads the node, validates the form (``Node.clean()``: the tree's
        rules) and saves, in one transaction. Opening :func:`~chapters.models.tree_write`
        first makes the validation see the tree the save changes: an editor whose form was
        overtaken by another's move, delete or change of kind gets the form back with the
        error, never a 500 nor a tree that breaks the rules. The posted body is rendered
        before the lock is taken, as the form will clean it (stripped).
        """
        if request.method != "POST":
            return super().changeform_view(request, object_id, form_url, extra_context)
        body = request.POST.get("body", "").strip()
        with tree_write(request=request, using=router.db_for_write(self.model), bodies=[body]):
            return super().changeform_view(request, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        """Ask to confirm a delete (GET); delete (POST), in one write to the tree."""
        if request.method != "POST":
            return super().delete_view(request, object_id, extra_context)
        with tree_write(request=request, using=router.db_for_write(self.model)):
            return super().delete_view(request, object_id, extra_context)

    def changelist_view(self, request, extra_context=None):
        """Show the tree; on a drop (``cmd=move_node``), move the node by the workflow.

        django-mptt's script posts a drop here. A drop of a published page, or of a section
        with published pages under it, moves what readers see at once, so it needs someone
        who may publish (``permissions.can_publish``), as the change form needs for the same
        move: anyone else gets the drag's refusal, "FAIL, invalid move.", with a message
        saying why. The check and the move are one transaction under the tree's lock.
        """
        if request.method != "POST" or request.POST.get("cmd") != "move_node":
            return super().changelist_view(request, extra_context)
        with tree_write(request=request, using=router.db_for_write(self.model)):
            refusal = self.move_refusal(request)
            if refusal:
                self.message_user(request, refusal, level=messages.ERROR)
                return HttpResponse("FAIL, invalid move.")
            return super().changelist_view(request, extra_context)

    def move_refusal(self, request):
        """Return why the workflow refuses the user's drop of ``cut_item``, or "".

        Returns:
            A message naming the page, when ``permissions.can_move`` refuses the user's move
            of it (it is published or has published pages under it, and the user may not
            publish); "" otherwise (django-mptt checks the rest).
        """
        cut = request.POST.get("cut_item", "")
        node = Node.objects.filter(pk=cut).first() if cut.isdecimal() else None
        if node is None or can_move(request.user, node):
            return ""
        return (
            f"“{node.title}” is published or has published pages under it: only a reviewer "
            "may move it, since the move is live for readers at once."
        )

    def delete_selected_tree(self, modeladmin, request, queryset):
        """Delete the selected nodes (the changelist's action), in one write to the tree.

        django-mptt's action deletes node by node with its updates delayed, then rebuilds the
        trees it touched: all of it in one :func:`~chapters.models.tree_write` here, so no
        other write to the tree comes between.
        """
        with tree_write(request=request, using=router.db_for_write(self.model)):
            return super().delete_selected_tree(modeladmin, request, queryset)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        """Return the parent's field (``autocomplete_fields``) as an autocomplete of sections
        labelled by their path (``chapters.parents``), leaving out the subtree of the node
        the form edits, rather than Django's own, which offers every node by its title."""
        if db_field.name in self.get_autocomplete_fields(request):
            match = request.resolver_match
            node_id = match.kwargs.get("object_id") if match else None
            kwargs["widget"] = ParentSelect(
                db_field, self.admin_site, node_id=node_id, using=kwargs.get("using")
            )
            kwargs["form_class"] = ParentChoiceField
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_form(self, request, obj=None, change=False, **kwargs):
        """Return the form class, told who edits (``NodeAdminForm`` keeps to the workflow)."""
        form = super().get_form(request, obj, change, **kwargs)
        form.user = request.user
        return form

    def save_model(self, request, obj, form, change):
        """Save the node with the form's edit summary as the revision's summary."""
        obj._change_reason = form.cleaned_data.get("summary") or None
        super().save_model(request, obj, form, change)

    def history_view(self, request, object_id, extra_context=None):
        """List the node's revisions with revert buttons (``admin_views.history_view``)."""
        return pages.history_view(self, request, object_id, extra_context)

    def get_deleted_objects(self, objs, request):
        """Return what deleting ``objs`` deletes, each node with its path
        (``admin_views.deleted_objects``)."""
        return pages.deleted_objects(self, objs, request)

    def get_urls(self):
        """Add the preview endpoint the change form's script posts to, the parent's
        autocomplete, deleted pages (``chapters.admin_views``), and Markdown folders
        (``chapters.files.admin_views``)."""
        preview = self.admin_site.admin_view(edit_views.preview)
        parents = self.admin_site.admin_view(
            ParentAutocompleteView.as_view(admin_site=self.admin_site)
        )
        deleted = self.admin_site.admin_view(partial(pages.deleted_view, self))
        restore = self.admin_site.admin_view(require_POST(partial(pages.restore_view, self)))
        export = self.admin_site.admin_view(partial(markdown.export_view, self))
        upload = self.admin_site.admin_view(partial(markdown.import_view, self))
        return [
            path("preview/", preview, name="chapters_node_preview"),
            path("parents/", parents, name="chapters_node_parents"),
            path("deleted/", deleted, name="chapters_node_deleted"),
            path("deleted/<int:revision_id>/restore/", restore, name="chapters_node_restore"),
            path("markdown/", export, name="chapters_node_markdown"),
            path("<int:object_id>/markdown/", export, name="chapters_node_markdown_section"),
            path("markdown/import/", upload, name="chapters_node_markdown_import"),
            *super().get_urls(),
        ]


@admin.register(Synonym)
class SynonymAdmin(admin.ModelAdmin):
    """Other spellings that search finds a word by; the form folds and checks both words."""

    list_display = ["word", "same_as"]
    search_fields = ["word", "same_as"]


# The admins of users' API tokens (chapters/api/admin.py), of the discussion's comments
# (chapters/discussion/admin.py), of the media library
# (chapters/media/admin.py) and of webhooks and their delivery log
# (chapters/webhooks/admin.py) register themselves; chapters/signin/admin.py takes
# allauth's pages of what the wiki does not use away.
from .api.admin import ApiTokenAdmin  # noqa: E402,F401
from .discussion.admin import CommentAdmin  # noqa: E402,F401
from .media.admin import MediaItemAdmin  # noqa: E402,F401
from .signin import admin as signin_admin  # noqa: E402,F401
from .webhooks.admin import WebhookAdmin  # noqa: E402,F401
