"""A book's parts joined into one PDF by pypdf: its pages in order, its links pointing at
the pages their targets landed on, and one outline of bookmarks.

Each part is a PDF of its own (:mod:`.parts`); a link from one part to an anchor in another
cannot be a link inside either, so every link within the book is written as a URI of its
own scheme (:data:`LINK_SCHEME`, ``wiki-book:<anchor>``), which WeasyPrint keeps as a link
annotation, and is turned here into a link to the anchor's page and point. The bookmarks
are written here too, one per node, nested as the nodes are, so that an area split over two
parts is still one bookmark with its sections under it.
"""

from urllib.parse import quote, unquote

from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, Fit, FloatObject, NameObject, NumberObject

from .parts import release_memory

__all__ = ["LINK_SCHEME", "book_link", "join"]

LINK_SCHEME = "wiki-book:"


def book_link(anchor):
    """Return the ``href`` of a link to ``anchor`` (an element's ``id``) in the book."""
    return LINK_SCHEME + quote(anchor, safe=":-_.")


def join(files, blank_pages, anchors, outline, path):
    """Write the PDF of a book's files joined to ``path``.

    Args:
        files: the PDF files, in order: the front matter, then the parts.
        blank_pages: ``(index, count)``: blank pages to insert at that index (the front
            matter's pages short of those its parts were numbered after), or None.
        anchors: the book's :class:`~.parts.Anchor` by name, page indices counted in the
            joined book.
        outline: ``(title, depth, anchor)`` of each bookmark, in order; ``depth`` 0 for a
            top one, each other under the last one a level up.
        path: the joined PDF's file.

    Raises:
        KeyError: a bookmark's anchor is not in ``anchors``.
    """
    writer = PdfWriter()
    for file in files:
        with open(file, "rb") as stream:
            reader = PdfReader(stream)
            writer.append(reader, import_outline=False)
            # The writer keeps every reader it appended alive (pypdf's "PreventGC"), and a
            # reader keeps every object it parsed: the cache is emptied, as the reader is
            # read no more, or the parts' objects would all be held twice.
            reader.resolved_objects.clear()
    if blank_pages is not None:
        index, count = blank_pages
        box = writer.pages[0].mediabox
        for _ in range(count):
            writer.insert_blank_page(box.width, box.height, index)
    _resolve_links(writer, anchors)
    parents = []
    for title, depth, name in outline:
        anchor = anchors[name]
        del parents[depth:]
        parents.append(
            writer.add_outline_item(
                title=title,
                page_number=anchor.page,
                parent=parents[-1] if parents else None,
                fit=Fit.xyz(left=anchor.x, top=anchor.y),
            )
        )
    writer.page_mode = "/UseOutlines"
    writer.write(path)
    del writer
    release_memory()


def _resolve_links(writer, anchors):
    """Point every ``wiki-book:`` link of the book at its anchor's page and point; remove
    one whose anchor is nowhere in the book, as WeasyPrint removes a link to a missing
    anchor."""
    for page in writer.pages:
        annotations = page.get("/Annots")
        if annotations is None:
            continue
        kept = ArrayObject()
        for reference in annotations.get_object():
            annotation = reference.get_object()
            uri = str(annotation.get("/A", {}).get("/URI", ""))
            if uri.startswith(LINK_SCHEME):
                anchor = anchors.get(unquote(uri.removeprefix(LINK_SCHEME)))
                if anchor is None:
                    continue
                del annotation["/A"]
                annotation[NameObject("/Dest")] = ArrayObject(
                    [
                        writer.pages[anchor.page].indirect_reference,
                        NameObject("/XYZ"),
                        FloatObject(anchor.x),
                        FloatObject(anchor.y),
                        NumberObject(0),
                    ]
                )
            kept.append(reference)
        page[NameObject("/Annots")] = kept
