"""Processing an uploaded image, in a task (``chapters.tasks.process_media``), off the
upload's request.

:func:`process` takes one stored version of an item (the item's current one, or one it was
replaced by meanwhile, a :class:`~chapters.models.MediaVersion`) that is "processing":
it decodes the upload kept as its ``original``, turns it upright by its EXIF orientation,
encodes it again from its pixels alone, so that no metadata is kept (EXIF with the camera's
location, XMP, PNG text, JPEG and GIF comments), and makes a WebP copy for each of
``MEDIA_VARIANT_WIDTHS`` narrower than it (none of an animation, shown as it is). It writes
them beside the original, marks the version "ready" with its file and copies, deletes the
original and renders again the pages naming the item. An upload whose pixels cannot be
decoded is marked "failed", and pages show it as missing.

It is idempotent, as tasks must be: each step checks what the one before left, so a worker
killed at any point leaves a version that the task, run again, finishes: files are written
under fixed names, replacing what a killed run wrote; the version is marked ready only if it
is still processing the same original; the original is deleted, and the pages rendered,
whenever the version is ready.

Memory stays within about twice the decoded image (which is 300 MB for a 100-megapixel RGB
photo): the image is decoded once and turned in place, and the copies are made largest
first, each from the one before, Pillow's ``reducing_gap`` shrinking by whole factors before
resampling.
"""

import io
import posixpath
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, ImageFile, ImageOps

from ..models import MediaItem, MediaVersion, Node
from ..models.media import State

__all__ = ["Cleaned", "DamagedImage", "clean_image", "process", "render_pages_using"]

# Encoder options: lossy formats at a quality that keeps figures sharp.
SAVE_OPTIONS = {"JPEG": {"quality": 90}, "WEBP": {"quality": 90}, "AVIF": {"quality": 80}}
VARIANT_QUALITY = 80

# What an image's info may carry into its encoding: how it is drawn, never what it says.
DRAWING_INFO = {"transparency", "duration", "loop", "background", "disposal", "blend"}

# Resize in these modes as they are; other modes are converted first (palettes and bits
# cannot be resampled smoothly).
RESAMPLED_MODES = {"L", "LA", "RGB", "RGBA"}


class DamagedImage(Exception):
    """The upload's pixels cannot be decoded, though its header could be read."""


@dataclass
class Cleaned:
    """An image as :func:`clean_image` made it.

    Attributes:
        content: the image encoded again in its own format, without metadata.
        width, height: its size in pixels, upright.
        variants: its WebP copies, ``{width: bytes}``.
    """

    content: bytes
    width: int
    height: int
    variants: dict


def clean_image(handle):
    """Decode the image in ``handle``, turn it upright and encode it without metadata.

    Args:
        handle: a binary file holding an image :func:`chapters.media.uploads.inspect`
            accepted.

    Returns:
        A :class:`Cleaned`.

    Raises:
        DamagedImage: its pixels cannot be decoded.
    """
    try:
        with warnings.catch_warnings(), _whole_images_only():
            # inspect() checked the pixels against MEDIA_MAX_PIXELS from the header.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(handle)
            format_name = image.format
            animated = getattr(image, "n_frames", 1) > 1
            image.load()
            if not animated:
                ImageOps.exif_transpose(image, in_place=True)
            content = _encode(image, format_name, animated)
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError) as error:
        raise DamagedImage(str(error)) from error
    variants = {} if animated else _variants(image)
    return Cleaned(content, image.width, image.height, variants)


@contextmanager
def _whole_images_only():
    """Have Pillow refuse a truncated image while in the block, whatever its global says.

    WeasyPrint sets ``PIL.ImageFile.LOAD_TRUNCATED_IMAGES`` as it is imported (its
    ``images.py``), for the whole process: in a worker that has built a book, Pillow would
    then fill a damaged image's missing pixels with grey instead of failing. The global is
    Pillow's only switch, so it is set for the decoding and put back; a worker runs one task
    at a time, so no other thread reads it meanwhile.
    """
    kept = ImageFile.LOAD_TRUNCATED_IMAGES
    ImageFile.LOAD_TRUNCATED_IMAGES = False
    try:
        yield
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = kept


