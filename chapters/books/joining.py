"""A book's parts joined into one PDF by pypdf: its pages in order, its links pointing at
the pages their targets landed on, and one outline of bookmarks.

Each part is a PDF of its own (:mod:`.parts`); a link from one part to an anchor in another
cannot be a link inside either, so every link within the book is written as a URI of its
own scheme (:data:`LINK_SCHEME`, ``wiki-book:<anchor>``), which WeasyPrint keeps as a link
annotation, and is turned here into a link to the anchor's page and point. The bookmarks
are written here too, one per node, nested as the nodes are, so that an area split over two
parts is still one bookmark with its sections under it. A part's page numbers, laid out
apart (:func:`~.parts.number_pages`), are drawn over its pages: each number page a form
(an XObject) the part's page draws after its own content.
"""

from urllib.parse import quote, unquote

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    Fit,
    FloatObject,
    NameObject,
    NumberObject,
)

from .parts import release_memory

__all__ = ["LINK_SCHEME", "book_link", "join"]

LINK_SCHEME = "wiki-book:"
# The name a page gives the form that draws its number.
NUMBER = "/WikiPageNumber"


def book_link(anchor):
    """Return the ``href`` of a link to ``anchor`` (an element's ``id``) in the book."""
    return LINK_SCHEME + quote(anchor, safe=":-_.")


def join(files, blank_pages, anchors, outline, path):
    """Write the PDF of a book's files joined to ``path``.

    Args:
        files: ``(file, numbers)`` of each PDF file, in order: the front matter, then the
            parts; ``numbers`` is the file of a part's page numbers, one page for each of
            its pages, drawn over them, or None.
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
    wrap = _stream(writer, b"q\n"), _stream(writer, f"Q q {NUMBER} Do Q\n".encode())
    for file, numbers in files:
        start = len(writer.pages)
        _append(writer, file)
        if numbers is not None:
            with open(numbers, "rb") as stream:
                reader = PdfReader(stream)
                for index, page in enumerate(reader.pages):
                    _draw_over(writer, writer.pages[start + index], page, wrap)
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


def _append(writer, file):
    """Append a PDF file's pages to ``writer``, without its outline."""
    with open(file, "rb") as stream:
        reader = PdfReader(stream)
        writer.append(reader, import_outline=False)
        # The writer keeps every reader it appended alive (pypdf's "PreventGC"), and a
        # reader keeps every object it parsed: the cache is emptied, as the reader is read
        # no more, or the parts' objects would all be held twice.
        reader.resolved_objects.clear()


def _stream(writer, data):
    """Add a content stream holding ``data`` to ``writer``; return its reference."""
    stream = DecodedStreamObject()
    stream.set_data(data)
    return writer._add_object(stream)


def _draw_over(writer, page, over, wrap):
    """Draw the page ``over`` (of another PDF) over ``page`` (of ``writer``), as a form.

    The page's own content is put between ``q`` and ``Q`` (WeasyPrint's leaves its
    transformation in place), then the form is drawn; its resources are its own, so that
    none of its names meets one of the page's.
    """
    form = DecodedStreamObject()
    form.set_data(over.get_contents().get_data())
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): ArrayObject(over.mediabox),
            NameObject("/Resources"): over["/Resources"].clone(writer),
        }
    )
    # The page's resources, and their forms, copied: another page may share them.
    resources = DictionaryObject(page["/Resources"].get_object())
    forms = DictionaryObject(resources.get("/XObject", DictionaryObject()).get_object())
    forms[NameObject(NUMBER)] = writer._add_object(form.flate_encode())
    resources[NameObject("/XObject")] = forms
    page[NameObject("/Resources")] = resources
    contents = page.raw_get("/Contents")
    contents = (
        list(contents.get_object()) if isinstance(contents.get_object(), list) else [contents]
    )
    page[NameObject("/Contents")] = ArrayObject([wrap[0], *contents, wrap[1]])


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
