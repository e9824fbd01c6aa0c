"""Books: the PDF of an area opens with a right table of contents, the EPUB passes
epubcheck and a structural check of its package, and both are built once per version."""

import re
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from io import BytesIO

import pytest

from chapters.books.content import body_element, book_of
from chapters.books.epub import render_epub
from chapters.books.formulas import draw_math
from chapters.books.pdf import render_pdf
from tests.helpers import edit, node, soup

pytestmark = pytest.mark.usefixtures("books_root")

EPUBCHECK = "/usr/share/java/epubcheck.jar"  # Debian's epubcheck (.ci/run installs it)
# The JVM's options for a short run: the quick compiler only and one collector thread. An
# epubcheck of a small book then takes about 3 s of processor time, not 7: the default JVM
# spends the rest compiling, in threads of its own, code that runs once.
JAVA_SHORT_RUN = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]


def epubcheck(data, tmp_path):
    """Run Debian's epubcheck on an EPUB's bytes; return its exit status and what it printed.

    Args:
        data: the EPUB.
        tmp_path: a folder to write it in (pytest's ``tmp_path``).
    """
    book = tmp_path / "book.epub"
    book.write_bytes(data)
    result = subprocess.run(
        ["java", *JAVA_SHORT_RUN, "-jar", EPUBCHECK, str(book)],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, result.stdout + result.stderr


BODY = """\
## Kernels

Fusing $k$ kernels saves $k-1$ launches:

$$T \\approx \\frac{\\text{bytes}}{\\text{bandwidth}}$$

```python
def fused(x):
    return  relu(x + 1)   # two spaces kept
```

| op | cost |
|:--|--:|
| add | 1 |

- [x] done
- [ ] open

See [[Chapter Two]], [[Chapter Five]], [the docs](https://example.org/) and a note[^1].

![a plot](https://elsewhere.example/plot.png)

[^1]: A footnote.
"""


@pytest.fixture
def area_a(small_tree):
    """Give Chapter One a body with math, code, a table, links and a footnote; return Area A."""
    edit("Chapter One", body=BODY)
    edit("Chapter Three", body="\n\n".join(f"Paragraph {n}. " * 40 for n in range(60)))
    return node("Area A")


def pdf_text(path, *pages):
    """Return the text of a PDF's pages (all without ``pages``), laid out as printed."""
    span = ["-f", str(pages[0]), "-l", str(pages[-1])] if pages else []
    return subprocess.run(
        ["pdftotext", "-layout", *span, str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.django_db
def test_pdf_of_an_area_renders_and_its_contents_give_each_node_its_page(area_a, tmp_path):
    pdf = tmp_path / "area.pdf"
    pdf.write_bytes(render_pdf(book_of(area_a)))
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(pdf), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= 5
    assert "Area A" in pdf_text(pdf, 1) and "4 chapters" in pdf_text(pdf, 1)
    contents = re.findall(r"^ *(\S.*?) ?\.{3,} *(\d+)$", pdf_text(pdf, 2), re.MULTILINE)
    titles = [title for title, _ in contents]
    assert titles == [
        "Area A",
        "Section A1",
        "Chapter One",
        "Chapter Two",
        "Chapter Three",
        "Section A2",
        "Chapter Four",
    ]
    numbers = [int(page) for _, page in contents]
    assert numbers == sorted(numbers) and numbers[0] == 3 and numbers[-1] > numbers[0]
    for title, page in contents:
        heading = re.search(rf"^ *{re.escape(title)} *$", pdf_text(pdf, int(page)), re.MULTILINE)
        assert heading, f"{title} is not on page {page}"
    # Running headers: the first title set on the page, or the one before it; the pages that
    # Chapter Three fills alone are headed by it, and page numbers are at their feet.
    for page in range(numbers[4] + 1, numbers[5]):
        text = pdf_text(pdf, page).strip()
        assert text.startswith("Chapter Three") and text.endswith(str(page))
    assert pdf_text(pdf, numbers[5]).strip().startswith("Section A2")


@pytest.mark.django_db
def test_pdf_draws_formulas_as_svg_images_on_the_baseline(area_a):
    chapter = node("Chapter One")
    body = body_element(chapter, book_of(area_a), lambda target, fragment: "#", namespaced=False)
    draw_math(body)
    images = [image for image in body.iter("img") if "math" in image.get("class")]
    assert [image.get("class") for image in images] == ["math math-inline"] * 2 + [
        "math math-block"
    ]
    assert all(image.get("src").startswith("data:image/svg+xml;base64,") for image in images)
    assert re.fullmatch(
        r"width: [\d.]+em; height: [\d.]+em; vertical-align: -[\d.]+em", images[0].get("style")
    )
    assert images[0].get("alt") == "k"


@pytest.mark.django_db
def test_book_bodies_link_into_the_book_and_make_links_out_of_it_text(area_a):
    chapter = node("Chapter One")
    body = body_element(
        chapter, book_of(area_a), lambda t, fragment: f"<{t.title}|{fragment}>", namespaced=False
    )
    links = {a.text: a.get("href") for a in body.iter("a")}
    assert links["Chapter Two"] == "<Chapter Two|None>"
    assert links["the docs"] == "https://example.org/"
    assert links["1"] == f"<Chapter One|n{chapter.pk}-fn:1>"
    assert "Chapter Five" not in links
    spans = [span.text for span in body.iter("span") if not span.get("class")]
    assert "Chapter Five" in spans and "a plot (https://elsewhere.example/plot.png)" in spans
    assert not list(body.iter("img"))
    assert {h.get("id") for h in body.iter("h2")} == {f"n{chapter.pk}-kernels"}
    assert [td.get("style") for td in body.iter("td")] == ["text-align: left", "text-align: right"]


def epub_package(data):
    """Check an EPUB's structure as EPUB 3 requires it; return its archive and package
    document (OPF).

    The ``mimetype`` entry first and stored uncompressed; ``META-INF/container.xml`` naming
    the package document; every manifest item in the archive; every spine item in the
    manifest; one navigation document; every XHTML document well-formed XML.
    """
    archive = zipfile.ZipFile(BytesIO(data))
    first = archive.infolist()[0]
    assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)
    assert archive.read("mimetype") == b"application/epub+zip"
    container = ET.fromstring(archive.read("META-INF/container.xml"))
    ns = {
        "c": "urn:oasis:names:tc:opendocument:xmlns:container",
        "o": "http://www.idpf.org/2007/opf",
    }
    opf_path = container.find("c:rootfiles/c:rootfile", ns).get("full-path")
    opf = ET.fromstring(archive.read(opf_path))
    base = opf_path.rpartition("/")[0]
    items = {item.get("id"): item for item in opf.find("o:manifest", ns)}
    names = set(archive.namelist())
    assert all(f"{base}/{item.get('href')}" in names for item in items.values())
    assert all(ref.get("idref") in items for ref in opf.find("o:spine", ns))
    assert [i.get("href") for i in items.values() if "nav" in i.get("properties", "")] == [
        "nav.xhtml"
    ]
    for item in items.values():
        if item.get("media-type") == "application/xhtml+xml":
            ET.fromstring(archive.read(f"{base}/{item.get('href')}"))
    return archive, opf, items, base


@pytest.mark.django_db
def test_epub_of_an_area_passes_a_structural_check_and_keeps_code_and_math(area_a):
    data = render_epub(book_of(area_a))
    archive, opf, items, base = epub_package(data)
    one = node("Chapter One")
    assert items[f"n{one.pk}"].get("properties") == "mathml"
    assert items[f"n{node('Chapter Two').pk}"].get("properties") is None
    spine = [ref.get("idref") for ref in opf.find("{http://www.idpf.org/2007/opf}spine")]
    assert spine[0] == "nav" and len(spine) == 8
    page = archive.read(f"{base}/n{one.pk}.xhtml").decode()
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="k" display="inline">' in page
    site = one.body_html
    code = re.search(r"<pre>.*?</pre>", site, re.S)[0].replace("<span></span>", "<span/>")
    assert code in page
    nav = archive.read(f"{base}/nav.xhtml").decode()
    assert nav.index("Section A1") < nav.index("Chapter One") < nav.index("Chapter Four")


@pytest.mark.django_db
def test_epub_of_an_area_passes_epubcheck(area_a, tmp_path):
    status, printed = epubcheck(render_epub(book_of(area_a)), tmp_path)
    assert (status, "No errors or warnings detected." in printed) == (0, True), printed


@pytest.mark.django_db
def test_chapter_section_and_home_pages_link_to_their_books(small_tree, client):
    links = soup(client.get("/area-a/section-a1/chapter-one/")).select(".downloads a")
    assert [(a.text, a["href"]) for a in links] == [
        ("PDF", "/books/pdf/area-a/section-a1/chapter-one/"),
        ("EPUB", "/books/epub/area-a/section-a1/chapter-one/"),
    ]
    assert soup(client.get("/area-a/section-a1/chapter-one/")).select_one(".downloads").text == (
        "Download “Chapter One” as PDF / EPUB"
    )
    links = soup(client.get("/area-a/section-a1/")).select(".downloads a")
    assert [(a.text, a["href"]) for a in links] == [
        ("PDF", "/books/pdf/area-a/section-a1/"),
        ("EPUB", "/books/epub/area-a/section-a1/"),
    ]
    links = soup(client.get("/")).select(".downloads a")
    assert [a["href"] for a in links] == ["/books/pdf/", "/books/epub/"]
