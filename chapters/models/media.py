"""Images and files uploaded for pages: the media library.

A :class:`MediaItem` is one upload under a stable name (``fusion-diagram.png``), which its
URL (``/media/fusion-diagram.png``) and the Markdown that places it
(``![alt](image:fusion-diagram.png)``, ``[text](file:notes.pdf)``) use. Replacing its file
keeps the name, so pages and links keep working, and keeps the file replaced as a
:class:`MediaVersion`. Each stored file lives in the default storage (``STORAGES["default"]``)
under ``library/<name>/v<version>/``, beside the resized WebP copies made for an image
(``<width>.webp``), so no two versions share a file.

An image is stored as it was uploaded and processed afterwards by a task
(``chapters.media.processing``): until then its :class:`State` is "processing", its file is
the upload itself (its ``original``, metadata and all), which is never served, and pages show
a placeholder of its size. Processed, it is "ready": its file is the image re-encoded
without metadata, beside its copies; an image whose pixels cannot be decoded is "failed",
and pages show it as missing. A file that is no image is ready when uploaded.

A page's references to media are derived from its body whenever it is rendered, as its
links are (:class:`MediaUse`, beside ``Link``): they tell which pages use an item, which
references find nothing (the broken-links report), and they protect a used item from
deletion (``on_delete=PROTECT``: Django's admin and :meth:`MediaItem.delete` refuse, naming
the pages).
"""

import posixpath
import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.validators import RegexValidator
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

from chapters.markdown import MEDIA_REFERENCE

from .links import BodyReferences

__all__ = ["MEDIA_NAME", "MediaItem", "MediaResolver", "MediaUse", "MediaVersion"]

# A media item's name: lower-case letters, digits and hyphens, then one extension. No slash,
# so that a name is one URL segment; a dot, so that no name is a page of the library's own.
MEDIA_NAME = r"[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?\.[a-z0-9]{1,10}"

NAME_MAX_LENGTH = 111


class Kind(models.TextChoices):
    """What a media item is: an image shown in pages, or a file offered for download."""

    IMAGE = "image", "Image"
    FILE = "file", "File"


class State(models.TextChoices):
    """Where a stored version is in its processing (``chapters.media.processing``)."""

    PROCESSING = "processing", "Processing"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class StoredFile(models.Model):
    """The fields of one stored version of a media item, its file and what it holds.

    ``original`` is the storage path of the upload as it came, kept until a processed
    image replaces it as ``file`` and then deleted; empty when there is none.
    """

    State = State

    file = models.FileField(max_length=300)
    content_type = models.CharField(max_length=100)
    size = models.PositiveBigIntegerField(help_text="In bytes.")
    width = models.PositiveIntegerField(null=True, blank=True, help_text="Images: pixels.")
    height = models.PositiveIntegerField(null=True, blank=True, help_text="Images: pixels.")
    variants = models.JSONField(
        default=list,
        blank=True,
        help_text="Images: the widths of the resized WebP copies, smallest first.",
    )
    version = models.PositiveIntegerField(default=1)
    state = models.CharField(max_length=10, choices=State.choices, default=State.READY)
    original = models.CharField(max_length=300, blank=True)
    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    uploaded = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True

    def variant_path(self, width):
        """Return the storage path of the WebP copy ``width`` pixels wide."""
        return posixpath.join(posixpath.dirname(self.file.name), f"{width}.webp")

    def stored_paths(self):
        """Return the storage paths of this version's file, its copies and its original."""
        paths = [self.file.name, *(self.variant_path(width) for width in self.variants)]
        if self.original and self.original != self.file.name:
            paths.append(self.original)
        return paths

    @property
    def is_ready(self):
        """Return True once the file may be served: processed, or no image."""
        return self.state == State.READY


def version_folder(name, version):
    """Return the storage folder of version ``version`` of the item named ``name``."""
    return f"library/{name}/v{version}"


