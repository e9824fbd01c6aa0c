"""What an upload is, read from its content, and how it is stored.

:func:`inspect` decides what an uploaded file is from its bytes, never from its name or the
type the browser claims: an image Pillow reads (PNG, JPEG, WebP, GIF, AVIF), a PDF, a ZIP
or UTF-8 text. For an image it reads the header only, no pixel decoded. It refuses, with a
sentence saying why: a file over ``MEDIA_MAX_SIZE``; an image of more than
``MEDIA_MAX_PIXELS`` pixels, read from its header (a decompression bomb), or an animation
whose frames together have more than ``ANIMATION_PIXELS`` times that; SVG, which can carry
scripts; HTML, whatever its name; a file named like an image that holds none; and any other
type.

:func:`add` and :func:`replace` store what :func:`inspect` accepted as it was uploaded and
enqueue ``chapters.tasks.process_media``, which does the slow part (``.processing``): an
image is decoded, turned upright, stripped of its metadata and given its WebP copies there,
and until then is "processing", never served, shown in pages as a placeholder of its size.
Then the task renders again the pages naming the item.

Two uploads of one name at once get two names: the name is taken by inserting the row (the
database's unique constraint decides, on PostgreSQL and on SQLite), and taken again with the
next number when another upload took it first; the file is written only once the row holds
its name, under that name's own folder, and deleted if the row is not stored after all.
"""

import re
import secrets
import warnings
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.text import slugify
from PIL import Image, UnidentifiedImageError

from .. import queue
from ..models import MediaItem, MediaVersion
from ..models.media import version_folder

__all__ = ["Inspected", "add", "inspect", "replace", "unique_name"]

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

# EXIF orientations that turn an image a quarter (transposed or not): width and height swap.
QUARTER_TURNS = {5, 6, 7, 8}
ORIENTATION = 0x0112

# How often a generated name is taken again when other uploads took it first; the last
# tries add random letters, which no other upload takes at the same instant.
NAME_ATTEMPTS = 8
NUMBERED_ATTEMPTS = 5


@dataclass
class Inspected:
    """What :func:`inspect` found an upload to be.

    Attributes:
        kind: ``MediaItem.Kind``'s value, "image" or "file".
        extension: the extension the stored file and the item's name take.
        content_type: the type it is served as.
        width, height: an image's size in pixels, upright as its EXIF orientation turns it,
            read from its header; None for a file.
    """

    kind: str
    extension: str
    content_type: str
    width: int | None = None
    height: int | None = None


def inspect(upload):
    """Read ``upload`` and return what it is, ready to store.

    Args:
        upload: a Django ``UploadedFile`` (or any ``File`` with ``name`` and ``size``).

    Returns:
        An :class:`Inspected`. The upload is left at its start, to be stored.

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
        inspected = _inspect_image(image, name)
        upload.seek(0)
        return inspected
    if named in IMAGE_EXTENSIONS:
        raise ValidationError(f"“{name}” is named like an image but does not hold one.")
    content = upload.read()
    upload.seek(0)
    if content.startswith(b"%PDF-"):
        return Inspected("file", "pdf", "application/pdf")
    if content.startswith(b"PK\x03\x04"):
        extension = named if named in ZIP_EXTENSIONS else "zip"
        return Inspected("file", extension, "application/zip")
    if _is_text(content):
        extension = named if named in TEXT_EXTENSIONS else "txt"
        return Inspected("file", extension, "text/plain; charset=utf-8")
    raise ValidationError(
        f"“{name}” is not of a type the library accepts: images (PNG, JPEG, WebP, GIF, AVIF), "
        "PDF, ZIP and text files."
    )


def _open_image(upload, name):
    """Return ``upload`` opened by Pillow (its header read, no pixels), or None if it is no
    image Pillow knows.

    Pillow refuses an image of more than twice ``Image.MAX_IMAGE_PIXELS`` pixels itself
    (``DecompressionBombError``), before :func:`_inspect_image` checks the wiki's own limit;
    its warning for more than ``Image.MAX_IMAGE_PIXELS`` is not needed, since that check
    follows.

    Raises:
        ValidationError: the image has too many pixels, or is of a format not accepted.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
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
    """Check an opened image from its header, no pixel decoded; return what it is.

    Raises:
        ValidationError: too many pixels, in the image or in all its frames.
    """
    width, height = image.size
    if width * height > settings.MEDIA_MAX_PIXELS:
        raise ValidationError(_too_many_pixels(name, width, height))
    extension, content_type = IMAGE_FORMATS[image.format]
    try:
        frames = getattr(image, "n_frames", 1)
    except (OSError, SyntaxError, ValueError, EOFError):
        raise ValidationError(f"“{name}” is a damaged image: its frames cannot be read.") from None
    if width * height * frames > ANIMATION_PIXELS * settings.MEDIA_MAX_PIXELS:
        raise ValidationError(
            f"“{name}” is an animation of {frames:,} frames of {width:,} × {height:,} pixels: "
            f"all its frames together may have at most {ANIMATION_PIXELS} × "
            f"{settings.MEDIA_MAX_PIXELS:,} pixels. Make it smaller or shorter."
        )
    if frames == 1 and _orientation(image) in QUARTER_TURNS:
        width, height = height, width
    return Inspected("image", extension, content_type, width, height)


