"""A book's PDF laid out in parts, so that the memory a build takes stays bounded.

WeasyPrint holds a document's whole layout (its boxes, its pages, the drawing of each page)
until it is written: the 2,000-node benchmark book, laid out as one document, took more than
7.6 GB. So a book is laid out a part at a time (:func:`split`), each part written to a file
of its own and its layout let go before the next is laid out (:func:`lay_out`); then
:mod:`.joining` joins the files into one PDF.

What would need the whole book at once is carried from part to part instead: the page number
a part starts at (CSS ``counter-reset: page`` on its first page, so the numbers run on), and
where each of its anchors landed (page and position), from which the contents' page numbers,
the links between parts and the bookmarks are made.
"""

import ctypes
import ctypes.util
import gc
from dataclasses import dataclass
from functools import lru_cache

from weasyprint import CSS, HTML

__all__ = ["Anchor", "lay_out", "release_memory", "render", "split"]

# WeasyPrint's CSS pixels in PDF points (96 px and 72 pt to the inch).
POINTS_PER_PIXEL = 0.75


@dataclass(frozen=True)
class Anchor:
    """Where an element with an ``id`` landed in the book: the page's index (0 for the
    first page) and the point, in PDF points from the page's bottom left."""

    page: int
    x: float
    y: float


def split(nodes, size):
    """Return a book's nodes (in tree order, each with ``depth``) in parts.

    A part ends before a top node of the book (an area of the whole curriculum, which starts
    a page anyway) once it holds ``size`` nodes, or before any node once it holds twice
    that: a part holds an area or a few, or a share of an area too large for one part.

    Args:
        nodes: the book's nodes.
        size: the number of nodes a part holds at least, unless it is the last.

    Returns:
        A list of lists of nodes, none empty.
    """
    parts, current = [], []
    for node in nodes:
        full = len(current) >= 2 * size or (len(current) >= size and node.depth == 0)
        if full:
            parts.append(current)
            current = []
        current.append(node)
    if current:
        parts.append(current)
    return parts


def render(html, stylesheets, fetcher, font_config, first_page=1):
    """Lay out one document with WeasyPrint; return its ``Document``.

    Args:
        html: the document's HTML.
        stylesheets: WeasyPrint ``CSS`` objects.
        fetcher: the ``url_fetcher`` (:class:`~.pdf.BookFetcher`).
        font_config: WeasyPrint's ``FontConfiguration``, shared by a book's documents.
        first_page: the number its first page carries.
    """
    numbering = CSS(string=f"@page :first {{ counter-reset: page {first_page} }}")
    return HTML(string=html, url_fetcher=fetcher).render(
        stylesheets=[*stylesheets, numbering], font_config=font_config
    )


def lay_out(html, stylesheets, fetcher, font_config, first_page, path, anchors):
    """Lay out one part of a book, write it to ``path`` and let its layout go.

    Args:
        html, stylesheets, fetcher, font_config, first_page: as for :func:`render`; the
            part's first page is the book's page ``first_page``.
        path: the file the part's PDF is written to.
        anchors: a dict the part's anchors are added to, by name, as :class:`Anchor`
            (the first of a name is kept, as WeasyPrint keeps it).

    Returns:
        The part's number of pages.
    """
    document = render(html, stylesheets, fetcher, font_config, first_page)
    for number, page in enumerate(document.pages):
        for name, (x, y, _right, _bottom) in page.anchors.items():
            anchors.setdefault(
                name,
                Anchor(
                    first_page - 1 + number,
                    x * POINTS_PER_PIXEL,
                    (page.height - y) * POINTS_PER_PIXEL,
                ),
            )
    document.write_pdf(path, finisher=_without_names)
    pages = len(document.pages)
    del document
    release_memory()
    return pages


def _without_names(_document, pdf):
    """Leave out of a part's PDF the named destinations WeasyPrint writes for its anchors:
    the book's links point at pages (:mod:`.joining`), and the join would otherwise carry
    one name per ``id`` of the book."""
    pdf.catalog.pop("Names", None)


def release_memory():
    """Free what a layout left, and give the C library's free memory back to the system.

    A layout's boxes refer to each other in cycles, collected now rather than during the
    next part. The C library (glibc) keeps the memory of freed large objects (texts, drawn
    streams) for its own reuse; without ``malloc_trim`` the process would keep the largest
    part's high-water mark, and the join, which comes after the parts, would stack on it.
    Where the C library has no ``malloc_trim``, only the collection is done.
    """
    gc.collect()
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _libc():
    """Return the C library, loaded by ctypes (None where it cannot be found)."""
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None
