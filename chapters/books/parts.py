"""A book's PDF laid out in parts, so that the memory a build takes stays bounded.

WeasyPrint holds a document's whole layout (its boxes, its pages, the drawing of each page)
until it is written: the 2,000-node benchmark book, laid out as one document, took more than
7.6 GB. So a book is laid out a part at a time (:func:`split`), each part written to a file
of its own and its layout let go before the process laying it out takes the next
(:func:`lay_out_part`); then :mod:`.joining` joins the files into one PDF.

What would need the whole book at once is carried from part to part instead: the page number
a part starts at (CSS ``counter-reset: page`` on the first page of its numbers, so that they
run on), and where each of its anchors landed (page and position), from which the contents'
page numbers, the links between parts and the bookmarks are made.

The parts are laid out by a pool of processes at once (:class:`Pool`, as many as
``BOOK_LAYOUT_PROCESSES``), each part a document of its own: what one part's layout needs
of the others is only the number its first page carries, which is known only once the
parts before it are laid out. So a part is laid out without its page numbers
(:func:`lay_out_part`, its anchors' pages counted from its own first page), and once every
part's length is known, the numbers are laid out alone, on blank pages of the same size
and margins, a part at a time (:func:`number_pages`), and drawn over the part's pages by
:mod:`.joining`. A page's number is in its margin, so the page's text lands where it
would with its number. The functions the pool runs touch no database and no Django: what
they need (the HTML, the stylesheets' files, the images' bytes) is given to them.
"""

import ctypes
import ctypes.util
import gc
import math
import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import forkserver

from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

__all__ = [
    "Anchor",
    "BookFetcher",
    "Pool",
    "lay_out_part",
    "number_pages",
    "part_size",
    "release_memory",
    "render",
    "split",
]

# WeasyPrint's CSS pixels in PDF points (96 px and 72 pt to the inch).
POINTS_PER_PIXEL = 0.75
# A part's pages are laid out without their numbers, drawn later (:func:`number_pages`).
UNNUMBERED = "@page { @bottom-center { content: none; } }"
# A book is split into parts for its layout processes' sake down to parts of this many
# nodes: a part starts a page, and a short book need not be cut into many.
SMALLEST_PART = 10
# Objects made before a layout process's cycle collector runs (:func:`_start`).
GC_THRESHOLD = 50_000


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


def part_size(count, size, processes):
    """Return the size :func:`split` is given for a book of ``count`` nodes: ``size``
    (``BOOK_PART_SIZE``), or less, so that the book makes at least two parts for each layout
    process, but not less than :data:`SMALLEST_PART`.

    Args:
        count: the book's number of nodes.
        size: the largest size of a part.
        processes: the number of processes laying out the parts.
    """
    return max(1, min(size, max(SMALLEST_PART, math.ceil(count / (2 * processes)))))


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


def lay_out_part(html, stylesheet_files, images, path):
    """Lay out one part of a book without its page numbers and write it to ``path``. Run by
    a process of the :class:`Pool`, whose end lets the layout go.

    Args:
        html: the part's HTML.
        stylesheet_files: the book's stylesheets' files.
        images: the images the part shows, for :class:`BookFetcher`.
        path: the file the part's PDF is written to.

    Returns:
        ``(pages, anchors)``: the part's number of pages, and its anchors by name, as
        :class:`Anchor` whose page counts from the part's first page (the first of a name
        is kept, as WeasyPrint keeps it).
    """
    stylesheets, font_config = _style(tuple(stylesheet_files))
    document = render(
        html, [*stylesheets, _unnumbered(font_config)], BookFetcher(images), font_config
    )
    anchors = {}
    for number, page in enumerate(document.pages):
        for name, (x, y, _right, _bottom) in page.anchors.items():
            anchors.setdefault(
                name,
                Anchor(number, x * POINTS_PER_PIXEL, (page.height - y) * POINTS_PER_PIXEL),
            )
    document.write_pdf(path, finisher=_without_names)
    return len(document.pages), anchors


