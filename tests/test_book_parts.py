"""Books laid out in parts (chapters/books/parts.py, joining.py): one contents whose page
numbers are the pages the headings land on, page numbers that run on across the parts'
joins, running heads, one bookmark per node in order, links across parts; and code with as
few spans as draw the same colours (chapters/books/code.py)."""

import multiprocessing.util
import re
import tempfile
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

import pytest
from django.db import transaction
from django.test import override_settings
from pypdf import PdfReader

from chapters.books import front, parts
from chapters.books.builds import BookKey, build
from chapters.books.code import fewer_spans
from chapters.books.content import book_of
from chapters.books.parts import part_size, split
from chapters.books.pdf import book_style, render_pdf
from chapters.models import BookBuild
from tests import failing_layout
from tests.helpers import build_tree, edit
from tests.test_books import pdf_text

# Run in parallel (bin/test -n 2 --dist loadgroup), the module's tests go to one worker, which
# builds the book they share (``parted``) once.
pytestmark = [pytest.mark.usefixtures("books_root"), pytest.mark.xdist_group("book_parts")]

TITLES = [
    "Area A",
    "Section A1",
    "Chapter One",
    "Chapter Two",
    "Chapter Three",
    "Section A2",
    "Chapter Four",
    "Area B",
    "Section B1",
    "Chapter Five",
    "Chapter Six",
]
DEPTHS = [0, 1, 2, 2, 2, 1, 2, 0, 1, 2, 2]
BUILT = datetime(2026, 12, 3, tzinfo=UTC)


def paragraphs(count):
    """Return ``count`` paragraphs of about five lines each."""
    return "\n\n".join(f"Paragraph {n}. " * 40 for n in range(count))


@pytest.fixture(scope="module")
def parted(small_tree_snapshot, django_db_blocker, tmp_path_factory):
    """Build the small tree's whole book in parts of two nodes (three parts, the second
    starting inside Area A), laid out by two processes, once for the module's tests; return
    its file.

    The tree and its edits are written in a transaction rolled back once the book is built,
    so each test starts from an empty database, as from its own fixtures.
    """
    folder = tmp_path_factory.mktemp("parted")
    pdf = folder / "book.pdf"
    settings = override_settings(
        BOOK_PART_SIZE=2, BOOK_LAYOUT_PROCESSES=2, BOOKS_ROOT=folder / "books"
    )
    with django_db_blocker.unblock(), settings, transaction.atomic():
        small_tree_snapshot.restore()
        edit_parted()
        pdf.write_bytes(render_pdf(book_of(None)))
        transaction.set_rollback(True)
    return pdf


def edit_parted():
    """Give the small tree's chapters the bodies of :func:`parted`'s book."""
    edit("Chapter One", body="See [[Chapter Five]] and [[Chapter Four]].\n\n" + paragraphs(12))
    edit("Chapter Three", body=paragraphs(30))
    edit("Chapter Six", body=paragraphs(30))


def contents(pdf):
    """Return the contents' ``(title, page)`` pairs, as printed on page 2."""
    found = re.findall(r"^ *(\S.*?) ?\.{3,} *(\d+)$", pdf_text(pdf, 2), re.MULTILINE)
    return [(title, int(page)) for title, page in found]


def link_targets(reader, page):
    """Return the page numbers a PDF page's links lead to, one per line of links, from the
    top; on a line, from the left."""
    numbers = {p.indirect_reference.idnum: n + 1 for n, p in enumerate(reader.pages)}
    lines = {}
    for reference in reader.pages[page - 1]["/Annots"]:
        annotation = reference.get_object()
        x, y = round(annotation["/Rect"][0]), round(annotation["/Rect"][1])
        lines.setdefault(-y, {}).setdefault(x, numbers[annotation["/Dest"][0].idnum])
    return [[target for _x, target in sorted(line.items())] for _y, line in sorted(lines.items())]


