"""The site's editor: editing and adding pages, their live preview, title completion and the
drafts that save themselves.

Short function views; what saving does is :mod:`chapters.edit.workflow`'s. The editor is a
plain form that works without JavaScript (its "Preview" button shows the form again with
the preview); ``static/js/editor.js`` adds the toolbar, the live preview, the shortcuts,
the completion of wiki links and the autosave.
"""

import json

from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from ..caching import version
from ..markdown import BODY_MAX_LENGTH
from ..models import (
    TITLE_MAX_LENGTH,
    EditDraft,
    Node,
    PendingChange,
    one_line,
    tree_write,
)
from ..navigation import breadcrumb, title_paths
from ..permissions import can_add, can_edit, can_preview
from . import workflow
from .forms import EditForm
from .lookup import allowed, find, posted_id
from .merge import lines
from .preview import preview_or_error

__all__ = ["changed", "draft", "edit", "new", "preview", "titles"]

# The fields of the form a draft keeps as text, each cut to at most so many characters.
DRAFT_LIMITS = {
    "title": 200,
    "status": 10,
    "body": 2 * BODY_MAX_LENGTH,
    "summary": 255,
    "conflicts": 4 * TITLE_MAX_LENGTH + 100,
    "requires": 20_000,
}
DRAFT_FIELDS = tuple(DRAFT_LIMITS)


def _opened(request, node, path):
    """Return the page a posted form was opened on: ``node``, unless the form's base revision
    is one of another page still stored that a revision records at ``path`` (that page moved,
    and ``node`` took its old path). A base revision of any other page is not followed (a
    forged form): the form, for ``node``, refuses it (``conflicts.FOREIGN_BASE``)."""
    base = posted_id(request, "base_revision")
    if base is not None:
        opened = Node.history.filter(history_id=base).values_list("id", flat=True).first()
        if opened not in (None, node.pk) and Node.history.filter(id=opened, path=path).exists():
            return Node.objects.filter(pk=opened).first() or node
    return node


def _moved(request, route, node):
    """Return a redirect of a GET to the editor at ``node``'s path, its query kept."""
    url = reverse(route, args=[node.path])
    return redirect(f"{url}?{request.GET.urlencode()}" if request.GET else url)


def edit(request, path):
    """Show the editor of the page at ``path`` (editors, ``permissions.can_edit``); save it.

    A GET at a path the page had before redirects to its path now; a POST there saves it."""
    denied = allowed(request, can_edit)
    if denied:
        return denied
    node = find(path)
    if request.method == "POST":
        return _editor(request, _opened(request, node, path), adding=False)
    if node.path != path:
        return _moved(request, "chapters:edit", node)
    return _editor(request, node, adding=False)


def new(request, path):
    """Show the editor of a new chapter in the section at ``path`` (``permissions.can_add``);
    save it. Old paths are followed as by :func:`edit`."""
    denied = allowed(request, can_add)
    if denied:
        return denied
    section = find(path, kind=Node.Kind.SECTION)
    if request.method != "POST" and section.path != path:
        return _moved(request, "chapters:new", section)
    return _editor(request, section, adding=True)


def _page(node, adding):
    """Return the page the editor edits: ``node``, or a new chapter in the section ``node``."""
    if adding:
        return Node(kind=Node.Kind.CHAPTER, status=Node.Status.DRAFT, parent=node)
    return node


def _editor(request, node, adding):
    """Show the editor (GET), or preview, resolve a conflict, or save (POST).

    A save is one write to the tree; the posted body is rendered before it takes the lock
    (``tree_write(bodies=...)``), and a form shown again (a preview, a merge, an error) is
    rendered with its preview once the write has ended, outside the lock.
    """
    if request.method != "POST":
        return _show(request, node, adding, _fresh_form(request, node, adding))
    saving = "preview" not in request.POST
    bodies = ["\n".join(lines(request.POST.get("body", "")))] if saving else []
    with tree_write(request=request, bodies=bodies):
        node = get_object_or_404(Node, pk=node.pk)
        form, page, change, merge = _save(request, node, adding)
    if form is not None:
        return _show(request, node, adding, form)
    if merge is not None:
        messages.info(request, merge.saved_notice())
    if page is None:
        messages.info(request, "Nothing was changed, so no revision was saved.")
        return redirect(node)
    if change is not None:
        messages.success(request, "Your change waits for a reviewer; readers see it once approved.")
        return redirect(change)
    messages.success(request, f"“{page.title}” was saved.")
    return redirect(page)


