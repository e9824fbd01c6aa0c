"""What an upload is, read from its content, and how it is stored.

:func:`inspect` decides what an uploaded file is from its bytes, never from its name or the
type the browser claims: an image Pillow reads (PNG, JPEG, WebP, GIF, AVIF), a PDF, a ZIP
or UTF-8 text. It refuses, with a sentence saying why: a file over ``MEDIA_MAX_SIZE``; an
image of more than ``MEDIA_MAX_PIXELS`` pixels, read from its header before any pixel is
decoded (a decompression bomb), or an animation whose frames together have more than
``ANIMATION_PIXELS`` times that; SVG, which can carry scripts; HTML, whatever its name; a file
named like an image that holds none; and any other type.

:func:`add` and :func:`replace` store what :func:`inspect` accepted. An image is stored
re-encoded from its decoded pixels, turned upright by its EXIF orientation first, so that
its metadata (EXIF, with the camera's location) is not kept; resized WebP copies are made
for each of ``MEDIA_VARIANT_WIDTHS`` narrower than it, except of animations, shown as they
are. Both render again, once committed, the pages naming the item.
"""

import io
import re
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.text import slugify
from PIL import Image, ImageOps, UnidentifiedImageError

from ..models import MediaItem, MediaVersion, Node
from ..models.media import version_folder

__all__ = ["Inspected", "add", "inspect", "render_pages_using", "replace"]

# Pillow's format name -> the extension and type the library stores an image under.
IMAGE_FORMATS = {
    "PNG": ("png", "image/png"),
    "JPEG": ("jpg", "image/jpeg"),
    "WEBP": ("webp", "image/webp"),
    "GIF": ("gif", "image/gif"),
    "AVIF": ("avif", "image/avif"),
}
IMAGE_EXTENSIONS = {"png", "jpg", "jpeg", "webp", "gif", "avif", "bmp", "tif", "tiff", "ico"}