def _encode(image, format_name, animated):
    """Return ``image`` encoded as ``format_name`` with nothing but its pixels, its colour
    profile and how it is drawn (transparency, timing).

    Pillow writes back some of what it read unless told otherwise: a JPEG's comment, a
    GIF's comment (an animation's from each frame), so both are given empty.
    """
    options = dict(SAVE_OPTIONS.get(format_name, {}))
    if image.info.get("icc_profile"):
        options["icc_profile"] = image.info["icc_profile"]
    if format_name in {"JPEG", "GIF"}:
        options["comment"] = b""
    if animated:
        options.update(save_all=True, loop=image.info.get("loop", 0))
    image.info = {key: value for key, value in image.info.items() if key in DRAWING_INFO}
    buffer = io.BytesIO()
    image.save(buffer, format=format_name, **options)
    return buffer.getvalue()


def _variants(image):
    """Return ``{width: WebP bytes}`` for each variant width narrower than ``image``,
    made largest first, each from the one before."""
    has_alpha = image.mode in {"RGBA", "LA", "PA"} or "transparency" in image.info
    mode = "RGBA" if has_alpha else "RGB"
    widths = [width for width in settings.MEDIA_VARIANT_WIDTHS if width < image.width]
    if not widths:
        return {}
    source = image
    if source.mode not in RESAMPLED_MODES:
        source = source.convert("L" if source.mode == "1" else mode)
    copies = {}
    for width in sorted(widths, reverse=True):
        height = max(1, round(image.height * width / image.width))
        source = source.resize((width, height), Image.Resampling.LANCZOS, reducing_gap=3.0)
        buffer = io.BytesIO()
        source.convert(mode).save(buffer, format="WEBP", quality=VARIANT_QUALITY)
        copies[width] = buffer.getvalue()
    return dict(sorted(copies.items()))


def _stored_version(pk, version):
    """Return the row of version ``version`` of item ``pk``: the item, a version it was
    replaced by, or None when neither is there (deleted)."""
    item = MediaItem.objects.filter(pk=pk).first()
    if item is None:
        return None
    if item.version == version:
        return item
    return MediaVersion.objects.filter(item=item, version=version).first()


def process(pk, version):
    """Process version ``version`` of the media item ``pk``, then finish what follows.

    See the module: the image cleaned, written and marked ready (or failed), its original
    deleted, the pages naming the item rendered again when it is the item's current
    version. A version already processed is only finished; one deleted is left.

    Args:
        pk: the item's primary key.
        version: the version's number.

    Raises:
        OSError: the storage failed; the task runs again later (``chapters.worker``).
    """
    row = _stored_version(pk, version)
    if row is None:
        return
    if row.state == State.PROCESSING:
        _process(row)
        row.refresh_from_db()
    if row.state == State.READY and row.original:
        default_storage.delete(row.original)
        type(row).objects.filter(pk=row.pk, original=row.original).update(original="")
    if isinstance(row, MediaItem):
        render_pages_using(row.name)


def _process(row):
    """Clean the original of ``row``, write the file and its copies, mark it ready; or mark
    it failed when its pixels cannot be decoded."""
    name = row.name if isinstance(row, MediaItem) else row.item.name
    waiting = type(row).objects.filter(pk=row.pk, state=State.PROCESSING, original=row.original)
    try:
        with default_storage.open(row.original) as handle:
            cleaned = clean_image(handle)
    except DamagedImage:
        waiting.update(state=State.FAILED)
        return
    folder = posixpath.dirname(row.original)
    path = _write(f"{folder}/{name}", cleaned.content)
    for width, content in cleaned.variants.items():
        _write(f"{folder}/{width}.webp", content)
    waiting.update(
        state=State.READY,
        file=path,
        size=len(cleaned.content),
        width=cleaned.width,
        height=cleaned.height,
        variants=sorted(cleaned.variants),
    )


def _write(path, content):
    """Write ``content`` at ``path`` in the default storage, replacing what an earlier run
    wrote there; return the path.

    Raises:
        OSError: the storage kept the file under another name (another run writing at
            once); the task runs again.
    """
    default_storage.delete(path)
    stored = default_storage.save(path, ContentFile(content))
    if stored != path:
        default_storage.delete(stored)
        raise OSError(f"{path} was written meanwhile; processing runs again.")
    return path


def render_pages_using(name):
    """Render again the pages whose bodies name ``name``: an item of that name was added
    (mending their placeholders), replaced or processed (its size, copies and version are
    in their HTML).

    Each page in a transaction of its own, as ``chapters.tasks.render_pages`` does.
    """
    for node in Node.objects.filter(media_uses__name=name).distinct():
        node.refresh_body()
