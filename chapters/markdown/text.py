"""Read rendered HTML back: the text a reader reads in it, the wiki paths it links to, and
the images it would load from other sites.

Both read only what :func:`chapters.markdown.render_markdown` returns, sanitized HTML, and know
which parts of it the extensions added as marks rather than text (permalinks, footnote marks)
or as wiki links (which are recorded from the Markdown source instead).
"""

from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

from .formulas import FormulaTree, formula_text
from .sanitize import MATHML_TAGS

__all__ = ["external_images", "html_to_text", "html_to_text_and_sections", "internal_paths"]

# Links the extensions add that are marks, not text: heading permalinks ("¶"), footnote
# references (the number) and footnote back-links ("↩"); and the label naming a block of
# code's language ("Python": Pygments' filename, mdx/highlight.py).
MARK_LINK_CLASSES = frozenset({"headerlink", "footnote-ref", "footnote-backref"})
MARK_SPAN_CLASSES = frozenset({"filename"})

# Elements whose boundaries do not separate words ("<em>fus</em>ion" is one word); in a
# formula, only the cells of a matrix or array are apart ("O(n)" reads as written).
INLINE_TAGS = frozenset({"a", "abbr", "code", "del", "em", "span", "strong", "sup"}) | (
    MATHML_TAGS - {"mtable", "mtr", "mtd"}
)


MARKS = {"a": MARK_LINK_CLASSES, "span": MARK_SPAN_CLASSES}
# In a Graphviz diagram (mdx/diagrams.py), each node's and edge's ``title`` repeats its name
# ("a->b"): a tooltip, not text; the labels drawn are its ``text`` elements.
UNREAD_TAGS = frozenset({"title"})


HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


class _TextCollector(HTMLParser):
    """Collect the text of sanitized HTML, leaving out the marks (``MARKS``): for search, with
    a formula as its TeX source (``alttext``) rather than its MathML's text; for reading, cut
    into sections at the headings that have an id, with a formula as readable text
    (:func:`.formulas.formula_text`)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        # Each section: its heading's id ("" before the first heading), the parts of its
        # heading's text and the parts of its text.
        self.sections = [("", [], [])]
        self.reading = self.sections[0][2]
        self.in_mark = None  # the tag of the mark being read; marks hold only text
        self.in_heading = None  # the tag of the heading with an id being read
        self.formula = None  # the FormulaTree of the formula being read

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if self.formula is not None:
            self.formula.start(tag, attributes)
        if tag in MARKS and MARKS[tag] & set((attributes.get("class") or "").split()):
            self.in_mark = tag
        if tag in UNREAD_TAGS:
            self.in_mark = tag
        if tag == "math" and attributes.get("alttext"):
            self.parts.append(attributes["alttext"])
            self.formula = FormulaTree(attributes)
        if tag in HEADINGS and attributes.get("id") and self.in_heading is None:
            self.in_heading = tag
            self.sections.append((attributes["id"], [], []))
            self.reading = self.sections[-1][1]
        if tag not in INLINE_TAGS:
            self.parts.append(" ")
            if self.formula is None:
                self.reading.append(" ")

    def handle_endtag(self, tag):
        if tag == self.in_mark:
            self.in_mark = None
        if tag == "math" and self.formula is not None:
            self.reading.append(formula_text(self.formula))
            self.formula = None
        elif self.formula is not None:
            self.formula.end(tag)
        if tag == self.in_heading:
            self.in_heading = None
            self.reading = self.sections[-1][2]
        if tag not in INLINE_TAGS:
            self.parts.append(" ")
            self.reading.append(" ")

    def handle_data(self, data):
        if self.formula is not None:
            self.formula.text(data)
        elif self.in_mark is None:
            self.parts.append(data)
            self.reading.append(data)


def _one_line(parts):
    """Return text parts joined, with runs of whitespace as one space, stripped."""
    return " ".join("".join(parts).split())


def html_to_text(html):
    """Return the text a reader reads in HTML made by :func:`render_markdown`, on one line.

    Entities are decoded (the result is plain text, to be escaped wherever it is shown), block
    boundaries become spaces, runs of whitespace become one space, the permalink and
    footnote marks and code labels the extensions add are left out, as are a diagram's
    tooltips (its ``title`` elements: its labels are read), and a formula is its TeX
    source (its ``alttext``). Search matches this text.

    Args:
        html: sanitized HTML, as :func:`render_markdown` returns it; may be empty.

    Returns:
        The text, without leading or trailing whitespace ("" for an empty body).
    """
    return html_to_text_and_sections(html)[0]


def html_to_text_and_sections(html):
    """Return the text of HTML made by :func:`render_markdown`, and its sections, in one read.

    Args:
        html: sanitized HTML, as :func:`render_markdown` returns it; may be empty.

    Returns:
        A pair: the text that search matches (:func:`html_to_text`), and the sections that
        search quotes: a list of dicts, one per heading with an id, in document order, with
        the heading's ``id``, ``title`` (its text) and ``text`` (the text under it up to the
        next such heading), preceded by the text before the first heading (``id`` and
        ``title`` "") when there is any. Their text is read as in :func:`html_to_text`,
        but for a formula, which is readable text (``e^(z_i)/(∑_j e^(z_j))``,
        :func:`.formulas.formula_text`) rather than TeX.
    """
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    sections = [
        {"id": heading, "title": _one_line(title), "text": _one_line(text)}
        for heading, title, text in collector.sections
    ]
    if not sections[0]["text"]:
        del sections[0]
    return _one_line(collector.parts), sections


def internal_paths(html):
    """Return the wiki paths that ``<a href>`` in ``html`` point at, without ``[[links]]``.

    Only absolute paths on this site count ("/ml-systems/"), not other hosts, fragments,
    or links the wiki-link extension made.

    Args:
        html: sanitized HTML, as :func:`render_markdown` returns it.

    Returns:
        A list of stored-path strings ("ml-systems/ml-compilers"), in order, without repeats.
    """
    parser = _HrefParser()
    parser.feed(html)
    paths = []
    for href in parser.hrefs:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path.startswith("/"):
            continue
        path = unquote(parts.path).strip("/")
        if path and "\x00" not in path and path not in paths:
            paths.append(path)
    return paths


def external_images(html):
    """Return the URLs of images in ``html`` that are on other sites, in order, once each.

    Readers' browsers do not load them: the Content-Security-Policy allows images from this
    site only (``img-src 'self'``, wiki/settings.py). The editor's preview warns of them.

    Args:
        html: sanitized HTML, as :func:`render_markdown` returns it.
    """
    parser = _HrefParser()
    parser.feed(html)
    found = []
    for src in parser.image_sources:
        parts = urlsplit(src)
        if (parts.scheme or parts.netloc) and src not in found:
            found.append(src)
    return found


class _HrefParser(HTMLParser):
    """Collect the ``href`` of every ``<a>`` that is not a wiki link, and every ``<img>``'s
    ``src``."""

    def __init__(self):
        super().__init__()
        self.hrefs = []
        self.image_sources = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and "wikilink" not in (attributes.get("class") or "").split():
            self.hrefs.append(attributes.get("href") or "")
        if tag == "img":
            self.image_sources.append(attributes.get("src") or "")
