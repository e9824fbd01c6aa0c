"""The admin's Markdown folders: a ZIP of the whole wiki or of one section to download, and
a ZIP to upload and import, with a dry run that lists what would change.

``NodeAdmin.get_urls`` (``chapters/admin.py``) routes to these views through the admin
site's ``admin_view``, which lets only signed-in staff in; each view checks the node
permissions it needs.
"""

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse

from ..models import Node
from ..permissions import can_publish
from .export import export_files
from .folder import MAX_BYTES, FolderError, read_zip, zip_folder
from .importer import import_folder

__all__ = ["MarkdownImportForm", "export_view", "import_view"]


class MarkdownImportForm(forms.Form):
    """A ZIP of a Markdown folder, and how to import it."""

    archive = forms.FileField(
        label="ZIP archive",
        help_text="A folder as “Export as Markdown” downloads it (SUMMARY.md at its top).",
    )
    delete = forms.BooleanField(
        required=False,
        label="Delete pages that are not in the archive",
        help_text="For a section's archive, only pages under that section.",
    )
    dry_run = forms.BooleanField(
        required=False, initial=True, label="Dry run: list what would change, change nothing"
    )

    def clean_archive(self):
        """Refuse an archive larger than a folder may unpack to, before reading it."""
        archive = self.cleaned_data["archive"]
        if archive.size > MAX_BYTES:
            raise forms.ValidationError(f"The archive is larger than {MAX_BYTES:,} bytes.")
        return archive


def export_view(model_admin, request, object_id=None):
    """Download the whole wiki, or the section ``object_id``, as a ZIP of a Markdown folder."""
    if not model_admin.has_view_or_change_permission(request):
        raise PermissionDenied
    section = None
    if object_id is not None:
        section = get_object_or_404(Node, pk=object_id, kind=Node.Kind.SECTION)
    name = f"{section.slug if section is not None else 'curriculum'}-markdown.zip"
    response = HttpResponse(zip_folder(export_files(section)), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def import_view(model_admin, request):
    """Show the upload form; on a POST, import the archive (or try it) and list the changes.

    Editors who may add and change pages may import; deleting pages needs the delete
    permission too. Someone who may not publish (``permissions.can_publish``) may not
    import what changes published pages or publishes one: such an import is refused,
    naming the pages (``import_folder``'s ``publish``).
    """
    if not (model_admin.has_add_permission(request) and model_admin.has_change_permission(request)):
        raise PermissionDenied
    form = MarkdownImportForm(request.POST or None, request.FILES or None)
    result, problems = None, []
    if request.method == "POST" and form.is_valid():
        options = form.cleaned_data
        if options["delete"] and not model_admin.has_delete_permission(request):
            raise PermissionDenied
        try:
            files = read_zip(options["archive"].read())
            result = import_folder(
                files,
                delete=options["delete"],
                dry_run=options["dry_run"],
                publish=can_publish(request.user),
                request=request,
            )
        except FolderError as error:
            problems = error.problems
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": "Import Markdown",
        "form": form,
        "result": result,
        "problems": problems,
        "dry_run": form.is_bound and form.is_valid() and form.cleaned_data["dry_run"],
    }
    return TemplateResponse(request, "admin/chapters/node/markdown_import.html", context)