# The extensions a text file or a ZIP keeps from its name; others become .txt and .zip.
TEXT_EXTENSIONS = {
    "txt", "md", "csv", "tsv", "json", "ipynb", "py", "js", "c", "h", "cpp", "rs", "go", "java",
    "tex", "bib", "yaml", "yml", "toml", "obj", "mtl", "glsl",
}  # fmt: skip
ZIP_EXTENSIONS = {"zip", "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "blend"}

# The start of a text that a browser would take as markup.
MARKUP_START = re.compile(rb"^\s*<(?:!doctype\s+html|html|head|body|script|iframe|\?xml)", re.I)

SNIFF_BYTES = 8192

# An animation's frames together may have this many times MEDIA_MAX_PIXELS: every frame is
# decoded to re-encode it.
ANIMATION_PIXELS = 4

# Encoder options: lossy formats at a quality that keeps figures sharp.
SAVE_OPTIONS = {"JPEG": {"quality": 90}, "WEBP": {"quality": 90}, "AVIF": {"quality": 80}}
VARIANT_QUALITY = 80


@dataclass
class Inspected:
    """What :func:`inspect` found an upload to be.

    Attributes:
        kind: ``MediaItem.Kind``'s value, "image" or "file".
        extension: the extension the stored file and the item's name take.
        content_type: the type it is served as.
        content: the bytes to store (an image re-encoded without its metadata).
        width, height: an image's size in pixels, upright; None for a file.
        variants: an image's resized WebP copies, ``{width: bytes}``.
    """

    kind: str
    extension: str
    content_type: str
    content: bytes
    width: int | None = None
    height: int | None = None
    variants: dict = field(default_factory=dict)


def inspect(upload):
    """Read ``upload`` and return what it is, ready to store.

    Args:
        upload: a Django ``UploadedFile`` (or any ``File`` with ``name`` and ``size``).

    Returns:
        An :class:`Inspected`.

    Raises:
        ValidationError: the upload is refused; the message says why, naming the file.
    """
    name = upload.name.rsplit("/", 1)[-1]
    if upload.size > settings.MEDIA_MAX_SIZE:
        raise ValidationError(
            f"“{name}” is {filesizeformat(upload.size)}: at most "
            f"{filesizeformat(settings.MEDIA_MAX_SIZE)} can be uploaded."
        )
    upload.seek(0)
    head = upload.read(SNIFF_BYTES)
    upload.seek(0)
    named = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if named in {"svg", "svgz"} or re.search(rb"<svg[\s>]", head, re.I):
        raise ValidationError(
            f"“{name}” is an SVG image, which can hold scripts: SVG is not accepted. "
            "Export the drawing as PNG or WebP and upload that."
        )
    if MARKUP_START.match(head.removeprefix(b"\xef\xbb\xbf")):
        raise ValidationError(f"“{name}” holds HTML or XML, which is not accepted.")
    image = _open_image(upload, name)
    if image is not None:
        return _inspect_image(image, name)
    if named in IMAGE_EXTENSIONS:
        raise ValidationError(f"“{name}” is named like an image but does not hold one.")
    content = upload.read()
    if content.startswith(b"%PDF-"):
        return Inspected("file", "pdf", "application/pdf", content)
    if content.startswith(b"PK\x03\x04"):
        extension = named if named in ZIP_EXTENSIONS else "zip"
        return Inspected("file", extension, "application/zip", content)
    if _is_text(content):
        extension = named if named in TEXT_EXTENSIONS else "txt"
        return Inspected("file", extension, "text/plain; charset=utf-8", content)
    raise ValidationError(
        f"“{name}” is not of a type the library accepts: images (PNG, JPEG, WebP, GIF, AVIF), "
        "PDF, ZIP and text files."
    )


def _open_image(upload, name):
    """Return ``upload`` opened by Pillow (its header read, no pixels), or None if it is no
    image Pillow knows.

    Pillow refuses an image of more than twice ``Image.MAX_IMAGE_PIXELS`` pixels itself
    (``DecompressionBombError``), before :func:`_inspect_image` checks the wiki's own limit.

    Raises:
        ValidationError: the image has too many pixels, or is of a format not accepted.
    """
    try:
        image = Image.open(upload)
    except Image.DecompressionBombError:
        raise ValidationError(_too_many_pixels(name)) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        upload.seek(0)
        return None
    if image.format not in IMAGE_FORMATS:
        raise ValidationError(
            f"“{name}” is a {image.format} image: PNG, JPEG, WebP, GIF and AVIF are accepted."
        )
    return image


def _too_many_pixels(name, width=None, height=None):
    """Return the sentence refusing an image of more than ``MEDIA_MAX_PIXELS`` pixels."""
    size = f" is {width:,} × {height:,} pixels:" if width else " has too many pixels:"
    return (
        f"“{name}”{size} at most {settings.MEDIA_MAX_PIXELS:,} pixels (width × height) are "
        "accepted. Scale it down and upload it again."
    )


def _inspect_image(image, name):
    """Check, decode and re-encode an opened image; make its WebP copies.

    Raises:
        ValidationError: too many pixels, or a file whose pixels cannot be decoded.
    """
    width, height = image.size
    if width * height > settings.MEDIA_MAX_PIXELS:
        raise ValidationError(_too_many_pixels(name, width, height))
    format_name = image.format
    extension, content_type = IMAGE_FORMATS[format_name]
    frames = getattr(image, "n_frames", 1)
    animated = frames > 1
    if width * height * frames > ANIMATION_PIXELS * settings.MEDIA_MAX_PIXELS:
        raise ValidationError(
            f"“{name}” is an animation of {frames:,} frames of {width:,} × {height:,} pixels: "
            f"all its frames together may have at most {ANIMATION_PIXELS} × "
            f"{settings.MEDIA_MAX_PIXELS:,} pixels. Make it smaller or shorter."
        )
    try:
        image.load()
        if not animated:
            image = ImageOps.exif_transpose(image)
        content = _encode(image, format_name, animated)
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise ValidationError(f"“{name}” is a damaged image: its pixels cannot be read.") from None
    variants = {} if animated else _variants(image)
    return Inspected("image", extension, content_type, content, *image.size, variants)


def _encode(image, format_name, animated):
    """Return ``image`` encoded as ``format_name`` without its metadata (EXIF, text)."""
    buffer = io.BytesIO()
    options = dict(SAVE_OPTIONS.get(format_name, {}))
    if image.info.get("icc_profile"):
        options["icc_profile"] = image.info["icc_profile"]
    if animated:
        options.update(save_all=True, loop=image.info.get("loop", 0))
    image.save(buffer, format=format_name, **options)
    return buffer.getvalue()


def _variants(image):
    """Return ``{width: WebP bytes}`` for each variant width narrower than ``image``."""
    mode = "RGBA" if image.mode in {"RGBA", "LA", "PA"} or "transparency" in image.info else "RGB"
    source = image.convert(mode)
    copies = {}
    for width in settings.MEDIA_VARIANT_WIDTHS:
        if width >= image.width:
            break
        height = max(1, round(image.height * width / image.width))
        buffer = io.BytesIO()
        source.resize((width, height), Image.Resampling.LANCZOS).save(
            buffer, format="WEBP", quality=VARIANT_QUALITY
        )
        copies[width] = buffer.getvalue()
    return copies


def _is_text(content):
    """Return True for UTF-8 text without NUL characters."""
    if b"\x00" in content:
        return False
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def unique_name(filename, extension):
    """Return a library name for ``filename`` with ``extension`` that no item has yet.

    The name is the file's name without its extension, slugified to ASCII (``Fusion
    Diagram.PNG`` -> ``fusion-diagram``), with "-2", "-3", ... appended while taken, then
    the extension the content was found to be.
    """
    stem = filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    base = slugify(stem)[:90].strip("-_").replace("_", "-") or "upload"
    taken = set(MediaItem.objects.filter(name__startswith=base).values_list("name", flat=True))
    candidate, number = f"{base}.{extension}", 2
    while candidate in taken:
        candidate, number = f"{base}-{number}.{extension}", number + 1
    return candidate


def _store(item, inspected):
    """Write ``inspected``'s file and copies under the item's current version's folder."""
    folder = version_folder(item.name, item.version)
    item.file.name = default_storage.save(f"{folder}/{item.name}", ContentFile(inspected.content))
    for width, content in inspected.variants.items():
        default_storage.save(item.variant_path(width), ContentFile(content))
    item.content_type = inspected.content_type
    item.size = len(inspected.content)
    item.width, item.height = inspected.width, inspected.height
    item.variants = sorted(inspected.variants)


@transaction.atomic
def add(upload, *, title, alt, uploader, name=None):
    """Add ``upload`` to the library as a new item; return it.

    Args:
        upload: the uploaded file.
        title: the item's title; the file's name when empty.
        alt: the alt text, required for an image.
        uploader: the user uploading it.
        name: the item's name, as an import keeps it; by default one made from the file's
            name (:func:`unique_name`).

    Raises:
        ValidationError: the upload is refused (:func:`inspect`), an image has no alt
            text, or ``name`` is taken or not a library name; nothing is stored.
    """
    inspected = inspect(upload)
    filename = upload.name.rsplit("/", 1)[-1]
    item = MediaItem(
        name=name or unique_name(filename, inspected.extension),
        kind=inspected.kind,
        title=(title or filename).strip()[:200],
        alt=alt.strip(),
        uploader=uploader,
        uploaded=timezone.now(),
    )
    item.full_clean(exclude=["file", "content_type", "size"])
    _store(item, inspected)
    item.save()
    _render_pages_after_commit(item.name)
    return item


@transaction.atomic
def replace(item, upload, *, uploader):
    """Replace ``item``'s file with ``upload``, keeping its name and URL; return it.

    The file replaced is kept as a :class:`MediaVersion`. An image is replaced by an image
    and a file by a file, so that the pages placing it keep working.

    Raises:
        ValidationError: the upload is refused, or is of the other kind; nothing changes.
    """
    inspected = inspect(upload)
    if inspected.kind != item.kind:
        raise ValidationError(
            f"“{item.name}” is {'an image' if item.is_image else 'a file'}: replace it with "
            f"{'an image' if item.is_image else 'a file that is no image'}."
        )
    MediaVersion.objects.create(
        item=item,
        replaced=timezone.now(),
        **{
            name: getattr(item, name)
            for name in (
                "file", "content_type", "size", "width", "height", "variants", "version",
                "uploader", "uploaded",
            )
        },
    )  # fmt: skip
    item.version += 1
    item.uploader, item.uploaded = uploader, timezone.now()
    _store(item, inspected)
    item.save()
    _render_pages_after_commit(item.name)
    return item


def _render_pages_after_commit(name):
    """Call :func:`render_pages_using` once the transaction commits, logging a failure."""

    # A function, not a functools.partial: Django logs a robust callback's failure by its
    # __qualname__, which a partial lacks.
    def render_pages_after_upload():
        render_pages_using(name)

    transaction.on_commit(render_pages_after_upload, robust=True)


def render_pages_using(name):
    """Render again the pages whose bodies name ``name``: an item of that name was added
    (mending their placeholders) or replaced (its size and version are in their HTML).

    Called once the upload has committed, as ``chapters.models.node.mend_broken_links`` is,
    each page in a transaction of its own.
    """
    for node in Node.objects.filter(media_uses__name=name).distinct():
        with transaction.atomic():
            node.refresh_body()