def bookmarks(reader):
    """Return a PDF's bookmarks in order: ``(title, depth, page)``, the page counted from
    1."""

    def flat(items, depth=0):
        for item in items:
            if isinstance(item, list):
                yield from flat(item, depth + 1)
            else:
                yield item.title, depth, reader.get_destination_page_number(item) + 1

    return list(flat(reader.outline))


@pytest.mark.django_db
def test_split_ends_a_part_at_an_area_once_full_or_anywhere_at_twice_its_size(small_tree):
    nodes = book_of(None).nodes
    assert [[node.title for node in part] for part in split(nodes, 2)] == [
        TITLES[:4],
        TITLES[4:7],
        TITLES[7:],
    ]
    assert [[node.title for node in part] for part in split(nodes, 3)] == [
        TITLES[:6],
        TITLES[6:],
    ]
    assert [[node.title for node in part] for part in split(nodes, 50)] == [TITLES]


@pytest.mark.django_db
def test_book_in_parts_has_one_contents_giving_the_page_each_heading_lands_on(parted):
    entries = contents(parted)
    assert [title for title, _ in entries] == TITLES
    pages = [page for _, page in entries]
    assert pages == sorted(pages) and pages[0] == 3
    # Chapter Three starts the second part and Area B the third, each on a page of its own.
    assert pages[4] > pages[3] and pages[7] > pages[6]
    for title, page in entries:
        heading = re.search(rf"^ *{re.escape(title)} *$", pdf_text(parted, page), re.MULTILINE)
        assert heading, f"{title} is not on page {page}"


@pytest.mark.django_db
def test_book_in_parts_numbers_its_pages_on_and_heads_them_with_the_chapter(parted):
    pages = [page for _, page in contents(parted)]
    count = len(PdfReader(parted).pages)
    assert count > pages[-1] >= pages[7] > pages[4]
    for page in range(2, count + 1):
        lines = [line.strip() for line in pdf_text(parted, page).splitlines() if line.strip()]
        assert lines[-1] == str(page), f"page {page} is numbered {lines[-1]}"
        if page < pages[0]:
            continue
        starting = [title for title, first in zip(TITLES, pages, strict=True) if first == page]
        before = [title for title, first in zip(TITLES, pages, strict=True) if first < page]
        assert lines[0] == (starting or before[-1:])[0], f"page {page} is headed {lines[0]}"


@pytest.mark.django_db
def test_book_in_parts_has_one_bookmark_per_node_in_order_nested_as_the_tree(parted):
    pages = [page for _, page in contents(parted)]
    assert bookmarks(PdfReader(parted)) == list(zip(TITLES, DEPTHS, pages, strict=True))


@pytest.mark.django_db
def test_book_in_parts_links_across_parts_and_from_the_contents_to_their_pages(parted):
    reader = PdfReader(parted)
    pages = dict(contents(parted))
    # An entry's title and its dots and number are a link each, to its node's page.
    assert [set(line) for line in link_targets(reader, 2)] == [{pages[t]} for t in TITLES]
    one = pages["Chapter One"]
    assert link_targets(reader, one)[0] == [pages["Chapter Five"], pages["Chapter Four"]]


@pytest.mark.django_db
def test_book_laid_out_by_one_process_is_the_one_laid_out_by_two(
    parted, small_tree, settings, tmp_path
):
    settings.BOOK_PART_SIZE = 2
    settings.BOOK_LAYOUT_PROCESSES = 1
    edit_parted()
    alone = tmp_path / "alone.pdf"
    alone.write_bytes(render_pdf(book_of(None)))
    two, one = PdfReader(parted), PdfReader(alone)
    count = len(two.pages)
    assert len(one.pages) == count
    assert contents(alone) == contents(parted)
    assert bookmarks(one) == bookmarks(two)
    assert [title for title, _depth, _page in bookmarks(one)] == TITLES
    linking = [page for page in range(1, count + 1) if "/Annots" in two.pages[page - 1]]
    assert len(linking) == 2
    assert [link_targets(one, page) for page in linking] == [
        link_targets(two, page) for page in linking
    ]
    assert pdf_text(alone, 2, count) == pdf_text(parted, 2, count)


