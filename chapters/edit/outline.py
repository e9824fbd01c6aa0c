"""The outline on the site: editors see the tree one branch at a time and arrange it.

``/outline/`` shows the areas, ``/outline/<path>/`` a section and the pages in it; each
section's branch opens in place (its rows fetched from ``?part=children``, so a tree of
20,000 pages sends only what is opened). A POST to either address changes the tree
(``chapters.edit.arrange``): a move (``action`` up, down, in, out, or ``drop`` with
``target`` and ``position``), a new slug (``slug``), a new page (``add``). The page's script
(``static/js/outline.js``) drags and drops, moves by keyboard and asks for JSON
(``Accept: application/json``); without it every button is a plain form.
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from ..models import Node, tree_write
from ..navigation import breadcrumb
from ..permissions import can_add, can_edit
from . import arrange
from .lookup import allowed, find, posted_id

__all__ = ["outline"]

# What a row of the outline reads of a node.
ROW_FIELDS = ("id", "title", "slug", "path", "kind", "status", "lft", "rght", "tree_id", "level",
              "parent_id")  # fmt: skip


def outline(request, path=None):
    """Show the outline of the wiki (no ``path``) or of the section at ``path``, or only its
    rows (``?part=children``); change the tree (POST). Editors only; anonymous users are sent
    to sign in first.

    Raises:
        PermissionDenied: a signed-in user who may not edit.
        Http404: no section is, or was, at ``path``.
    """
    denied = allowed(request, can_edit)
    if denied:
        return denied
    section = None if path is None else find(path, kind=Node.Kind.SECTION)
    if request.method == "POST":
        return _change(request, section)
    rows = _rows(section)
    if request.GET.get("part") == "children":
        return render(request, "chapters/edit/_outline_rows.html", {"rows": rows})
    context = {
        "section": section,
        "ancestors": breadcrumb(section) if section else [],
        "rows": rows,
        "may_add": can_add(request.user),
    }
    return render(request, "chapters/edit/outline.html", context)


def _rows(section):
    """Return the pages directly in ``section`` (the areas for None), in order (one query)."""
    found = Node.objects.root_nodes() if section is None else section.get_children()
    return list(found.only(*ROW_FIELDS))


def _change(request, section):
    """Make the change posted, in one write to the tree; answer JSON to the script, else go
    back to the outline with a message."""
    action = request.POST.get("action", "")
    change, done, place = None, "", {}
    with tree_write(request=request):
        try:
            with transaction.atomic():
                change, done, place = _apply(request, section, action)
        except arrange.Refused as refusal:
            return _answer(request, section, ok=False, message=str(refusal))
    if change is not None:
        done = "Your change waits for a reviewer: readers see it once it is approved."
    review = change.get_absolute_url() if change is not None else None
    return _answer(request, section, ok=True, message=done, review=review, **place)


def _apply(request, section, action):
    """Make the change ``action`` names (see the module); return ``(pending change or None,
    what was done, where a moved row goes: {"target": id, "position": ...})``.

    Raises:
        arrange.Refused: the change cannot be made.
        PermissionDenied: an ``add`` by someone who may not add pages.
    """
    user, base_url = request.user, request.build_absolute_uri("/")
    if action == "add":
        if not can_add(user):
            raise PermissionDenied("You may not add pages.")
        kind = request.POST.get("kind", "")
        if kind not in Node.Kind.values:
            raise arrange.Refused("Choose whether the new page is a section or a chapter.")
        added = arrange.add(section, request.POST.get("title", ""), kind, user)
        return None, f"“{added.title}” was added as a draft.", {}
    node = get_object_or_404(Node, pk=posted_id(request, "node"))
    if action == "slug":
        change = arrange.rename(node, request.POST.get("slug", "").strip(), user, base_url)
        return change, f"“{node.title}” is now at /{node.path}/.", {}
    if action in arrange.ACTIONS:
        target, position = arrange.placement(node, action)
    elif action == "drop":
        target = get_object_or_404(Node, pk=posted_id(request, "target"))
        position = request.POST.get("position", "")
        if position not in arrange.POSITIONS:
            raise arrange.Refused("Drop the page before, after or into another.")
    else:
        raise arrange.Refused("Choose how to move the page.")
    change = arrange.move(node, target, position, user, base_url)
    where = {"left": "before", "right": "after", "last-child": "into"}[position]
    done = f"“{node.title}” moved {where} “{target.title}”."
    return change, done, {"target": target.pk, "position": position, "moved": change is None}


def _answer(request, section, *, ok, message, review=None, **place):
    """Answer the script with JSON (a refusal says ``"ok": false``: the move was understood
    and refused, as a form's errors are), or redirect back with a message."""
    if request.headers.get("Accept") == "application/json":
        return JsonResponse(
            {"ok": ok, "message": message, "review": review, "moved": False, **place}
        )
    (messages.success if ok else messages.error)(request, message)
    if section is None:
        return redirect(reverse("chapters:outline"))
    return redirect(reverse("chapters:outline-section", args=[section.path]))
