"""The wiki's own images in books: which stored copy of an image a book takes, read from
storage, never fetched over the network.

A body shows an image of the media library as ``<img src="/media/<name>?v=<version>">``
(``chapters.markdown.mdx.media``). A book looks the name up among the items its nodes use
(:meth:`BookImages.find`, one query per book) and takes, of the image's file and its WebP
copies (``MediaItem.variants``), the widest no wider than :data:`PRINT_WIDTH`: the width
that prints at 300 dpi over the text of a book's page, as sharp as print needs. An image
narrower than that is taken whole; a wider one as its widest copy that fits (1920 pixels,
about 290 dpi, with the wiki's ``MEDIA_VARIANT_WIDTHS``). An image still processing or
failed is not taken: the book prints its alt text, as it does for images from elsewhere.
"""

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.core.files.storage import default_storage

from ..models import MEDIA_NAME, MediaItem

__all__ = ["PRINT_WIDTH", "BookImages", "Copy", "file_name", "print_copy"]

# The text's width on a book's page: A4's 210 mm less static/css/book.css's 2 cm margins.
TEXT_WIDTH_MM = 170
# 300 dots per inch over that width, in pixels (2008).
PRINT_WIDTH = round(TEXT_WIDTH_MM / 25.4 * 300)

_MEDIA_PATH = re.compile(rf"/media/({MEDIA_NAME})")


@dataclass(frozen=True)
class Copy:
    """One stored copy of an image: the item's name, the copy's storage path, its size in
    pixels and its media type."""

    name: str
    path: str
    width: int
    height: int
    content_type: str

    def read(self):
        """Return the copy's bytes, read from the default storage."""
        with default_storage.open(self.path, "rb") as file:
            return file.read()


def print_copy(item):
    """Return the :class:`Copy` of a ready image a book prints: the widest of its file and
    its WebP copies no wider than :data:`PRINT_WIDTH`, or the narrowest if none is."""
    copies = [
        Copy(item.name, item.file.name, item.width, item.height, item.content_type),
        *(
            Copy(
                item.name,
                item.variant_path(width),
                width,
                max(1, round(item.height * width / item.width)),
                "image/webp",
            )
            for width in item.variants
        ),
    ]
    fitting = [copy for copy in copies if copy.width <= PRINT_WIDTH]
    if fitting:
        return max(fitting, key=lambda copy: copy.width)
    return min(copies, key=lambda copy: copy.width)


class BookImages:
    """The images of the media library that a book's nodes use, looked up once."""

    def __init__(self, nodes):
        self.nodes = nodes
        self._items = None

    def find(self, src):
        """Return the :class:`Copy` a book prints for an ``<img>``'s ``src``, or None.

        None for a ``src`` that is not the site's own ``/media/<name>`` (an image from
        elsewhere), for a name no used item has, for a file that is no image, and for an
        image still processing or failed.
        """
        parts = urlsplit(src)
        match = _MEDIA_PATH.fullmatch(parts.path)
        if parts.scheme or parts.netloc or match is None:
            return None
        item = self._by_name().get(match.group(1))
        if item is None or not item.is_image or not item.is_ready or not item.width:
            return None
        return print_copy(item)

    def _by_name(self):
        """Return the items the book's nodes use, by name (one query, at the first call)."""
        if self._items is None:
            used = MediaItem.objects.filter(uses__source__in=[node.pk for node in self.nodes])
            self._items = {item.name: item for item in used.distinct()}
        return self._items


def file_name(copy, extension):
    """Return a name for a copy in a book's files: the item's stem, the copy's width and
    ``extension`` (``diagram-1200.png``)."""
    stem = posixpath.splitext(copy.name)[0]
    return f"{stem}-{copy.width}.{extension}"