class MediaItem(StoredFile):
    """An image or a file in the media library, under a name that never changes.

    ``alt`` is required for images (:meth:`clean`): it is what readers who cannot see the
    image read instead (WCAG 1.1.1). The name matches ``MEDIA_NAME``.
    """

    Kind = Kind

    name = models.CharField(
        max_length=NAME_MAX_LENGTH,
        unique=True,
        validators=[
            RegexValidator(
                rf"\A{MEDIA_NAME}\Z",
                "Use lower-case letters, digits and hyphens, then an extension.",
            )
        ],
    )
    kind = models.CharField(max_length=5, choices=Kind.choices)
    title = models.CharField(max_length=200)
    alt = models.TextField(
        "alt text",
        blank=True,
        max_length=1000,
        help_text="What the image shows, for readers who cannot see it (images).",
    )

    class Meta:
        ordering = ["-uploaded", "-pk"]
        verbose_name = "media item"

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        """Return the URL of the current file (the name, without the version)."""
        return reverse("chapters:media-file", args=[self.name])

    def get_library_url(self):
        """Return the URL of the item's page in the media library."""
        return reverse("chapters:media-detail", args=[self.name])

    def variant_url(self, width):
        """Return the URL of the WebP copy ``width`` pixels wide."""
        return reverse("chapters:media-variant", args=[self.name, width])

    def versioned_url(self, width=None):
        """Return the URL of the file, or of its copy ``width`` pixels wide, with its version.

        Pages use these URLs, which change when the file is replaced, so browsers may keep
        what they fetched from them (``chapters.media.views``).
        """
        url = self.variant_url(width) if width else self.get_absolute_url()
        return f"{url}?v={self.version}"

    @property
    def thumbnail_url(self):
        """Return the versioned URL of the image's smallest copy, or of the image itself."""
        return self.versioned_url(self.variants[0] if self.variants else None)

    @property
    def extension(self):
        """Return the extension of the item's name, e.g. ``pdf``."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def is_image(self):
        """Return True for an image, False for a file."""
        return self.kind == Kind.IMAGE

    @property
    def is_processing(self):
        """Return True while the image waits for its task (``chapters.media.processing``)."""
        return self.state == State.PROCESSING

    def clean(self):
        """Require alt text for an image.

        Raises:
            ValidationError: an image without alt text.
        """
        if self.kind == Kind.IMAGE and not self.alt.strip():
            raise ValidationError({"alt": "Describe the image for readers who cannot see it."})

    @transaction.atomic
    def delete(self, *args, **kwargs):
        """Delete the item, its versions and, once committed, their stored files.

        Raises:
            django.db.models.ProtectedError: pages use the item (their :class:`MediaUse`
                rows are the error's ``protected_objects``); nothing is deleted.
        """
        paths = [
            *self.stored_paths(),
            *(path for version in self.versions.all() for path in version.stored_paths()),
        ]
        deleted = super().delete(*args, **kwargs)
        transaction.on_commit(lambda: _delete_files(paths), robust=True)
        return deleted


def _delete_files(paths):
    """Delete ``paths`` from the default storage, those already gone too."""
    for path in paths:
        default_storage.delete(path)


class MediaVersion(StoredFile):
    """A file a media item held before it was replaced, kept as the item's history."""

    item = models.ForeignKey(MediaItem, on_delete=models.CASCADE, related_name="versions")
    replaced = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-version"]
        constraints = [
            models.UniqueConstraint(fields=["item", "version"], name="unique_media_version")
        ]

    def __str__(self):
        return f"{self.item.name}, version {self.version}"


class MediaUse(BodyReferences, models.Model):
    """A reference to a media item in a node's body: ``image:<name>`` or ``file:<name>``.

    Derived from the body whenever it is rendered, like ``Link``; ``media`` is None when the
    name finds no item (or an item of the other kind), and ``problem`` says why. A used item
    cannot be deleted (``PROTECT``).
    """

    source = models.ForeignKey("chapters.Node", on_delete=models.CASCADE, related_name="media_uses")
    media = models.ForeignKey(
        MediaItem, on_delete=models.PROTECT, null=True, blank=True, related_name="uses"
    )
    kind = models.CharField(max_length=5, choices=Kind.choices)
    name = models.TextField(help_text="As written in the body, after the scheme.")
    problem = models.TextField(blank=True)

    def __str__(self):
        return f"“{self.source.title}” (/{self.source.path}/)"

    @property
    def text(self):
        """Return the reference as written in the body, e.g. ``image:diagram.png``."""
        return f"{self.kind}:{self.name}"


class MediaResolver:
    """Resolve the media references of one body, and remember what was resolved.

    Use: create it, call :meth:`prepare` with the body (one query for all its references),
    pass it to ``render_markdown``, then read :meth:`uses` for the body's :class:`MediaUse`
    rows (unsaved).
    """

    def __init__(self):
        self.items = {}
        self.resolved = {}

    def prepare(self, text):
        """Look up every item that a reference in ``text`` could name: one query."""
        names = {name for _, name in re.findall(MEDIA_REFERENCE, text)}
        if names:
            self.items = {item.name: item for item in MediaItem.objects.filter(name__in=names)}

    def __call__(self, kind, name):
        """Return ``(item, problem)`` for ``name`` placed as ``kind``, as the renderer asks.

        Args:
            kind: "image" for an image shown in the page, which must be an image; "file"
                for a link, to any item.
            name: the item's name as written.
        """
        item = self.items.get(name)
        problem = ""
        if item is None:
            what = "image" if kind == Kind.IMAGE else "image or file"
            problem = f"There is no {what} “{name}” in the media library."
        elif kind == Kind.IMAGE and not item.is_image:
            item = None
            problem = f"“{name}” is a file, not an image: link to it with [text](file:{name})."
        elif item.state == State.FAILED:
            item = None
            problem = (
                f"“{name}” could not be read: its pixels are damaged. Replace it in the media "
                "library."
            )
        self.resolved[kind, name] = (item, problem)
        return item, problem

    def uses(self):
        """Return the references resolved, as unsaved :class:`MediaUse` rows."""
        return [
            MediaUse(kind=kind, name=name, media=item, problem=problem)
            for (kind, name), (item, problem) in self.resolved.items()
        ]
