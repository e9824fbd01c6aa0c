"""A book as an EPUB 3, written by the wiki itself: a ZIP of XHTML documents and the package
document that lists them, from the templates in ``templates/books/epub/``.

The archive, as EPUB 3 lays it out (https://www.w3.org/TR/epub-33/, its container and
package document; Debian's epubcheck checks it by EPUB 3.2's rules)::

    mimetype                 first in the archive and stored, not compressed
    META-INF/container.xml   names the package document
    EPUB/content.opf         the package document: metadata, manifest, spine
    EPUB/nav.xhtml           the navigation document, nested as the tree
    EPUB/toc.ncx             the same contents for EPUB 2 reading systems
    EPUB/style/*.css         the site's code colours and a few rules of the book's own
    EPUB/n<pk>.xhtml         one document per node: its title, then its body
    EPUB/images/*            the media library's images the bodies show

Formulas are the site's MathML, each with the LaTeX it was written in as ``alttext``; the
manifest marks the documents holding any with the ``mathml`` property, and those holding a
Graphviz diagram's SVG with ``svg``, as EPUB 3 requires.
Everything in the archive is an :class:`Item` of a :class:`Package`, which the manifest
lists, so a file a body needs (an image of the wiki's own, its ``<img>`` keeping its ``alt``)
goes in as one more item, added while its document is made: the copy :mod:`.images`
chooses, read from storage, as ``EPUB/images/<stem>-<width>.<ext>``. A copy in a type that
EPUB 3.2 reading systems need not read (WebP, AVIF: not among its core media types) is
packed re-encoded, as PNG when it has transparency and as JPEG otherwise.
"""

import io
import re
import uuid
import zipfile
from dataclasses import dataclass
from datetime import UTC
from xml.sax.saxutils import escape

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from PIL import Image

from .content import MATHML, SVG, XHTML, body_element, to_xml
from .images import file_name

__all__ = ["Item", "Package", "render_epub"]

# The package document's folder: every item's href is relative to it.
FOLDER = "EPUB"
STYLESHEETS = {"style/pygments.css": "css/pygments.css", "style/book.css": "css/book-epub.css"}
DOCUMENT = "application/xhtml+xml"
NCX = "application/x-dtbncx+xml"
# EPUB 3.2's core media types of images (https://www.w3.org/publishing/epub32/epub-spec.html
# #sec-core-media-types), by the extension the book's files take; SVG is never uploaded.
CORE_IMAGES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif"}
JPEG_QUALITY = 90
# What an item may be named: a URL path that needs no escaping and is a name in any ZIP tool.
HREF = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._/-]*")


@dataclass(frozen=True)
class Item:
    """One file of a package, listed in its manifest.

    ``id`` is the manifest's name for it (an XML name, unique in the package); ``href`` its
    path in the archive, relative to the package document; ``properties`` the manifest's
    properties of it, space-separated (``nav``, ``mathml``, ``svg``, ...), or empty.
    """

    id: str
    href: str
    media_type: str
    data: bytes
    properties: str = ""


class Package:
    """The files of an EPUB, in the manifest's order, written out by :meth:`write`."""

    def __init__(self):
        self.items = {}

    def add(self, id, href, media_type, data, properties=""):
        """Add a file to the package and return its :class:`Item`.

        Args:
            id: the manifest's name for it.
            href: its path relative to the package document: letters, digits, ``-``,
                ``_``, ``.`` and ``/``.
            media_type: its media type. EPUB 3.2's core media types (XHTML, CSS, PNG,
                JPEG, GIF, SVG, fonts) need no fallback; others (WebP) need one.
            data: its content, bytes.
            properties: the manifest's properties of it, space-separated.

        Returns:
            The item; the one already added, if ``href`` was (a file used twice is packed
            once).

        Raises:
            ValueError: ``href`` is not such a path, or ``id`` is taken by another file.
        """
        if href in self.items:
            return self.items[href]
        if not HREF.fullmatch(href):
            raise ValueError(f"An item's path must be a plain relative path, not {href!r}.")
        if any(item.id == id for item in self.items.values()):
            raise ValueError(f"The manifest already names another item {id!r}.")
        self.items[href] = Item(id, href, media_type, data, properties)
        return self.items[href]

    def write(self, title, identifier, modified, spine):
        """Return the EPUB, as bytes.

        Args:
            title: the book's title.
            identifier: its unique identifier, a URN.
            modified: when it was made, an aware datetime.
            spine: the items read in order, from the first.

        The spine names the NCX, if the package holds one, as EPUB 2 reading systems find
        it there.
        """
        modified = modified.astimezone(UTC)
        package = render_to_string(
            "books/epub/content.opf",
            {
                "title": title,
                "identifier": identifier,
                "modified": modified.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "items": self.items.values(),
                "spine": spine,
                "ncx": next((item for item in self.items.values() if item.media_type == NCX), None),
            },
        )
        container = render_to_string(
            "books/epub/container.xml", {"package_document": f"{FOLDER}/content.opf"}
        )
        files = [
            ("META-INF/container.xml", container.encode()),
            (f"{FOLDER}/content.opf", package.encode()),
            *((f"{FOLDER}/{item.href}", item.data) for item in self.items.values()),
        ]
        buffer = io.BytesIO()
        stamp = modified.timetuple()[:6]
        with zipfile.ZipFile(buffer, "w") as archive:
            # The OCF's rule: "mimetype" first, uncompressed, so the type reads at byte 38.
            archive.writestr(zipfile.ZipInfo("mimetype", stamp), b"application/epub+zip")
            for name, data in files:
                archive.writestr(zipfile.ZipInfo(name, stamp), data, zipfile.ZIP_DEFLATED)
        return buffer.getvalue()


