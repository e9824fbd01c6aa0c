"""The media library in Django's admin: browse, search, upload, replace, delete.

The same rules as the site's library (``chapters.media.views``): who may is
``permissions.can_upload``; an upload is checked and stored by ``chapters.media.uploads``
and processed by a task (an item's state, listed and filtered, says how far it is);
deleting an item that pages use is refused by Django's own delete view, which lists the
protected rows (its ``MediaUse`` rows, shown as the pages using it).
"""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.html import format_html

from ..models import MediaItem, MediaUse, MediaVersion
from ..permissions import can_upload
from . import uploads

__all__ = ["MediaItemAdmin", "MediaItemForm"]


class MediaItemForm(forms.ModelForm):
    """An item's title and alt text, with a file: required to add, optional to replace."""

    upload = forms.FileField(
        label="File",
        required=False,
        help_text="A new item's file; for an item, a file replacing it (the name and URL "
        "stay, and the file replaced stays in its history).",
    )

    class Meta:
        model = MediaItem
        fields = ["title", "alt"]

    def clean(self):
        """Check the file as the library does, and that an image has alt text.

        Raises:
            ValidationError: no file for a new item, a file the library refuses, or a
                replacement of the other kind.
        """
        cleaned = super().clean()
        upload = cleaned.get("upload")
        adding = self.instance.pk is None
        if upload is None:
            if adding:
                self.add_error("upload", "Choose a file to upload.")
            return cleaned
        try:
            kind = uploads.inspect(upload).kind
        except ValidationError as error:
            self.add_error("upload", error)
            return cleaned
        if adding:
            # MediaItem.clean(), run next by the form, requires alt text of an image.
            self.instance.kind = kind
        elif kind != self.instance.kind:
            self.add_error("upload", f"Replace “{self.instance.name}” with the same kind.")
        return cleaned


class MediaVersionInline(admin.TabularInline):
    """The files an item held before, read only."""

    model = MediaVersion
    fields = readonly_fields = [
        "version", "state", "size", "width", "height", "uploader", "replaced",
    ]  # fmt: skip
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class MediaUseInline(admin.TabularInline):
    """The pages using an item, read only (derived from their bodies)."""

    model = MediaUse
    verbose_name = "page using it"
    verbose_name_plural = "used on"
    fields = readonly_fields = ["source", "kind"]
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(MediaItem)
class MediaItemAdmin(admin.ModelAdmin):
    """Images and files: listed newest first, searched by name, title and alt text."""

    form = MediaItemForm
    list_display = ["name", "thumbnail", "title", "kind", "state", "size", "uploader", "uploaded"]
    list_filter = ["kind", "state"]
    search_fields = ["name", "title", "alt"]
    readonly_fields = FILE_FIELDS = [
        "name", "kind", "state", "preview", "content_type", "size", "width", "height",
    ]  # fmt: skip
    fieldsets = [
        (None, {"fields": ["upload", "title", "alt"]}),
        ("File", {"fields": FILE_FIELDS}),
    ]
    inlines = [MediaUseInline, MediaVersionInline]

    @admin.display(description="image")
    def thumbnail(self, item):
        """Return a small copy of an image, or nothing for a file or an image not ready."""
        if not item.is_image or not item.is_ready:
            return ""
        return format_html('<img src="{}" alt="" width="80">', item.thumbnail_url)

    @admin.display(description="preview")
    def preview(self, item):
        """Return a link to the current file, with a small copy of an image."""
        if item.pk is None:
            return "-"
        return format_html(
            '<a href="{}">{}</a>', item.versioned_url(), self.thumbnail(item) or item.name
        )

    def save_model(self, request, obj, form, change):
        """Store a new item through the library, or save the fields and replace the file."""
        upload = form.cleaned_data.get("upload")
        if not change:
            added = uploads.add(
                upload,
                title=form.cleaned_data["title"],
                alt=form.cleaned_data["alt"],
                uploader=request.user,
            )
            obj.pk, obj.name = added.pk, added.name
            obj.refresh_from_db()
            return
        obj.save(update_fields=["title", "alt"])
        if upload is not None:
            uploads.replace(obj, upload, uploader=request.user)

    def has_view_permission(self, request, obj=None):
        return can_upload(request.user)

    def has_add_permission(self, request):
        return can_upload(request.user)

    def has_change_permission(self, request, obj=None):
        return can_upload(request.user)

    def has_delete_permission(self, request, obj=None):
        return can_upload(request.user)

    def has_module_permission(self, request):
        return can_upload(request.user)
