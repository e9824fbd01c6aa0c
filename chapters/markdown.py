"""Render a node's Markdown body to sanitized HTML, and that HTML to the text a reader reads.

This is the only module that knows which Markdown extensions the wiki uses, which HTML the
sanitizer lets through, and which parts of that HTML are marks rather than text. The allowlist
keeps exactly what those extensions produce and drops everything else, so raw HTML in a body
can add nothing that Markdown could not have written.
"""

import xml.etree.ElementTree as etree
from html.parser import HTMLParser

import bleach
import markdown
from markdown.extensions import Extension
from markdown.extensions.toc import slugify_unicode
from markdown.inlinepatterns import InlineProcessor

__all__ = ["MarkdownError", "WIKI_LINK", "render_markdown", "html_to_text"]

EXTENSIONS = ["tables", "fenced_code", "codehilite", "footnotes", "toc", "sane_lists"]

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

ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4",
        "h5", "h6", "hr", "img", "li", "ol", "p", "pre", "span", "strong", "sup", "table",
        "tbody", "td", "th", "thead", "tr", "ul",
    }
)  # fmt: skip

HEADING_ATTRIBUTES = ["id"]

ALLOWED_ATTRIBUTES = {
    "a": ["href", "title", "class"],  # footnote-ref, footnote-backref, headerlink, wikilink
    "abbr": ["title"],
    "code": ["class"],  # language-* from fenced code without highlighting
    "div": ["class"],  # highlight, footnote
    "img": ["src", "alt", "title"],
    "li": ["id"],  # footnote targets
    "ol": ["start"],
    "span": ["class", "title"],  # Pygments token classes; broken wiki links
    "sup": ["id"],  # footnote references
    "td": ["align"],
    "th": ["align"],
    **{f"h{level}": HEADING_ATTRIBUTES for level in range(1, 7)},
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

    Python-Markdown renders the text with tables, fenced code highlighted by Pygments,
    footnotes, heading ids and ``[[wiki links]]``; bleach then removes every tag, attribute
    and URL scheme that is not in this module's allowlist (disallowed tags are stripped,
    their text kept as text).

    Args:
        text: the Markdown source; may be empty.
        resolve_link: ``resolve(target) -> (href, problem)`` for ``[[target]]`` (see
            :class:`WikiLinkProcessor`); by default every wiki link is shown as broken.

    Returns:
        The sanitized HTML as a string ("" for an empty text).

    Raises:
        MarkdownError: Python-Markdown ran out of recursion depth (it parses nested blocks
            recursively; about a thousand levels of nested lists or quotes exhaust it).
    """
    if not text:
        return ""
    try:
        html = markdown.markdown(
            text,
            extensions=[*EXTENSIONS, WikiLinkExtension(resolve_link)],
            extension_configs=EXTENSION_CONFIGS,
            output_format="html",
        )
    except RecursionError as error:
        raise MarkdownError(
            "The text nests lists, quotes or other blocks too deeply to be rendered."
        ) from error
    return bleach.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        protocols=ALLOWED_PROTOCOLS,
        strip=True,
        strip_comments=True,
    )


# Links the extensions add that are marks, not text: heading permalinks ("¶"), footnote
# references (the number) and footnote back-links ("↩").
MARK_LINK_CLASSES = frozenset({"headerlink", "footnote-ref", "footnote-backref"})

# Elements whose boundaries do not separate words ("<em>fus</em>ion" is one word).
INLINE_TAGS = frozenset({"a", "abbr", "code", "del", "em", "span", "strong", "sup"})


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
