"""The EPUB writer (chapters.books.epub): contents nested as the tree in the navigation
document and the NCX, formulas with their alt text, and a package that takes any file a
body needs, an image with its alt text, and still passes epubcheck."""

import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe

from chapters.books.content import MATHML, book_of
from chapters.books.epub import DOCUMENT, Package, render_epub
from tests.helpers import edit, node
from tests.images import image_bytes
from tests.test_books import epub_package, epubcheck

pytestmark = pytest.mark.usefixtures("books_root")

NAV = "{http://www.w3.org/1999/xhtml}"
NCX = "{http://www.daisy.org/z3986/2005/ncx/}"


def nav_outline(items, depth=0):
    """Return a navigation document's ``<ol>`` as ``(depth, title, href)`` rows."""
    rows = []
    for item in items.findall(f"{NAV}li"):
        link = item.find(f"{NAV}a")
        rows.append((depth, link.text, link.get("href")))
        for nested in item.findall(f"{NAV}ol"):
            rows.extend(nav_outline(nested, depth + 1))
    return rows


def ncx_outline(parent, depth=0):
    """Return an NCX's navigation points as ``(depth, title, src)`` rows, in play order."""
    rows = []
    for point in parent.findall(f"{NCX}navPoint"):
        title = point.find(f"{NCX}navLabel/{NCX}text").text
        rows.append((depth, title, point.find(f"{NCX}content").get("src")))
        rows.extend(ncx_outline(point, depth + 1))
    return rows


@pytest.mark.django_db
def test_epub_of_the_whole_curriculum_nests_its_contents_as_the_tree(small_tree, tmp_path):
    data = render_epub(book_of(None))
    archive, _, _, base = epub_package(data)
    expected = [
        (depth, title, f"n{node(title).pk}.xhtml")
        for depth, title in [
            (0, "Area A"),
            (1, "Section A1"),
            (2, "Chapter One"),
            (2, "Chapter Two"),
            (2, "Chapter Three"),
            (1, "Section A2"),
            (2, "Chapter Four"),
            (0, "Area B"),
            (1, "Section B1"),
            (2, "Chapter Five"),
            (2, "Chapter Six"),
        ]
    ]
    nav = ET.fromstring(archive.read(f"{base}/nav.xhtml")).find(f"{NAV}body/{NAV}nav")
    assert nav_outline(nav.find(f"{NAV}ol")) == expected
    ncx = ET.fromstring(archive.read(f"{base}/toc.ncx"))
    assert ncx_outline(ncx.find(f"{NCX}navMap")) == expected
    assert [point.get("playOrder") for point in ncx.iter(f"{NCX}navPoint")] == [
        str(number) for number in range(1, 12)
    ]
    status, printed = epubcheck(data, tmp_path)
    assert (status, "No errors or warnings detected." in printed) == (0, True), printed


@pytest.mark.django_db
def test_epub_formulas_carry_the_latex_they_were_written_in_as_alt_text(small_tree):
    edit("Chapter One", body="Fusing $k$ kernels saves $k-1$:\n\n$$T \\approx \\frac{a}{b}$$\n")
    chapter = node("Chapter One")
    archive, _, items, base = epub_package(render_epub(book_of(node("Section A1"))))
    page = ET.fromstring(archive.read(f"{base}/n{chapter.pk}.xhtml"))
    assert [math.get("alttext") for math in page.iter(f"{{{MATHML}}}math")] == [
        "k",
        "k-1",
        "T \\approx \\frac{a}{b}",
    ]
    assert {id: item.get("properties") for id, item in items.items()} == {
        "style-pygments-css": None,
        "style-book-css": None,
        f"n{node('Section A1').pk}": None,
        f"n{chapter.pk}": "mathml",
        f"n{node('Chapter Two').pk}": None,
        f"n{node('Chapter Three').pk}": None,
        "ncx": None,
        "nav": "nav",
    }


def test_package_packs_a_file_once_and_refuses_paths_that_need_escaping():
    package = Package()
    first = package.add("plot", "images/plot.png", "image/png", b"one")
    assert package.add("plot-again", "images/plot.png", "image/png", b"two") is first
    for href in ("../plot.png", "/plot.png", "images/a plot.png", "images/plot.png?v=2", "é.png"):
        with pytest.raises(ValueError):
            package.add("other", href, "image/png", b"")
    with pytest.raises(ValueError):
        package.add("plot", "images/other.png", "image/png", b"")
    assert list(package.items) == ["images/plot.png"]


def test_package_with_an_image_and_its_alt_text_passes_epubcheck(tmp_path):
    package = Package()
    image = package.add("i1", "images/plot.png", "image/png", image_bytes(40, 30))
    page = render_to_string(
        "books/epub/page.xhtml",
        {
            "node": SimpleNamespace(pk=1, title="Plots"),
            "body": mark_safe(
                f'<p><img src="{image.href}" alt="Launches fall as kernels fuse"/></p>'
            ),
            "stylesheets": [],
        },
    ).encode()
    document = package.add("n1", "n1.xhtml", DOCUMENT, page)
    nav = render_to_string(
        "books/epub/nav.xhtml",
        {"book": SimpleNamespace(title="Plots", nodes=[])},
    )
    nav = nav.replace("</h1>", '</h1><ol><li><a href="n1.xhtml">Plots</a></li></ol>').encode()
    package.add("nav", "nav.xhtml", DOCUMENT, nav, "nav")
    data = package.write(
        "Plots", "urn:uuid:8f0b7fd2-4c1e-4d43-9a55-2f0c8e8a1e01", timezone.now(), [document]
    )
    archive, _, items, base = epub_package(data)
    assert items["i1"].attrib == {"id": "i1", "href": "images/plot.png", "media-type": "image/png"}
    assert archive.read(f"{base}/images/plot.png") == image.data
    alt = ET.fromstring(archive.read(f"{base}/n1.xhtml")).find(f".//{NAV}img").get("alt")
    assert alt == "Launches fall as kernels fuse"
    status, printed = epubcheck(data, tmp_path)
    assert (status, "No errors or warnings detected." in printed) == (0, True), printed


@pytest.mark.django_db
def test_epub_holds_a_dot_diagram_as_svg_and_a_mermaid_one_as_source(small_tree, tmp_path):
    edit(
        "Chapter Four",
        body=(
            '```dot\ndigraph { label="Kernels"; Load -> Fuse }\n```\n\n'
            "```mermaid\nflowchart LR\n  Read --> Write\n```\n"
        ),
    )
    data = render_epub(book_of(node("Section A2")))
    archive, _, _, base = epub_package(data)
    chapter = ET.fromstring(archive.read(f"{base}/n{node('Chapter Four').pk}.xhtml"))
    svg = chapter.find(".//{http://www.w3.org/2000/svg}svg")
    assert svg.get("aria-label") == "Kernels"
    titles = svg.iterfind(
        ".//{http://www.w3.org/2000/svg}g[@class='node']/{http://www.w3.org/2000/svg}title"
    )
    assert [title.text for title in titles] == ["Load", "Fuse"]
    pre = chapter.find(f".//{NAV}pre[@class='mermaid']")
    assert pre.text == "flowchart LR\n  Read --> Write\n"
    status, printed = epubcheck(data, tmp_path)
    assert (status, "No errors or warnings detected." in printed) == (0, True), printed