def render_epub(book, built=None, progress=None):
    """Return the EPUB 3 of a :class:`~.content.Book`, as bytes.

    Args:
        book: the book.
        built: when it was made, an aware datetime: its modification date, its files'
            dates and its identifier derive from it (default: now), so one date gives the
            same bytes.
        progress: called with each node once its document is made (or None).
    """
    built = built or timezone.now()
    scope = book.root.path if book.root is not None else ""
    identifier = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{scope}@{built}')}"
    package = Package()
    for href, static in STYLESHEETS.items():
        with open(finders.find(static), "rb") as stylesheet:
            package.add(
                href.replace("/", "-").replace(".", "-"), href, "text/css", stylesheet.read()
            )
    documents = []
    image = _packer(package)
    bodies = book.bodies(book.nodes)
    for node in book.nodes:
        page = _page(node, book, image, bodies.pop(node.pk))
        documents.append(package.add(f"n{node.pk}", _file(node), DOCUMENT, *page))
        if progress is not None:
            progress(node)
    context = {
        "book": book,
        "identifier": identifier,
        "depth": max((node.depth + 1 for node in book.nodes), default=1),
    }
    ncx = render_to_string("books/epub/toc.ncx", context).encode()
    package.add("ncx", "toc.ncx", NCX, ncx)
    navigation = render_to_string("books/epub/nav.xhtml", context).encode()
    nav = package.add("nav", "nav.xhtml", DOCUMENT, navigation, "nav")
    return package.write(book.title, identifier, built, [nav, *documents])


def _file(node):
    return f"n{node.pk}.xhtml"


def _link(target, fragment):
    """Return the ``href`` of a node of the book, or of an id in it: its document."""
    return f"{_file(target)}#{fragment}" if fragment else _file(target)


def _page(node, book, image, html):
    """Return the XHTML document of one node (its title as a heading, then its body, the
    stored ``html``) as bytes, and its manifest properties; ``image`` places the wiki's own
    images."""
    body = body_element(node, book, _link, namespaced=True, image=image, html=html)
    namespaces = {element.tag.partition("}")[0] for element in body.iter()}
    inner = escape(body.text or "") + "".join(to_xml(child, XHTML) for child in body)
    page = render_to_string(
        "books/epub/page.xhtml",
        # The stored body_html, sanitized on save (chapters.markdown), parsed and changed by
        # body_element only (ids, links, images), then written as XML by to_xml.
        {"node": node, "body": mark_safe(inner), "stylesheets": STYLESHEETS},
    )
    properties = [
        name for name, uri in (("mathml", MATHML), ("svg", SVG)) if f"{{{uri}" in namespaces
    ]
    return page.encode(), " ".join(properties)


def _packer(package):
    """Return the ``image`` function of :func:`~.content.body_element` for an EPUB: it adds
    an image's :class:`~.images.Copy` to ``package`` once, and returns its ``href``."""
    hrefs = {}

    def pack(copy):
        if copy not in hrefs:
            data, media_type = copy.read(), copy.content_type
            extension = CORE_IMAGES.get(media_type)
            if extension is None:
                data, media_type, extension = _reencoded(data)
            href = f"images/{file_name(copy, extension)}"
            item_id = "image-" + href.removeprefix("images/").replace(".", "-")
            package.add(item_id, href, media_type, data)
            hrefs[copy] = href
        return hrefs[copy]

    return pack


def _reencoded(data):
    """Return an image in a type outside EPUB's core ones as ``(bytes, media type,
    extension)``: PNG when it has transparency, JPEG otherwise."""
    with Image.open(io.BytesIO(data)) as image:
        buffer = io.BytesIO()
        if image.mode in {"RGBA", "LA", "PA"} or "transparency" in image.info:
            image.save(buffer, format="PNG")
            return buffer.getvalue(), "image/png", "png"
        image.convert("RGB").save(buffer, format="JPEG", quality=JPEG_QUALITY)
        return buffer.getvalue(), "image/jpeg", "jpg"