@pytest.mark.django_db
def test_part_failing_in_its_process_fails_the_build_and_leaves_no_file(
    small_tree, settings, monkeypatch, tmp_path
):
    settings.BOOK_PART_SIZE = 2
    settings.BOOK_LAYOUT_PROCESSES = 2
    monkeypatch.setattr(parts, "lay_out_part", failing_layout.lay_out_part)
    # The book's temporary folder goes under tmp_path; multiprocessing's own (the fork
    # server's socket, a path of at most 107 bytes) is made first, in the usual place, and
    # kept for the process: made under tmp_path, it would be too long, and gone after this test.
    multiprocessing.util.get_temp_dir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temporary"))
    (tmp_path / "temporary").mkdir()
    key = BookKey(None, "pdf", "v1")
    BookBuild.objects.create(root=None, format="pdf", version="v1")
    assert build(key) == BookBuild.Status.FAILED
    row = key.builds.get()
    assert row.error == f"RuntimeError('{failing_layout.MESSAGE}')"
    assert not settings.BOOKS_ROOT.exists() or list(settings.BOOKS_ROOT.rglob("*")) == []
    assert list((tmp_path / "temporary").iterdir()) == []


def test_part_size_cuts_a_book_into_two_parts_per_process_down_to_ten_nodes():
    assert part_size(41, 25, 2) == 11
    assert part_size(41, 25, 1) == 21
    assert part_size(222, 25, 2) == 25
    assert part_size(11, 25, 2) == 10
    assert part_size(11, 2, 2) == 2


def test_fewer_spans_drops_spans_that_change_nothing_and_joins_neighbours():
    body = ET.fromstring(
        '<body><pre><span></span><code><span class="kn">import</span><span class="w"> </span>'
        '<span class="nn">time</span>\n<span class="n">x</span> <span class="o">=</span>'
        '<span class="w"> </span><span class="o">-</span><span class="mi">1</span> '
        '<span class="err">!</span> <span class="err">?</span><span class="err">?</span>'
        "</code></pre><p><span>kept</span></p></body>"
    )
    fewer_spans(body)
    assert ET.tostring(body, encoding="unicode", method="html") == (
        '<body><pre><code><span class="kn">import</span> <span class="nn">time</span>\nx '
        '<span class="o">= -1</span> <span class="err">!</span> '
        '<span class="err">??</span></code></pre><p><span>kept</span></p></body>'
    )


@pytest.mark.django_db
def test_contents_laid_out_in_chunks_fills_its_pages_as_one_document_would(monkeypatch, tmp_path):
    build_tree(
        "".join(
            f"Area {a}\n"
            + "".join(
                f"  Section {a}{s}\n" + "".join(f"    Chapter {a}{s}{c}\n" for c in range(20))
                for s in range(3)
            )
            for a in range(2)
        )
    )
    book = book_of(None)

    def pages(chunk, folder):
        monkeypatch.setattr(front, "CONTENTS_CHUNK", chunk)
        folder.mkdir()
        count, files = front.lay_out_front(book, BUILT, lambda node: node.pk, book_style(), folder)
        texts = [page for file in files for page in pdf_text(file).split("\f")[:-1]]
        assert len(texts) == count
        return len(files), [
            [line.strip() for line in t.splitlines() if line.strip()] for t in texts
        ]

    whole, chunked = pages(1000, tmp_path / "whole"), pages(50, tmp_path / "chunked")
    assert whole[0] == 1 and chunked[0] == 3
    assert chunked[1] == whole[1] and len(whole[1]) == 4
    assert [lines[-1] for lines in whole[1][1:]] == ["2", "3", "4"]
    assert whole[1][3][0].startswith("Section 11 ....")