def _save(request, node, adding):
    """Check the posted form and save it, in the write open (see :func:`_editor`).

    A save made from an older revision than the page's latest is merged with it
    (``ConflictsMixin.clean_merge``); a merge without a conflict is saved at once, the form
    checked again with the merged values, and only a conflict shows the form again.

    Returns:
        ``(form, page, change, merge)``: the form to show again and Nones; or None, the page
        saved (None when nothing changed), the pending change made for review (or None) and
        the clean merge the save made (or None).
    """
    form = EditForm(request.POST, node=_page(node, adding), user=request.user)
    if "preview" in request.POST or form.resolving:
        return form, None, None, None
    merge = None
    if not form.is_valid() and form.merge is not None and form.merge.clean:
        merge = form.merge
        form = EditForm(form.data, node=_page(node, adding), user=request.user)
    if not form.is_valid():
        return form, None, None, None
    page = form.instance
    if not adding and not changed(form):
        EditDraft.objects.filter(user=request.user, node=node, adding=adding).delete()
        return None, None, None, merge
    try:
        change = workflow.save_edit(
            page,
            request.user,
            summary=form.cleaned_data["summary"],
            base_revision=form.cleaned_data["base_revision"],
            base_url=request.build_absolute_uri("/"),
        )
    except ValidationError as error:
        form.add_error(None, error)
        return form, None, None, None
    EditDraft.objects.filter(user=request.user, node=node, adding=adding).delete()
    return None, page, change, merge


def changed(form):
    """Return True if the form's page differs from the page as stored in a field the editor
    edits (``form.merged``): a Save that changes nothing writes no revision, which other
    editors' forms would then have to merge with. The API's edit asks the same
    (``chapters.api.writes``)."""
    page = form.instance
    fields = [form.attname(name) for name in form.merged]
    stored = Node.objects.filter(pk=page.pk).values(*fields).get()
    return any(getattr(page, name) != value for name, value in stored.items())


def _fresh_form(request, node, adding):
    """Return the editor's form as it opens: from the page, or what the user asked back.

    ``?restore=draft`` restores the user's autosaved draft; ``?change=<id>`` takes up one of
    their pending or sent-back changes; otherwise their pending change to the page, if any,
    is what they go on editing.
    """
    page, user = _page(node, adding), request.user
    source, base = None, None
    if request.GET.get("restore") == "draft":
        source = EditDraft.objects.filter(user=user, node=node, adding=adding).first()
        base = source and source.base_revision
    elif not adding:
        changes = node.pending_changes.filter(author=user)
        wanted = request.GET.get("change", "")
        if wanted.isdecimal():
            source = changes.filter(pk=wanted).first()
        else:
            source = changes.filter(state="pending").first()
        base = source and source.base_revision
    if source is None:
        return EditForm(node=page, user=user)
    initial = {
        "title": source.title,
        "status": source.status or page.status,
        "parent": source.parent_id,
        "body": source.body,
        "requires": source.requires,
        "summary": source.summary,
        "base_revision": base,
        "conflicts": getattr(source, "conflicts", ""),
    }
    return EditForm(node=page, user=user, initial=initial)


def _show(request, node, adding, form):
    """Render the editor with ``form``, its preview, and what the user should know."""
    user = request.user
    body = form["body"].value() or ""
    rendered = preview_or_error(body, "" if adding else node.pk)
    draft_offer = None
    sent_back = None if adding else PendingChange.objects.sent_back_to(user, node)
    if request.method == "GET" and request.GET.get("restore") != "draft":
        draft_offer = EditDraft.objects.filter(user=user, node=node, adding=adding).first()
    context = {
        "node": node,
        "adding": adding,
        "form": form,
        "ancestors": breadcrumb(node) + ([node] if adding else []),
        "crumb": {"title": "New chapter"} if adding else node,
        "preview": rendered,
        "draft_offer": draft_offer,
        "draft_url": _draft_url(node, adding),
        "pending": [] if adding else list(node.pending_changes.waiting().select_related("author")),
        "sent_back": sent_back,
        "editing_sent_back": sent_back is not None
        and request.GET.get("change") == str(sent_back.pk),
    }
    return render(request, "chapters/edit/editor.html", context)


