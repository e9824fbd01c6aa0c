"""The media library's views: files served under ``/media/``, the library's pages for
editors, and the upload endpoint of the editor's script.

A file is always served by :func:`media_file` or :func:`media_variant`, which look its name
up, so that the headers fit its kind whatever storage holds it: an image inline, any other
file as a download (``Content-Disposition: attachment``) under a sandboxing
Content-Security-Policy; never sniffed (``X-Content-Type-Options: nosniff``). Pages name an
item's files with its version (``?v=2``), so those URLs may be kept for a year; the bare URL
for five minutes. An image still being processed (``chapters.media.processing``) is never
served: its URL answers a grey picture of its size, kept by no one, which pages show until
they are rendered again with the image; one that failed is not found. The library's own
pages are never kept (``never_cache``), by browsers or by a proxy's cache in front
(docs/operations.md).
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.core.paginator import Paginator
from django.db.models import ProtectedError, Q
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import add_never_cache_headers, get_conditional_response
from django.utils.http import http_date, urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from ..models import MediaItem, MediaVersion
from ..permissions import can_upload
from . import uploads
from .forms import ReplaceForm, SearchForm, UploadForm

__all__ = [
    "described",
    "library",
    "media_delete",
    "media_detail",
    "media_file",
    "media_replace",
    "media_upload",
    "media_variant",
    "media_version",
]

ITEMS_PER_PAGE = 48
YEAR = 365 * 24 * 3600

# What an image being processed is shown as: grey, of its size, with nothing of the upload.
PLACEHOLDER = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
    'viewBox="0 0 {width} {height}"><rect width="100%" height="100%" fill="#d8dce2"/></svg>'
)


def for_editors(view):
    """Return ``view`` open to editors only: an anonymous user is sent to sign in, and anyone
    else who may not upload is refused (:func:`_allowed`)."""

    @wraps(view)
    def allowed_view(request, *args, **kwargs):
        return _allowed(request) or view(request, *args, **kwargs)

    return allowed_view


def _allowed(request):
    """Return a redirect to sign in for an anonymous user; raise 403 for a non-editor.

    Raises:
        PermissionDenied: a signed-in user who may not upload (``can_upload``).
    """
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not can_upload(request.user):
        raise PermissionDenied("You may not change the media library.")
    return None


@require_safe
def media_file(request, name):
    """Serve the current file of the item ``name``: an image inline, a file as a download;
    an image being processed as a placeholder.

    Raises:
        Http404: no such item, or an image that could not be processed.
    """
    item = get_object_or_404(MediaItem, name=name)
    if item.is_processing:
        return _placeholder(item)
    if not item.is_ready:
        raise Http404("The image could not be processed.")
    return _serve(request, item, item.file.name, item.content_type)


@require_safe
def media_variant(request, name, width):
    """Serve the WebP copy ``width`` pixels wide of the image ``name``."""
    item = get_object_or_404(MediaItem, name=name, kind=MediaItem.Kind.IMAGE)
    if width not in item.variants or not item.is_ready:
        raise Http404("No copy of that width.")
    return _serve(request, item, item.variant_path(width), "image/webp", width)


def _placeholder(item):
    """Return the grey picture shown for ``item`` while it is processed, kept by no cache,
    so that the image takes its place as soon as it is ready."""
    svg = PLACEHOLDER.format(width=item.width, height=item.height)
    response = HttpResponse(svg, content_type="image/svg+xml")
    add_never_cache_headers(response)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@never_cache
@for_editors
def media_version(request, name, version):
    """Download an earlier version of an item's file (editors only), as an attachment."""
    old = get_object_or_404(MediaVersion, item__name=name, version=version)
    if not old.is_ready:
        raise Http404("That version was not processed.")
    try:
        handle = default_storage.open(old.file.name)
    except FileNotFoundError:
        raise Http404("The file is missing from the storage.") from None
    stem, _, extension = name.rpartition(".")
    response = FileResponse(
        handle,
        content_type=old.content_type,
        as_attachment=True,
        filename=f"{stem}-v{version}.{extension}",
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return response


def _serve(request, item, path, content_type, width=0):
    """Return ``path`` from the default storage as ``item``'s kind is served.

    Raises:
        Http404: the storage has no such file (deleted outside the wiki).
    """
    etag = f'"{item.pk}-{item.version}-{width}"'
    modified = int(item.uploaded.timestamp())
    response = get_conditional_response(request, etag=etag, last_modified=modified)
    if response is None:
        try:
            handle = default_storage.open(path)
        except FileNotFoundError:
            raise Http404("The file is missing from the storage.") from None
        response = FileResponse(
            handle,
            content_type=content_type,
            as_attachment=not item.is_image,
            filename=item.name if not width else f"{item.name.rsplit('.', 1)[0]}-{width}.webp",
        )
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(modified)
    versioned = request.GET.get("v") == str(item.version)
    response.headers["Cache-Control"] = (
        f"public, max-age={YEAR}, immutable" if versioned else "public, max-age=300"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    if not item.is_image:
        response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return response


def _wants_json(request):
    """Return True when the request comes from a script asking for JSON."""
    return request.headers.get("Accept", "").startswith("application/json")


@never_cache
def library(request):
    """List the library, newest first, searched by ``q`` (editors only).

    With ``Accept: application/json`` (the editor's picker), answer the first page as
    ``{"items": [{"name", "title", "alt", "kind", "url", "thumbnail", "markdown"}]}``.
    """
    if _wants_json(request) and not can_upload(request.user):
        return JsonResponse({"error": "You may not use the media library."}, status=403)
    denied = _allowed(request)
    if denied:
        return denied
    form = SearchForm(request.GET)
    items = MediaItem.objects.all()
    query = form.cleaned_data["q"].strip() if form.is_valid() else ""
    for word in query.split():
        items = items.filter(
            Q(name__icontains=word) | Q(title__icontains=word) | Q(alt__icontains=word)
        )
    page = Paginator(items, ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    if _wants_json(request):
        return JsonResponse({"items": [described(item) for item in page]})
    context = {
        "form": form,
        "page": page,
        "query": query,
        "page_query": f"{urlencode({'q': query})}&" if query else "",
        "upload_form": UploadForm(),
    }
    return render(request, "chapters/media/library.html", context)


def described(item):
    """Return what the editor's script shows and writes of ``item`` (the API's upload
    answers the same: ``chapters.api.media``)."""
    return {
        "name": item.name,
        "title": item.title,
        "alt": item.alt,
        "kind": item.kind,
        "state": item.state,
        "url": item.get_absolute_url(),
        "thumbnail": item.thumbnail_url if item.is_image and item.state != "failed" else "",
        "markdown": markdown_for(item),
    }


def markdown_for(item):
    """Return the Markdown placing ``item``: an image, or a link to a file."""
    if item.is_image:
        alt = item.alt.replace("\n", " ").replace("[", "(").replace("]", ")")
        return f"![{alt}](image:{item.name})"
    title = item.title.replace("\n", " ").replace("[", "(").replace("]", ")")
    return f"[{title}](file:{item.name})"


@require_POST
@never_cache
def media_upload(request):
    """Add an upload to the library (editors only; CSRF-protected like every POST).

    The upload is stored as it came and processed by a task (``chapters.media.uploads``),
    so the answer does not wait for it. The editor's script (``Accept: application/json``)
    is answered ``described(item)`` with status 201, or ``{"error": <why>}`` for an upload
    the library refuses (403 for a non-editor); the library's plain form is redirected to
    the new item's page, or shown again with the error. A refusal is an answer, not a
    failed request: it comes with status 200, as Django's forms shown again with their
    errors do, so that browsers log no error for it.
    """
    if _wants_json(request):
        if not can_upload(request.user):
            return JsonResponse({"error": "You may not upload images or files."}, status=403)
    else:
        denied = _allowed(request)
        if denied:
            return denied
    form = UploadForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            item = form.save(request.user)
        except ValidationError as error:
            form.add_error(None, error)
    if not form.is_valid():
        if _wants_json(request):
            errors = [message for messages_ in form.errors.values() for message in messages_]
            return JsonResponse({"error": " ".join(errors)})
        items = Paginator(MediaItem.objects.all(), ITEMS_PER_PAGE).get_page(1)
        context = {"form": SearchForm(), "page": items, "page_query": "", "upload_form": form}
        return render(request, "chapters/media/library.html", context)
    if _wants_json(request):
        return JsonResponse(described(item), status=201)
    messages.success(request, f"“{item.name}” was added to the library.")
    return redirect(item.get_library_url())


@never_cache
@for_editors
def media_detail(request, name):
    """Show an item (editors only): its file, details, the pages using it, its history."""
    item = get_object_or_404(MediaItem, name=name)
    return _detail(request, item, ReplaceForm())


def _detail(request, item, replace_form, used_on=None):
    """Render an item's page with ``replace_form``."""
    uses = item.uses.select_related("source").order_by("source__tree_id", "source__lft")
    context = {
        "item": item,
        "markdown": markdown_for(item),
        "used_on": used_on,
        "pages": list({use.source_id: use.source for use in uses}.values()),
        "versions": item.versions.select_related("uploader"),
        "replace_form": replace_form,
    }
    return render(request, "chapters/media/detail.html", context)


@require_POST
@never_cache
@for_editors
def media_replace(request, name):
    """Replace an item's file, keeping its name; the old file stays in its history."""
    item = get_object_or_404(MediaItem, name=name)
    form = ReplaceForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            uploads.replace(item, form.cleaned_data["file"], uploader=request.user)
        except ValidationError as error:
            form.add_error("file", error)
    if not form.is_valid():
        item.refresh_from_db()
        return _detail(request, item, form)
    messages.success(request, f"“{item.name}” was replaced; pages show the new file.")
    return redirect(item.get_library_url())


@require_POST
@never_cache
@for_editors
def media_delete(request, name):
    """Delete an item that no page uses; refuse, listing the pages, one that some use (the
    item's page shown again with the refusal)."""
    item = get_object_or_404(MediaItem, name=name)
    try:
        item.delete()
    except ProtectedError as error:
        pages = {use.source_id: use.source for use in error.protected_objects}
        # In tree order: the database returns the uses in no order.
        in_order = sorted(pages.values(), key=lambda page: (page.tree_id, page.lft))
        return _detail(request, item, ReplaceForm(), used_on=in_order)
    messages.success(request, f"“{name}” was deleted.")
    return redirect("chapters:media")