def _orientation(image):
    """Return the EXIF orientation an image's header gives (1, upright, when none)."""
    exif = image.info.get("exif")
    if not exif:
        return 1
    try:
        tags = Image.Exif()
        tags.load(exif)
        return tags.get(ORIENTATION, 1)
    except (OSError, SyntaxError, ValueError, TypeError, KeyError):
        return 1


def _is_text(content):
    """Return True for UTF-8 text without NUL characters."""
    if b"\x00" in content:
        return False
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def unique_name(filename, extension, random=False):
    """Return a library name for ``filename`` with ``extension`` that no item has yet.

    The name is the file's name without its extension, slugified to ASCII (``Fusion
    Diagram.PNG`` -> ``fusion-diagram``), with "-2", "-3", ... appended while taken, then
    the extension the content was found to be. Another upload may take it before this one
    stores it: :func:`add` then asks again.

    Args:
        filename: the uploaded file's name.
        extension: the extension the content was found to be.
        random: append eight random letters and digits instead of a number.
    """
    stem = filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    base = slugify(stem)[:90].strip("-_").replace("_", "-") or "upload"
    if random:
        return f"{base}-{secrets.token_hex(4)}.{extension}"
    taken = set(MediaItem.objects.filter(name__startswith=base).values_list("name", flat=True))
    candidate, number = f"{base}.{extension}", 2
    while candidate in taken:
        candidate, number = f"{base}-{number}.{extension}", number + 1
    return candidate


def add(upload, *, title, alt, uploader, name=None):
    """Add ``upload`` to the library as a new item, to be processed by a task; return it.

    The upload is checked (:func:`inspect`), its row inserted under a name no other item
    has, its file stored as it came, and ``chapters.tasks.process_media`` enqueued in the
    same transaction: an image is "processing" until the task has run, a file is ready.

    Args:
        upload: the uploaded file.
        title: the item's title; the file's name when empty.
        alt: the alt text, required for an image.
        uploader: the user uploading it.
        name: the item's name, as an import keeps it; by default one made from the file's
            name (:func:`unique_name`), taken again while other uploads take it first.

    Raises:
        ValidationError: the upload is refused (:func:`inspect`), an image has no alt
            text, or ``name`` is taken or not a library name; nothing is stored.
    """
    inspected = inspect(upload)
    filename = upload.name.rsplit("/", 1)[-1]
    item = MediaItem(
        name=name or "",
        kind=inspected.kind,
        title=(title or filename).strip()[:200],
        alt=alt.strip(),
        uploader=uploader,
        uploaded=timezone.now(),
    )
    _describe(item, upload, inspected)
    item.full_clean(exclude=["file", "name"] if name is None else ["file"])
    stored = []
    try:
        with transaction.atomic():
            _insert(item, filename, inspected.extension, named=name is not None)
            stored = _store(item, upload)
            item.save(update_fields=["file", "original"])
            queue.enqueue("process_media", item.pk, item.version)
    except BaseException:
        _delete_files(stored)
        raise
    return item


