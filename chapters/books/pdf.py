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
:mod:`.images` chooses, each given an address of the book's own (``book-image:<n>``), read
from storage here and given, with the part that shows them, to the process laying it out,
whose :class:`~.parts.BookFetcher` serves them. WeasyPrint fetches nothing else but ``data:``
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

from . import parts
from .code import fewer_spans
from .content import body_element
from .diagrams import draw_diagrams
from .formulas import draw_math
from .front import lay_out_front
from .joining import book_link, join
from .parts import Anchor, BookFetcher

__all__ = ["WIDEST_PAGE", "BookFetcher", "book_style", "render_pdf"]

STYLESHEETS = ("css/pygments.css", "css/book.css")
# A page number as wide as any a book has: the book's fonts draw every digit equally wide.
WIDEST_PAGE = 99999


def render_pdf(book, built=None, progress=None):
    """Return the PDF of a :class:`~.content.Book`, as bytes.

    The parts are laid out by ``BOOK_LAYOUT_PROCESSES`` processes (:class:`~.parts.Pool`)
    while this one makes the next part's HTML and lays out the front matter; a book long
    enough is cut into at least two parts per process (:func:`~.parts.part_size`).

    Args:
        book: the book.
        built: the date printed on its title page (default: now).
        progress: called with each node once its page is made, before its part is laid out
            (or None).

    Raises:
        RuntimeError: the front matter came out longer with its page numbers than with
            the widest ones (which the layout of text does not do).
        Exception: what laying out a part raised in its process: the build fails, and
            leaves no file.
    """
    style = book_style()
    date = built or timezone.now()
    processes = settings.BOOK_LAYOUT_PROCESSES
    size = parts.part_size(len(book.nodes), settings.BOOK_PART_SIZE, processes)
    with tempfile.TemporaryDirectory(prefix="book-") as folder:
        folder = Path(folder)
        # The processes end before the join, which needs none of them.
        with parts.Pool(processes) as pool:
            laying, front_pages = _submit_parts(
                book,
                parts.split(book.nodes, size),
                pool,
                folder,
                progress,
                lambda: _count_front(book, date, style),
            )
            anchors, numbering = _number_parts(laying, front_pages, pool, folder)

            def numbered(node):
                return anchors[f"n{node.pk}"].page + 1

            laid, front_files = lay_out_front(book, date, numbered, style, folder)
            if laid > front_pages:
                raise RuntimeError(f"The contents took {laid} pages, not {front_pages}.")
            pieces = [(file, None) for file in front_files]
            for file, numbers, future in numbering:
                future.result()
                pieces.append((file, numbers))
        blank = (laid, front_pages - laid) if laid < front_pages else None
        outline = [(node.title, node.depth, f"n{node.pk}") for node in book.nodes]
        join(pieces, blank, anchors, outline, folder / "book.pdf")
        return (folder / "book.pdf").read_bytes()


def _number_parts(laying, front_pages, pool, folder):
    """Wait for each part's layout, in order, and give the pool its page numbers to lay out,
    from the page after the front matter's ``front_pages`` on.

    Returns:
        ``(anchors, numbering)``: the book's anchors by name, their pages counted in the
        book; ``(file, numbers, future)`` of each part: its file, the file of its numbers
        and the future of their :func:`~.parts.number_pages`.

    Raises:
        Exception: what a part's layout raised.
    """
    anchors, numbering, first_page = {}, [], front_pages + 1
    for number, (file, future) in enumerate(laying):
        pages, landed = future.result()
        for name, anchor in landed.items():
            anchors.setdefault(name, Anchor(first_page - 1 + anchor.page, anchor.x, anchor.y))
        numbers = folder / f"numbers-{number}.pdf"
        args = (stylesheet_files(), pages, first_page, numbers)
        numbering.append((file, numbers, pool.submit(parts.number_pages, *args)))
        first_page += pages
    return anchors, numbering


def _submit_parts(book, split, pool, folder, progress, count_front):
    """Give each part of a book to the pool, its HTML made here; count the front matter's
    pages once every process has a part.

    Returns:
        ``([(file, future), ...], front_pages)``: each part's file and the future of its
        :func:`~.parts.lay_out_part`; the front matter's pages (``count_front()``).
    """
    addresses, laying, front_pages = {}, [], None
    for number, nodes in enumerate(split):
        shown = {}
        bodies = book.bodies(nodes)
        entries = [
            _entry(node, bodies[node.pk], book, _image(addresses, shown), progress)
            for node in nodes
        ]
        html = render_to_string("books/part.html", {"book": book, "entries": entries})
        images = {url: (copy.read(), copy.content_type) for url, copy in shown.items()}
        file = folder / f"part-{number}.pdf"
        laying.append(
            (file, pool.submit(parts.lay_out_part, html, stylesheet_files(), images, file))
        )
        if number + 1 == pool.processes:
            front_pages = count_front()
    return laying, front_pages if front_pages is not None else count_front()


def stylesheet_files():
    """Return the files of a book's stylesheets (:data:`STYLESHEETS`)."""
    return [finders.find(name) for name in STYLESHEETS]


def book_style():
    """Return what a book's documents are laid out with in this process: ``(stylesheets,
    fetcher, font_config)``, a :class:`~.parts.BookFetcher` and WeasyPrint
    ``FontConfiguration``, which the book's documents share."""
    fonts = FontConfiguration()
    stylesheets = [CSS(filename=name, font_config=fonts) for name in stylesheet_files()]
    return stylesheets, BookFetcher(), fonts


def _count_front(book, date, style):
    """Return the number of pages of a book's front matter with the widest page numbers."""
    pages, _ = lay_out_front(book, date, lambda node: WIDEST_PAGE, style)
    parts.release_memory()
    return pages


def _image(addresses, shown):
    """Return the ``image`` callback of a part's bodies: it gives an image's
    :class:`~.images.Copy` its address in the book (one per copy, however many times the
    book shows it, in ``addresses``) and notes it in ``shown`` (address to copy), the images
    the part's layout is given."""

    def image(copy):
        url = addresses.setdefault(copy, f"book-image:{len(addresses) + 1}")
        shown[url] = copy
        return url

    return image


def _entry(node, html, book, image, progress):
    """Return a node's entry in its part: the node, and its body (its stored ``html``) made
    fit for the PDF, ``image`` giving its images their addresses."""
    body = body_element(node, book, _link, namespaced=False, image=image, html=html)
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


def _link(target, fragment):
    """Return the ``href`` of a node of the book, or of an id in it."""
    return book_link(fragment or f"n{target.pk}")
