"""A book's front matter: its title page and its contents, laid out a few entries at a time.

The contents' dot leaders are a box per dot in WeasyPrint's layout: the contents of the
2,000-node benchmark book, laid out whole, took about 270 MB. So the entries are laid out
:data:`CONTENTS_CHUNK` at a time, each chunk a document of its own numbered on from the one
before; the entries that land on a chunk's last page are laid out again at the top of the
next chunk's first page, and that last page dropped, so every page of the contents is as
full as it would be in one document.
"""

from django.template.loader import render_to_string

from .joining import book_link
from .parts import render

__all__ = ["CONTENTS_CHUNK", "lay_out_front"]

# Entries of the contents laid out at a time: four or five pages.
CONTENTS_CHUNK = 200


def lay_out_front(book, date, page_of, style, folder=None):
    """Lay out a book's front matter; return its number of pages and the files written.

    Args:
        book: the :class:`~.content.Book`.
        date: the date on the title page.
        page_of: returns the page number the contents give a node.
        style: ``(stylesheets, fetcher, font_config)``, as :func:`~.parts.render` takes.
        folder: where to write the front matter's PDF files (a ``pathlib.Path``), or None
            to count its pages only.

    Returns:
        ``(pages, files)``: the number of pages and the PDF files written, in order (none
        without ``folder``).
    """
    entries = [
        {"node": node, "href": book_link(f"n{node.pk}"), "page": page_of(node)}
        for node in book.nodes
    ]
    start, pages, files = 0, 0, []
    while True:
        chunk = entries[start : start + CONTENTS_CHUNK]
        context = {"book": book, "date": date, "entries": chunk, "opening": start == 0}
        html = render_to_string("books/front.html", context)
        document = render(html, *style, first_page=pages + 1)
        kept, start = _full_pages(document, chunk, start)
        if folder is not None:
            files.append(folder / f"front-{len(files)}.pdf")
            document.copy(kept).write_pdf(files[-1])
        pages += len(kept)
        if start >= len(entries):
            return pages, files


def _full_pages(document, chunk, start):
    """Return the pages of a chunk's document to keep, and the index of the entry the next
    chunk starts with: the first on its last page, unless the chunk is the contents' last
    (or all of it landed on its last page)."""
    if len(chunk) < CONTENTS_CHUNK:
        return document.pages, start + len(chunk)
    landed = document.pages[-1].anchors
    first = next(
        (index for index, entry in enumerate(chunk) if f"c{entry['node'].pk}" in landed), 0
    )
    if first == 0:
        return document.pages, start + len(chunk)
    return document.pages[:-1], start + first
