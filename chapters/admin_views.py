"""The node admin's own pages beyond Django's change list and forms: a node's revisions, the
confirmation of a delete with every node's path, the deleted pages and their restore.

``NodeAdmin`` (``chapters/admin.py``) calls them with itself as ``model_admin`` (its
``history_view`` and ``get_deleted_objects``) or routes to them in ``get_urls``, as it does
for Markdown folders (``chapters.files.admin_views``).
"""

from django.contrib import messages
from django.contrib.admin.utils import NestedObjects
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import router
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import capfirst

from . import recovery
from .history import all_revisions, with_size_changes
from .models import Node

__all__ = ["deleted_objects", "deleted_view", "history_view", "restore_view"]

DELETIONS_PER_PAGE = 50


def history_view(model_admin, request, object_id, extra_context=None):
    """List the node's revisions, newest first, each with a revert button for those who
    may revert (``permissions.can_revert``): ``NodeAdmin.history_view``.

    Raises:
        Http404: there is no such node.
        PermissionDenied: the user may not view it.
    """
    node = Node.objects.filter(pk=object_id).first() if str(object_id).isdecimal() else None
    if node is None:
        raise Http404("No such node.")
    if not model_admin.has_view_or_change_permission(request, node):
        raise PermissionDenied
    revisions = list(all_revisions().filter(id=node.pk))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": node,
        "title": f"Revisions of “{node.title}”",
        "rows": with_size_changes(revisions, None),
        **(extra_context or {}),
    }
    return TemplateResponse(request, "admin/chapters/node/revisions.html", context)


def deleted_objects(model_admin, objs, request):
    """Return what deleting ``objs`` deletes, as Django's admin does, each node with its path
    (``NodeAdmin.get_deleted_objects``).

    The delete view and the "delete selected" action show this list for confirmation.
    Django's own (``django.contrib.admin.utils.get_deleted_objects``, which this follows)
    names each node by its title only, and titles repeat ("Fundamentals"); here a node is
    "<kind>: <title> at /<path>/", linked to its change form, in tree order.

    Returns:
        ``(nested list of HTML, counts by model name, models lacking permission,
        protected objects)``, as Django's.
    """
    collector = NestedObjects(using=router.db_for_write(Node), origin=objs)
    collector.collect(objs)
    # The collector finds children in the order the database returns them, which is no
    # order on PostgreSQL: list each node's children in tree order, the rest after them.
    for found in collector.edges.values():
        found.sort(key=lambda obj: (0, obj.tree_id, obj.lft) if isinstance(obj, Node) else (1,))
    perms_needed = set()

    def describe(obj):
        if not isinstance(obj, Node):
            return f"{capfirst(obj._meta.verbose_name)}: {obj}"
        if not model_admin.has_delete_permission(request, obj):
            perms_needed.add(obj._meta.verbose_name)
        url = reverse("admin:chapters_node_change", args=[obj.pk])
        return format_html(
            '{}: <a href="{}">{}</a> at /{}/', obj.get_kind_display(), url, obj, obj.path
        )

    model_count = {
        model._meta.verbose_name_plural: len(found) for model, found in collector.model_objs.items()
    }
    protected = [describe(obj) for obj in collector.protected]
    return collector.nested(describe), model_count, perms_needed, protected


def deleted_view(model_admin, request):
    """List the deletions that can be restored, newest first (editors who may add nodes).

    Raises:
        PermissionDenied: the user may not add nodes.
    """
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    page = Paginator(recovery.deletions(), DELETIONS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": "Deleted pages",
        "page": page,
    }
    return TemplateResponse(request, "admin/chapters/node/deleted.html", context)


def restore_view(model_admin, request, revision_id):
    """Restore a deletion (POST), then go back to the list with what was done or why not
    (and how many published pages came back as drafts waiting for review:
    ``recovery.restore``).

    Raises:
        Http404: there is no deletion ``revision_id``.
        PermissionDenied: the user may not add nodes.
    """
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    revision = get_object_or_404(
        Node.history.model, history_id=revision_id, history_type="-", deletion=revision_id
    )
    try:
        node = recovery.restore(revision, request.user, request.build_absolute_uri("/"))
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        restored = node.get_descendant_count()
        model_admin.log_addition(request, node, recovery.RESTORED)
        held = len(node.waiting_for_review)
        messages.success(
            request,
            f"“{node.title}” was restored at /{node.path}/"
            + (f" with {restored} page{pluralize(restored)} under it." if restored else ".")
            + (
                f" {held} published page{pluralize(held)} {pluralize(held, 'is,are')} back "
                f"as {pluralize(held, 'a draft,drafts')}: publishing "
                f"{pluralize(held, 'it,them')} again waits for a reviewer."
                if held
                else ""
            ),
        )
    return redirect("admin:chapters_node_deleted")