def _draft_url(node, adding):
    """Return the URL the editor's drafts are saved to."""
    return reverse("chapters:draft-new" if adding else "chapters:draft", args=[node.path])


@require_POST
def draft(request, path, adding=False):
    """Keep the editor's form as the user's draft, or discard it (``discard``).

    The editor's script posts the form here every few seconds while it changes (a fetch with
    the form's CSRF token); the draft's Discard button posts ``discard`` here too. Answers
    JSON to the script, ``{"saved": <ISO time>, "message"}``, and a redirect to the editor
    to a plain form; 403 for those who may not edit. The page's old paths are followed as by
    :func:`edit`; a base revision or section that is no id (out of range) is kept as none.
    """
    rule = can_add if adding else can_edit
    if not rule(request.user):
        return JsonResponse({"error": "You may not edit pages."}, status=403)
    node = find(path, kind=Node.Kind.SECTION) if adding else _opened(request, find(path), path)
    drafts = EditDraft.objects.filter(user=request.user, node=node, adding=adding)
    editor = reverse("chapters:new" if adding else "chapters:edit", args=[node.path])
    if "discard" in request.POST:
        drafts.delete()
        if request.headers.get("Accept") == "application/json":
            return JsonResponse({"discarded": True})
        messages.info(request, "Your draft was discarded.")
        return redirect(editor)
    fields = {
        name: request.POST.get(name, "").replace("\x00", "")[: DRAFT_LIMITS[name]]
        for name in DRAFT_FIELDS
    }
    fields["summary"] = one_line(fields["summary"])
    parent = posted_id(request, "parent")
    fields["parent"] = Node.objects.filter(pk=parent).first() if parent is not None else None
    fields["base_revision"] = posted_id(request, "base_revision")
    saved, _ = EditDraft.objects.update_or_create(
        user=request.user, node=node, adding=adding, defaults={**fields, "updated": timezone.now()}
    )
    when = timezone.localtime(saved.updated)
    return JsonResponse({"saved": when.isoformat(), "message": f"Draft saved at {when:%H:%M:%S}"})


@require_POST
def preview(request):
    """Render a body as the site would, with its broken links, as JSON (editors only).

    POST ``body`` and ``node`` (the id of the page edited; empty for a new one). Answers
    ``chapters.edit.preview.preview``'s result, ``{"error"}`` with status 400 for a body that
    cannot be rendered, or with status 403 for a user who may not preview
    (``permissions.can_preview``).
    """
    node_id = request.POST.get("node", "")
    if not can_preview(request.user, adding=not node_id):
        return JsonResponse({"error": "You may not preview chapters."}, status=403)
    result = preview_or_error(request.POST.get("body", ""), node_id)
    return JsonResponse(result, status=400 if "error" in result else 200)


@require_safe
def titles(request):
    """List every page for the completion of wiki links, as JSON (editors only).

    ``[{"title", "link", "label", "path"}, ...]`` in tree order: ``link`` is what to write
    between ``[[`` and ``]]`` (the title, or as many titles of its path as tell it apart from
    pages of the same title), ``label`` its titles from its area down, ``path`` its URL. Built
    once per version of the wiki and kept in the cache under it.
    """
    if not (can_edit(request.user) or can_add(request.user)):
        return JsonResponse({"error": "You may not edit pages."}, status=403)
    key = f"edit-titles:{version(request)}"
    content = cache.get(key)
    if content is None:
        content = json.dumps(_titles(), ensure_ascii=False)
        cache.set(key, content)
    return HttpResponse(content, content_type="application/json")


def _titles():
    """Return the pages for :func:`titles`: one query."""
    paths = title_paths()
    urls = dict(Node.objects.values_list("pk", "path"))
    suffixes = {}
    for pk, titles in paths.items():
        folded = [title.casefold() for title in titles]
        for length in range(1, len(folded) + 1):
            suffixes.setdefault(tuple(folded[-length:]), set()).add(pk)
    found = []
    for pk, titles in paths.items():
        folded = [title.casefold() for title in titles]
        length = next(
            (n for n in range(1, len(titles)) if len(suffixes[tuple(folded[-n:])]) == 1),
            len(titles),
        )
        found.append(
            {
                "title": titles[-1],
                "link": "/".join(titles[-length:]),
                "label": " / ".join(titles),
                "path": f"/{urls[pk]}/",
            }
        )
    return found
