"""Render a node's Markdown body to sanitized HTML, and that HTML to the text a reader reads.

This is the only module that knows which Markdown extensions the wiki uses, which HTML the
sanitizer lets through, and which parts of that HTML are marks rather than text. The allowlist
keeps exactly what those extensions produce and drops everything else, so raw HTML in a body
can add nothing that Markdown could not have written.
"""

import xml.etree.ElementTree as etree
from html import unescape
from html.parser import HTMLParser

import bleach
import markdown
from markdown.extensions import Extension
from markdown.extensions.toc import slugify_unicode
from markdown.inlinepatterns import InlineProcessor

__all__ = [
    "MarkdownError",
    "WIKI_LINK",
    "render_markdown",
    "render_markdown_with_headings",
    "html_to_text",
]

EXTENSIONS = [
    "tables",
    "fenced_code",
    "codehilite",
    "footnotes",
    "toc",
    "sane_lists",
    "admonition",  # callouts: "!!! note", "!!! tip", "!!! warning" (Python-Markdown's own)
    "def_list",
    "pymdownx.tasklist",  # "- [ ]" and "- [x]": Python-Markdown has no task lists
    "chapters.mathml:MathExtension",  # $...$, $$...$$, \(...\), \[...\] to MathML
    "chapters.nested_lists:NestedListExtension",  # lists nested by two spaces, as by four
]

EXTENSION_CONFIGS = {
    # Alignment as an attribute keeps ``style`` (and a CSS sanitizer) out of the allowlist.
    "tables": {"use_align_attribute": True},
    # Pygments classes under ``.highlight``, matching static/css/pygments.css.
    "codehilite": {"css_class": "highlight", "guess_lang": False},
    # Stable heading ids, also for headings in non-Latin scripts.
    "toc": {
        "slugify": slugify_unicode,
        "permalink": True,
        "permalink_title": "Link to this heading",
    },
}

# The MathML that latex2mathml writes (see chapters/mathml.py), and no more. Left out on
# purpose: href (Firefox follows it on any MathML element), style, class and xlink:href,
# which latex2mathml writes for \href, \style and \class; maction; and semantics and
# annotation-xml, whose HTML content is the usual way into mutation XSS.
MATHML_TAGS = frozenset(
    {
        "math", "menclose", "mfrac", "mi", "mn", "mo", "mover", "mpadded", "mphantom",
        "mroot", "mrow", "mspace", "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable",
        "mtd", "mtext", "mtr", "munder", "munderover",
    }
)  # fmt: skip

MATHML_ATTRIBUTES = {
    "math": ["display"],
    "menclose": ["notation"],
    "mfrac": ["linethickness"],
    "mi": ["mathvariant"],
    "mn": ["mathvariant"],
    "mo": [
        "accent", "fence", "form", "largeop", "lspace", "maxsize", "minsize",
        "movablelimits", "rspace", "separator", "stretchy",
    ],
    "mover": ["accent"],
    "mpadded": ["depth", "height", "lspace", "mathbackground", "voffset", "width"],
    "mspace": ["depth", "height", "linebreak", "mathbackground", "width"],
    "mstyle": ["displaystyle", "mathcolor", "mathsize", "scriptlevel"],
    "mtable": ["columnlines", "columnspacing", "displaystyle", "rowlines", "rowspacing"],
    "mtd": ["columnalign"],
    "mtext": ["mathvariant"],
}  # fmt: skip

ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4",
        "h5", "h6", "hr", "img", "li", "ol", "p", "pre", "span", "strong", "sup", "table",
        "tbody", "td", "th", "thead", "tr", "ul",
    }
) | {"dd", "dl", "dt", "input"} | MATHML_TAGS  # fmt: skip

HEADING_ATTRIBUTES = ["id"]


def _only(values):
    """Return a bleach attribute filter that keeps the attributes named in ``values``.

    Args:
        values: a mapping of attribute name to the set of values allowed, or None for any.

    Returns:
        A function ``(tag, name, value) -> bool``, as bleach takes in ``attributes``.
    """

    def allow(tag, name, value):
        return name in values and (values[name] is None or value in values[name])

    return allow


ALLOWED_ATTRIBUTES = {
    "a": ["href", "title", "class"],  # footnote-ref, footnote-backref, headerlink, wikilink
    "abbr": ["title"],
    "code": ["class"],  # language-* from fenced code without highlighting
    "div": ["class"],  # highlight, footnote, admonition
    "img": ["src", "alt", "title"],
    # A task list's checkbox, disabled by pymdownx.tasklist; no other kind of input.
    "input": _only({"type": {"checkbox"}, "checked": None, "disabled": None}),
    "li": _only({"id": None, "class": {"task-list-item"}}),  # footnote targets, tasks
    "ol": ["start"],
    "p": _only({"class": {"admonition-title"}}),
    "span": ["class", "title"],  # Pygments token classes; broken wiki links
    "sup": ["id"],  # footnote references
    "td": ["align"],
    "th": ["align"],
    "ul": _only({"class": {"task-list"}}),
    **{f"h{level}": HEADING_ATTRIBUTES for level in range(1, 7)},
    **MATHML_ATTRIBUTES,
}

# bleach checks href and src against this list after decoding entities and dropping case and
# whitespace, so "JaVa&#x09;script:" is caught as well; relative URLs are always allowed.
ALLOWED_PROTOCOLS = frozenset({"http", "https", "mailto"})


# [[Target]] or [[Target|shown text]]; the target is a title or a path of titles
# ("ML Compilers/Graph Optimization and Kernel Fusion"), as in MediaWiki's internal links.
WIKI_LINK = r"\[\[([^\[\]|\n]+)(?:\|([^\[\]\n]+))?\]\]"


