"""Rendered bodies made ready for paper: the print page's and the books'.

Stored bodies are the screen's (``loading="lazy"`` images, code blocks as they are). On
paper, a short block of code should never be split across pages, while a long one should
start where it falls and keep its label with its first lines (``static/css/print.css``,
``static/css/book.css``); CSS cannot count a block's lines, so :func:`mark_short_code` marks
the short ones with the class ``code-short``. A lazy image not yet scrolled to prints blank,
so :func:`for_print` loads every image at once. The print page holds many bodies, whose
headings and footnotes may have the same ids ("summary", "fn:1"), so :func:`for_print`
gives each body's ids and in-page links a prefix of their own, as the books do
(``chapters/books/content.py``).

Both read only what :func:`chapters.markdown.render_markdown` returns: a block of code is
Pygments' ``<div class="highlight">``, with its language's ``<span class="filename">``
label or without, around one ``<pre>`` (``mdx/highlight.py``), or a ``<pre>`` alone (code
left plain), whose text never holds a ``<`` that is not markup.
"""

import re

__all__ = ["SHORT_CODE_LINES", "for_print", "mark_short_code"]

# A block of code this many lines long or shorter is kept on one page (static/js/page.js
# marks the chapter pages' blocks by the same count).
SHORT_CODE_LINES = 25

_CODE = re.compile(
    r'(?P<open><div class="highlight">(?:<span class="filename">[^<]*</span>)?)?'
    r"<pre(?P<attributes>[^>]*)>(?P<code>.*?)</pre>",
    re.DOTALL,
)
_TAG = re.compile(r"<[^>]*>")
_LAZY = re.compile(r'(<img\b[^>]*?) loading="lazy"')
# An element's start tag (text never holds a "<" that is not markup), and in it an id or a
# link within the page, as the sanitizer writes them (double quotes).
_START_TAG = re.compile(r"<[a-zA-Z][^>]*>")
_OWN_ANCHOR = re.compile(r'(\s(?:id="|href="#))(?=[^"])')


def mark_short_code(html):
    """Return ``html`` with each block of code of at most :data:`SHORT_CODE_LINES` lines
    marked ``code-short``: Pygments' ``div``, or a plain ``pre`` without a class of its
    own."""

    def mark(match):
        lines = _TAG.sub("", match["code"]).rstrip("\n").count("\n") + 1
        if lines > SHORT_CODE_LINES:
            return match[0]
        if match["open"]:
            return match[0].replace(
                '<div class="highlight">', '<div class="highlight code-short">', 1
            )
        if "class=" in match["attributes"]:
            return match[0]
        return f'<pre class="code-short"{match["attributes"]}>{match["code"]}</pre>'

    return _CODE.sub(mark, html)


def for_print(html, prefix=""):
    """Return a body's ``html`` for the print page: short code marked
    (:func:`mark_short_code`), no image loaded lazily, so the browser loads every image
    before it prints, and ``prefix`` put before each id and each link to one (``#id``), so
    that the bodies of one page keep their ids apart.

    Args:
        html: a body's HTML, as :func:`chapters.markdown.render_markdown` returns it.
        prefix: the body's prefix (the print page's: ``n<pk>-``), or "" for none.
    """
    html = _LAZY.sub(r"\1", mark_short_code(html))
    if not prefix:
        return html
    return _START_TAG.sub(lambda tag: _OWN_ANCHOR.sub(rf"\g<1>{prefix}", tag[0]), html)
