"""A book as a PDF, laid out by WeasyPrint in parts and joined into one document.

A book is a title page and the contents (``templates/books/front.html``), then every node in
tree order (``templates/books/part.html``), laid out a part at a time (:mod:`.parts`) so
that a build's memory stays bounded however large the book; ``static/css/book.css`` sets the
pages: running headers with the chapter's title (``string-set``), page numbers running on
from part to part, and code coloured by the site's own Pygments stylesheet, with as few
spans as draw the same colours (:mod:`.code`). The parts are joined by :mod:`.joining`,
which points the links between them at their pages and writes one outline of bookmarks, one
per node.

The contents' page numbers are known only once the parts are laid out, and the parts'
numbers only once the front matter's length is: so the front matter is laid out first with
every page number as wide as any a book has (:data:`WIDEST_PAGE`), to learn its length, the
parts after it, and the front matter once more with the numbers their anchors landed on.
That layout is no longer than the first (narrower numbers wrap no more); should it be
shorter, blank pages make up the difference, so every page keeps its number.

Formulas are SVG images (:mod:`.formulas`). The wiki's own images are the copies
:mod:`.images` chooses, each given an address of the book's own (``book-image:<n>``) that
:class:`BookFetcher` reads from storage. WeasyPrint fetches nothing else but ``data:``
URLs: no ``file://`` or ``http://`` address in a body is ever read, and an image from
another host is never requested.
"""

import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from weasyprint import CSS
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from . import parts
from .code import fewer_spans
from .content import body_element
from .diagrams import draw_diagrams
from .formulas import draw_math
from .front import lay_out_front
from .joining import book_link, join

__all__ = ["WIDEST_PAGE", "BookFetcher", "book_style", "render_pdf"]

STYLESHEETS = ("css/pygments.css", "css/book.css")
# A page number as wide as any a book has: the book's fonts draw every digit equally wide.
WIDEST_PAGE = 99999


def render_pdf(book, built=None, progress=None):
    """Return the PDF of a :class:`~.content.Book`, as bytes.

    Args:
        book: the book.
        built: the date printed on its title page (default: now).
        progress: called with each node once its page is made, before its part is laid out
            (or None).

    Raises:
        RuntimeError: the front matter came out longer with its page numbers than with
            the widest ones (which the layout of text does not do).
    """
    style = book_style()
    fetcher = style[1]
    date = built or timezone.now()
    front_pages, _ = lay_out_front(book, date, lambda node: WIDEST_PAGE, style)
    parts.release_memory()
    anchors = {}
    with tempfile.TemporaryDirectory(prefix="book-") as folder:
        folder = Path(folder)
        files, first_page = [], front_pages + 1
        for number, nodes in enumerate(parts.split(book.nodes, settings.BOOK_PART_SIZE)):
            bodies = book.bodies(nodes)
            entries = [_entry(node, bodies[node.pk], book, fetcher, progress) for node in nodes]
            html = render_to_string("books/part.html", {"book": book, "entries": entries})
            files.append(folder / f"part-{number}.pdf")
            first_page += parts.lay_out(html, *style, first_page, files[-1], anchors)

        def numbered(node):
            return anchors[f"n{node.pk}"].page + 1

        laid, front_files = lay_out_front(book, date, numbered, style, folder)
        if laid > front_pages:
            raise RuntimeError(f"The contents took {laid} pages, not {front_pages}.")
        blank = (laid, front_pages - laid) if laid < front_pages else None
        outline = [(node.title, node.depth, f"n{node.pk}") for node in book.nodes]
        join([*front_files, *files], blank, anchors, outline, folder / "book.pdf")
        return (folder / "book.pdf").read_bytes()


def book_style():
    """Return what a book's documents are laid out with: ``(stylesheets, fetcher,
    font_config)``, a new :class:`BookFetcher` and WeasyPrint ``FontConfiguration``, which
    the book's documents share."""
    fonts = FontConfiguration()
    stylesheets = [CSS(filename=finders.find(name), font_config=fonts) for name in STYLESHEETS]
    return stylesheets, BookFetcher(), fonts


def _entry(node, html, book, fetcher, progress):
    """Return a node's entry in its part: the node, and its body (its stored ``html``) made
    fit for the PDF."""
    body = body_element(node, book, _link, namespaced=False, image=fetcher.add, html=html)
    draw_math(body)
    draw_diagrams(body)
    fewer_spans(body)
    html = ET.tostring(body, encoding="unicode", method="html")
    if progress is not None:
        progress(node)
    # The stored body_html, sanitized on save (chapters.markdown), parsed and changed by
    # body_element, draw_math, draw_diagrams and fewer_spans only: ids, links, images,
    # formulas, diagrams and spans.
    return {"node": node, "body": mark_safe(html.removeprefix("<body>").removesuffix("</body>"))}


class BookFetcher(URLFetcher):
    """WeasyPrint's fetcher for a book: ``data:`` URLs, and the book's own images from
    storage, under the addresses :meth:`add` gave them; every other URL is refused
    (WeasyPrint then draws nothing, or the alt text)."""

    def __init__(self):
        super().__init__(allowed_protocols={"data"})
        self.images = {}
        self.urls = {}

    def add(self, copy):
        """Return the address of an image's :class:`~.images.Copy` in the book (one per
        copy, however many times the book shows it)."""
        if copy not in self.urls:
            self.urls[copy] = f"book-image:{len(self.urls) + 1}"
            self.images[self.urls[copy]] = copy
        return self.urls[copy]

    def fetch(self, url, headers=None):
        """Return the response for ``url``: a copy read from storage, or what the allowed
        protocols give.

        Raises:
            ValueError: ``url``'s protocol is not allowed (WeasyPrint catches it).
        """
        copy = self.images.get(url)
        if copy is None:
            return super().fetch(url, headers)
        return URLFetcherResponse(url, copy.read(), {"Content-Type": copy.content_type})


def _link(target, fragment):
    """Return the ``href`` of a node of the book, or of an id in it."""
    return book_link(fragment or f"n{target.pk}")