def number_pages(stylesheet_files, count, first_page, path):
    """Write to ``path`` the page numbers of a part: ``count`` blank pages, laid out as a
    book's are, numbered from ``first_page``. Run by a process of the :class:`Pool`."""
    stylesheets, font_config = _style(tuple(stylesheet_files))
    blank = '<div style="break-before: page"></div>' * (count - 1)
    document = render(f"<div></div>{blank}", stylesheets, BookFetcher(), font_config, first_page)
    document.write_pdf(path)


@lru_cache(maxsize=1)
def _style(stylesheet_files):
    """Return a layout process's stylesheets, parsed once, and the ``FontConfiguration``
    they share."""
    font_config = FontConfiguration()
    return [CSS(filename=name, font_config=font_config) for name in stylesheet_files], font_config


@lru_cache(maxsize=1)
def _unnumbered(font_config):
    """Return the stylesheet that leaves the page numbers out of a part."""
    return CSS(string=UNNUMBERED, font_config=font_config)


class BookFetcher(URLFetcher):
    """WeasyPrint's fetcher for a book: ``data:`` URLs, and the book's own images under the
    addresses the book gave them (``book-image:<n>``), their bytes given; every other URL is
    refused (WeasyPrint then draws nothing, or the alt text), so nothing is read from a
    file or the network.

    Args:
        images: ``{address: (bytes, media type)}`` (none by default).
    """

    def __init__(self, images=None):
        super().__init__(allowed_protocols={"data"})
        self.images = images or {}

    def fetch(self, url, headers=None):
        """Return the response for ``url``: an image given, or what the allowed protocols
        give.

        Raises:
            ValueError: ``url``'s protocol is not allowed (WeasyPrint catches it).
        """
        if url not in self.images:
            return super().fetch(url, headers)
        data, content_type = self.images[url]
        return URLFetcherResponse(url, data, {"Content-Type": content_type})


class Pool:
    """Processes laying out a book's parts, at most ``processes`` at once, and at most
    ``processes + 1`` parts given them at a time, so that the parts' HTML waiting for a
    process stays bounded.

    The processes are started by a fork server (``multiprocessing``'s ``forkserver``),
    which has imported WeasyPrint and nothing of Django: they share no database connection
    nor thread with the task worker that builds the book. Each process does one thing (a
    part, or a part's numbers) and ends, which gives its memory back at once: a process
    holds one part's layout at most, and nothing is left for Python's cycle collector to
    find, which :func:`_start` makes run less often during the layout (a fifth of the
    layout's CPU time with its defaults). A script that builds a book runs its work under
    ``if __name__ == "__main__"``, as ``multiprocessing`` asks: the fork server imports the
    script's main module. Used as a context manager; leaving it waits for the processes to
    end, or cancels what is waiting when the block raised.

    Args:
        processes: the number of processes.
    """

    def __init__(self, processes):
        self.processes = processes
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        # Started now, the server imports WeasyPrint while the first part's HTML is made.
        forkserver.ensure_running()
        self._executor = ProcessPoolExecutor(
            processes, mp_context=context, initializer=_start, max_tasks_per_child=1
        )
        self._running = set()

    def __enter__(self):
        return self

    def __exit__(self, *raised):
        self._executor.shutdown(wait=True, cancel_futures=raised[0] is not None)

    def submit(self, function, *args):
        """Give ``function(*args)`` to a process, once fewer than ``processes + 1`` of what
        was given are unfinished; return its ``Future``.

        Raises:
            Exception: what a function given before raised, once it is seen to have.
        """
        while len(self._running) > self.processes:
            done, running = wait(self._running, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()
            self._running = set(running)
        future = self._executor.submit(function, *args)
        self._running.add(future)
        return future


def _start():
    """Start a process of the :class:`Pool`: Python's cycle collector runs once 50,000
    objects are made (700 by default); WeasyPrint's boxes are made by the hundred
    thousand and live until the part is written, so that the collector's frequent passes
    found little."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


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
