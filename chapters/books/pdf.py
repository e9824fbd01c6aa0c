"""A book as a PDF, laid out by WeasyPrint from one HTML document.

The document (``templates/books/book.html``) is a title page, the contents with page
numbers (CSS ``target-counter()``), then every node in tree order; ``static/css/book.css``
sets the pages: running headers with the chapter's title (``string-set``), page numbers,
PDF bookmarks, and code coloured by the site's own Pygments stylesheet.

WeasyPrint draws no MathML, so each formula is drawn as SVG by ziamath (from the MathML the
site shows, in the STIX Two Math font it carries) and placed as an image on the text's
baseline. The wiki's own images are the copies :mod:`.images` chooses, each given an address
of the book's own (``book-image:<n>``) that :class:`BookFetcher` reads from storage.
WeasyPrint fetches nothing else but ``data:`` URLs: no ``file://`` or ``http://`` address
in a body is ever read, and an image from another host is never requested.
"""

import base64
import xml.etree.ElementTree as ET
from functools import lru_cache

import ziamath
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from weasyprint import CSS, HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from .content import MATHML, body_element, to_xml

__all__ = ["BookFetcher", "render_pdf"]

STYLESHEETS = ("css/pygments.css", "css/book.css")
# The size ziamath draws formulas at, in its units; the images are scaled to the text.
MATH_SIZE = 20
# STIX Two Math's letters are smaller than the body font's at one size: drawn a little larger.
MATH_SCALE = 1.1

# ziamath's SVG 1.1 output draws each glyph as a path where its SVG 2 output reuses glyphs
# with <use>, which WeasyPrint draws several times slower (bench/README.md). The setting is
# ziamath's global one; nothing else in the project draws with ziamath.
ziamath.config.svg2 = False


def render_pdf(book, built=None, progress=None):
    """Return the PDF of a :class:`~.content.Book`, as bytes.

    Args:
        book: the book.
        built: the date printed on its title page (default: now).
        progress: called with each node once its page is made, before the whole is laid
            out (or None).
    """
    fetcher = BookFetcher()
    entries = []
    for node in book.nodes:
        body = body_element(node, book, _link, namespaced=False, image=fetcher.add)
        _draw_math(body)
        html = ET.tostring(body, encoding="unicode", method="html")
        # The stored body_html, sanitized on save (chapters.markdown), parsed and changed by
        # body_element and _draw_math only: ids, links, images and formulas.
        entries.append({"node": node, "body": mark_safe(html.removeprefix("<body>")[:-7])})
        if progress is not None:
            progress(node)
    page = render_to_string(
        "books/book.html", {"book": book, "entries": entries, "date": built or timezone.now()}
    )
    stylesheets = [CSS(filename=finders.find(name)) for name in STYLESHEETS]
    return HTML(string=page, url_fetcher=fetcher).write_pdf(stylesheets=stylesheets)


class BookFetcher(URLFetcher):
    """WeasyPrint's fetcher for a book: ``data:`` URLs, and the book's own images from
    storage, under the addresses :meth:`add` gave them; every other URL is refused
    (WeasyPrint then draws nothing, or the alt text)."""

    def __init__(self):
        super().__init__(allowed_protocols={"data"})
        self.images = {}
        self.urls = {}

    def add(self, copy):
        """Return the address of an image's :class:`~.images.Copy` in the book (one per
        copy, however many times the book shows it)."""
        if copy not in self.urls:
            self.urls[copy] = f"book-image:{len(self.urls) + 1}"
            self.images[self.urls[copy]] = copy
        return self.urls[copy]

    def fetch(self, url, headers=None):
        """Return the response for ``url``: a copy read from storage, or what the allowed
        protocols give.

        Raises:
            ValueError: ``url``'s protocol is not allowed (WeasyPrint catches it).
        """
        copy = self.images.get(url)
        if copy is None:
            return super().fetch(url, headers)
        return URLFetcherResponse(url, copy.read(), {"Content-Type": copy.content_type})


def _link(target, fragment):
    """Return the ``href`` of a node of the book, or of an id in it: an anchor."""
    return f"#{fragment or f'n{target.pk}'}"


def _draw_math(body):
    """Replace every MathML formula in ``body`` with an image of it (or its text, in the
    rare formula ziamath cannot draw)."""
    parents = {child: parent for parent in body.iter() for child in parent}
    for element in list(body.iter(f"{{{MATHML}}}math")):
        tail, element.tail = element.tail, None
        mathml = to_xml(element)
        display = element.get("display", "inline")
        attributes = _formula_image(mathml)
        if attributes is None:
            image = ET.Element("span", {"class": f"math-text math-{display}"})
            image.text = "".join(element.itertext())
        else:
            image = ET.Element("img", {**attributes, "class": f"math math-{display}"})
            image.set("alt", "".join(element.itertext()))
        image.tail = tail
        parent = parents[element]
        parent[list(parent).index(element)] = image


@lru_cache(maxsize=1024)
def _formula_image(mathml):
    """Return the ``src`` and ``style`` of an image of a formula, or None when ziamath
    cannot draw it.

    The SVG is a ``data:`` URL; the image is sized in ems, so it scales with the text, and
    lowered by the formula's depth below its baseline (``getyofst()``, negative).
    """
    try:
        formula = ziamath.Math(mathml, size=MATH_SIZE)
        svg = formula.svg()
        width, height = formula.getsize()
        baseline = formula.getyofst()
    except Exception:  # ziamath raises many kinds of errors for what it cannot lay out
        return None
    scale = MATH_SCALE / MATH_SIZE
    style = (
        f"width: {width * scale:.3f}em; height: {height * scale:.3f}em; "
        f"vertical-align: {baseline * scale:.3f}em"
    )
    return {
        "src": "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode(),
        "style": style,
    }
