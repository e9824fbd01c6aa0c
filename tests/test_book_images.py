"""The wiki's own images in books (chapters.books.images): the PDF prints the copy that is
sharp at the page's width, read from storage; the EPUB packs the files with their alt
text and passes epubcheck; images from elsewhere, and the wiki's own not ready, are text;
nothing is fetched over the network or from files."""

import re
import subprocess
import threading
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chapters.books.content import body_element, book_of
from chapters.books.epub import render_epub
from chapters.books.images import PRINT_WIDTH, print_copy
from chapters.books.pdf import BookFetcher, render_pdf
from chapters.media import processing, uploads
from chapters.models import MediaItem
from tests.helpers import edit, library_image, node
from tests.images import image_bytes, upload
from tests.test_books import epubcheck, pdf_text
from tests.test_epub import NAV, epub_package

pytestmark = pytest.mark.usefixtures("books_root")


@pytest.fixture
def illustrated(small_tree):
    """Give Chapter One a wide image, a narrow one and one from elsewhere; return Section
    A1."""
    library_image("wide.png", 2400, 1600)
    library_image("narrow.png", 1200, 800)
    edit(
        "Chapter One",
        body=(
            "Before.\n\n![A wide plot](image:wide.png)\n\n![A narrow plot](image:narrow.png)\n\n"
            "![Again](image:narrow.png)\n\n![Theirs](https://elsewhere.example/plot.png)\n"
        ),
    )
    return node("Section A1")


def test_print_copy_is_the_widest_copy_that_fits_300_dpi_over_the_text():
    assert PRINT_WIDTH == 2008
    wide = MediaItem(
        name="wide.png", width=2400, height=1600, variants=[480, 960, 1920],
        content_type="image/png", file="library/wide.png/v1/wide.png",
    )  # fmt: skip
    assert print_copy(wide).__dict__ == {
        "name": "wide.png",
        "path": "library/wide.png/v1/1920.webp",
        "width": 1920,
        "height": 1280,
        "content_type": "image/webp",
    }
    narrow = MediaItem(
        name="narrow.png", width=1200, height=800, variants=[480, 960],
        content_type="image/png", file="library/narrow.png/v1/narrow.png",
    )  # fmt: skip
    assert (print_copy(narrow).path, print_copy(narrow).width) == (
        "library/narrow.png/v1/narrow.png",
        1200,
    )


@pytest.mark.django_db
def test_pdf_prints_each_image_once_at_its_print_copy_size(illustrated, tmp_path):
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(render_pdf(book_of(illustrated)))
    listing = subprocess.run(
        ["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    sizes = [tuple(map(int, row.split()[3:5])) for row in listing.splitlines()[2:]]
    assert sizes == [(1920, 1280), (1200, 800), (1200, 800)]
    objects = [row.split()[10] for row in listing.splitlines()[2:]]
    assert objects[1] == objects[2]  # the narrow image, shown twice, is one object
    text = pdf_text(pdf)
    assert "Theirs (https://elsewhere.example/plot.png)" in text
    assert "A wide plot" not in text and "A narrow plot" not in text


@pytest.mark.django_db
def test_epub_packs_the_print_copies_with_their_alt_text_and_passes_epubcheck(
    illustrated, tmp_path
):
    data = render_epub(book_of(illustrated))
    archive, _, items, base = epub_package(data)
    images = [item.attrib for item in items.values() if item.get("href").startswith("images/")]
    assert [(image["id"], image["href"], image["media-type"]) for image in images] == [
        ("image-wide-1920-jpg", "images/wide-1920.jpg", "image/jpeg"),
        ("image-narrow-1200-png", "images/narrow-1200.png", "image/png"),
    ]
    narrow = MediaItem.objects.get(name="narrow.png")
    assert archive.read(f"{base}/images/narrow-1200.png") == narrow.file.read()
    page = ET.fromstring(archive.read(f"{base}/n{node('Chapter One').pk}.xhtml"))
    assert [img.attrib for img in page.iter(f"{NAV}img")] == [
        {"alt": "A wide plot", "height": "1600", "src": "images/wide-1920.jpg", "width": "2400"},
        {"alt": "A narrow plot", "height": "800", "src": "images/narrow-1200.png", "width": "1200"},
        {"alt": "Again", "height": "800", "src": "images/narrow-1200.png", "width": "1200"},
    ]
    assert "Theirs (https://elsewhere.example/plot.png)" in "".join(page.itertext())
    status, printed = epubcheck(data, tmp_path)
    assert (status, "No errors or warnings detected." in printed) == (0, True), printed


@pytest.mark.django_db
def test_images_processing_or_failed_are_their_alt_text(small_tree):
    library_image("waiting.png", 300, 200, process=False)
    broken = uploads.add(
        upload("broken.png", image_bytes(300, 200)[:300]), title="T", alt="A", uploader=None
    )
    processing.process(broken.pk, broken.version)
    edit("Chapter One", body="![Still coming](image:waiting.png) ![Damaged](image:broken.png)")
    assert MediaItem.objects.get(name="broken.png").state == "failed"
    chapter = node("Chapter One")
    body = body_element(chapter, book_of(node("Section A1")), lambda t, f: "#", False, str)
    assert not list(body.iter("img"))
    assert re.sub(r"\s+", " ", "".join(body.itertext())).strip() == (
        "Still coming Image not available: Damaged"
    )


def test_book_fetcher_refuses_files_and_the_network():
    fetcher = BookFetcher()
    for url in ("file:///etc/hostname", "http://127.0.0.1:9/x.png", "https://example.org/x.png"):
        with pytest.raises(ValueError, match="disallowed protocol"):
            fetcher.fetch(url)


@pytest.mark.django_db
def test_pdf_with_images_of_the_local_host_and_files_fetches_nothing(small_tree, tmp_path):
    requests = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            requests.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            self.wfile.write(image_bytes(40, 30))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    secret = tmp_path / "secret.png"
    secret.write_bytes(image_bytes(40, 30))
    library_image("ours.png", 300, 200)
    port = server.server_address[1]
    edit(
        "Chapter One",
        body=(
            f"![Local](http://127.0.0.1:{port}/x.png) ![File](file://{secret}) "
            "![Ours](image:ours.png)"
        ),
    )
    try:
        pdf = tmp_path / "book.pdf"
        pdf.write_bytes(render_pdf(book_of(node("Section A1"))))
    finally:
        server.shutdown()
    assert requests == []
    listing = subprocess.run(
        ["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    assert [tuple(map(int, row.split()[3:5])) for row in listing.splitlines()[2:]] == [(300, 200)]