class WikiLinkProcessor(InlineProcessor):
    """Turn ``[[Target|text]]`` into a link, or into a marked broken link, via ``resolve``.

    ``resolve(target)`` returns ``(href, problem)``: an ``href`` for a link, or None and a
    sentence saying why there is none (shown as the broken link's tooltip). A broken link is
    a ``<span>``, so a reader never follows it to a 404.
    """

    def __init__(self, pattern, md, resolve):
        super().__init__(pattern, md)
        self.resolve = resolve

    def handleMatch(self, match, data):  # noqa: N802 (Python-Markdown's name)
        target = " ".join(match.group(1).split())
        text = (match.group(2) or target.rsplit("/", 1)[-1]).strip()
        href, problem = self.resolve(target)
        if href:
            element = etree.Element("a", {"href": href, "class": "wikilink"})
        else:
            element = etree.Element("span", {"class": "wikilink-broken", "title": problem})
        element.text = text
        return element, match.start(0), match.end(0)


class WikiLinkExtension(Extension):
    """Register :class:`WikiLinkProcessor` before Markdown's own ``[text](url)`` links."""

    def __init__(self, resolve):
        super().__init__()
        self.resolve = resolve

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        # 175: after code spans and escapes (190, 180), before links and references (160, 170).
        md.inlinePatterns.register(WikiLinkProcessor(WIKI_LINK, md, self.resolve), "wikilink", 175)


def _unresolved(target):
    """Resolve no wiki link: the default when a caller gives no resolver."""
    return None, f"No page is linked for “{target}”."


class MarkdownError(ValueError):
    """A Markdown text that cannot be rendered (for example, lists nested too deeply)."""


def render_markdown(text, resolve_link=_unresolved):
    """Render Markdown to HTML that is safe to insert into a page.

    See :func:`render_markdown_with_headings`, of which this is the HTML.
    """
    return render_markdown_with_headings(text, resolve_link)[0]


def render_markdown_with_headings(text, resolve_link=_unresolved):
    """Render Markdown to HTML that is safe to insert into a page, and list its headings.

    Python-Markdown renders the text with tables, fenced code highlighted by Pygments,
    footnotes, heading ids, callouts, definition lists, task lists, math (as MathML),
    lists nested by two or four spaces and ``[[wiki links]]``; bleach then removes every
    tag, attribute and URL scheme that is not in this module's allowlist (disallowed tags
    are stripped, their text kept as text).

    Args:
        text: the Markdown source; may be empty.
        resolve_link: ``resolve(target) -> (href, problem)`` for ``[[target]]`` (see
            :class:`WikiLinkProcessor`); by default every wiki link is shown as broken.

    Returns:
        A pair: the sanitized HTML as a string ("" for an empty text), and the headings in
        document order, each a dict with ``level`` (1 to 6), ``id`` (as in the HTML) and
        ``title`` (plain text, to be escaped where shown), as the toc extension lists them.

    Raises:
        MarkdownError: Python-Markdown ran out of recursion depth (it parses nested blocks
            recursively; about a thousand levels of nested lists or quotes exhaust it).
    """
    if not text:
        return "", []
    md = markdown.Markdown(
        extensions=[*EXTENSIONS, WikiLinkExtension(resolve_link)],
        extension_configs=EXTENSION_CONFIGS,
        output_format="html",
    )
    try:
        html = md.convert(text)
    except RecursionError as error:
        raise MarkdownError(
            "The text nests lists, quotes or other blocks too deeply to be rendered."
        ) from error
    html = bleach.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        protocols=ALLOWED_PROTOCOLS,
        strip=True,
        strip_comments=True,
    )
    return html, list(_flatten_headings(md.toc_tokens))


def _flatten_headings(tokens):
    """Yield the toc extension's nested heading tokens in document order, as plain dicts."""
    for token in tokens:
        # "name" is the heading's text with tags removed and HTML-escaped.
        yield {"level": token["level"], "id": token["id"], "title": unescape(token["name"])}
        yield from _flatten_headings(token["children"])


# Links the extensions add that are marks, not text: heading permalinks ("¶"), footnote
# references (the number) and footnote back-links ("↩").
MARK_LINK_CLASSES = frozenset({"headerlink", "footnote-ref", "footnote-backref"})

# Elements whose boundaries do not separate words ("<em>fus</em>ion" is one word); in a
# formula, only the cells of a matrix or array are apart ("O(n)" reads as written).
INLINE_TAGS = frozenset({"a", "abbr", "code", "del", "em", "span", "strong", "sup"}) | (
    MATHML_TAGS - {"mtable", "mtr", "mtd"}
)


class _TextCollector(HTMLParser):
    """Collect the text of sanitized HTML, leaving out the links in MARK_LINK_CLASSES."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.in_mark_link = False

    def handle_starttag(self, tag, attrs):
        if tag == "a" and MARK_LINK_CLASSES & set((dict(attrs).get("class") or "").split()):
            self.in_mark_link = True
        if tag not in INLINE_TAGS:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag == "a":
            self.in_mark_link = False
        if tag not in INLINE_TAGS:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.in_mark_link:
            self.parts.append(data)


def html_to_text(html):
    """Return the text a reader reads in HTML made by :func:`render_markdown`, on one line.

    Entities are decoded (the result is plain text, to be escaped wherever it is shown), block
    boundaries become spaces, runs of whitespace become one space, and the permalink and
    footnote marks the extensions add are left out. Search matches and quotes this text.

    Args:
        html: sanitized HTML, as :func:`render_markdown` returns it; may be empty.

    Returns:
        The text, without leading or trailing whitespace ("" for an empty body).
    """
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    return " ".join("".join(collector.parts).split())