def _describe(item, upload, inspected):
    """Set the fields of ``item`` that say what its new upload is."""
    item.content_type = inspected.content_type
    item.size = upload.size
    item.width, item.height = inspected.width, inspected.height
    item.variants = []
    is_image = inspected.kind == MediaItem.Kind.IMAGE
    item.state = MediaItem.State.PROCESSING if is_image else MediaItem.State.READY


def _insert(item, filename, extension, named):
    """Insert ``item``'s row under its name, or a generated one no other row holds.

    The database's unique constraint decides between uploads taking one name at once: on
    PostgreSQL the later insert waits for the earlier's transaction and fails once it
    commits; SQLite's one write lock makes them take turns. A generated name is then taken
    again, the last tries with random letters.

    Raises:
        ValidationError: ``named`` and another item took the name meanwhile.
        IntegrityError: the row was refused for another reason.
    """
    for attempt in range(NAME_ATTEMPTS):
        if not named:
            item.name = unique_name(filename, extension, random=attempt >= NUMBERED_ATTEMPTS)
        try:
            with transaction.atomic():
                item.save(force_insert=True)
            return
        except IntegrityError:
            if not MediaItem.objects.filter(name=item.name).exists():
                raise
            if named:
                raise ValidationError(
                    {"name": item.unique_error_message(MediaItem, ["name"])}
                ) from None
    raise IntegrityError(f"No free name for “{filename}” after {NAME_ATTEMPTS} attempts.")


def _store(item, upload):
    """Write ``upload`` as it came under the item's current version's folder; return the
    storage paths written.

    An image's upload is its ``original``, and its ``file`` until processed; a file's
    upload is its file.
    """
    folder = version_folder(item.name, item.version)
    if item.is_image:
        path = default_storage.save(f"{folder}/unprocessed.{item.extension}", upload)
        item.file.name = item.original = path
    else:
        item.file.name = default_storage.save(f"{folder}/{item.name}", upload)
        item.original = ""
    return [item.file.name]


def _delete_files(paths):
    """Delete ``paths`` from the default storage: what an upload wrote for a row that was
    not stored."""
    for path in paths:
        default_storage.delete(path)


def replace(item, upload, *, uploader):
    """Replace ``item``'s file with ``upload``, keeping its name and URL, to be processed
    by a task as :func:`add`'s is.

    The file replaced is kept as a :class:`MediaVersion` (processed later, if it was still
    waiting). An image is replaced by an image and a file by a file, so that the pages
    placing it keep working. Two replacements at once take turns (the item's row is
    locked), each a version of its own.

    Args:
        item: the item, updated in place.
        upload: the new file.
        uploader: the user replacing it.

    Raises:
        ValidationError: the upload is refused, or is of the other kind; nothing changes.
    """
    inspected = inspect(upload)
    if inspected.kind != item.kind:
        raise ValidationError(
            f"“{item.name}” is {'an image' if item.is_image else 'a file'}: replace it with "
            f"{'an image' if item.is_image else 'a file that is no image'}."
        )
    stored = []
    try:
        with transaction.atomic():
            item.refresh_from_db(from_queryset=MediaItem.objects.select_for_update())
            MediaVersion.objects.create(
                item=item,
                replaced=timezone.now(),
                **{
                    name: getattr(item, name)
                    for name in (
                        "file", "content_type", "size", "width", "height", "variants",
                        "version", "state", "original", "uploader", "uploaded",
                    )
                },
            )  # fmt: skip
            item.version += 1
            item.uploader, item.uploaded = uploader, timezone.now()
            _describe(item, upload, inspected)
            stored = _store(item, upload)
            item.save()
            queue.enqueue("process_media", item.pk, item.version)
    except BaseException:
        _delete_files(stored)
        raise
    return item
