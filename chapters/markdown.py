"""Render a node's Markdown body to sanitized HTML, and that HTML to the text a reader reads.

This is the only module that knows which Markdown extensions the wiki uses, which HTML the
sanitizer lets through, and which parts of that HTML are marks rather than text. The allowlist
keeps exactly what those extensions produce and drops everything else, so raw HTML in a body
can add nothing that Markdown could not have written.

Rendering time is bounded by refusing texts beyond the limits below (``MarkdownError``, with
a message naming the limit). Measured on this project's shared two-core machine, texts of up
to ``BODY_MAX_LENGTH`` characters that the quadratic cases of Python-Markdown, bleach and
latex2mathml once took minutes on (runs of "[", "<a ", "$x$", "```", nested quotes) are now
refused in at most 1.6 seconds (thousands of 32-deep nested lists, counted once parsed). Texts
dense in small elements are still accepted and slow: up to about 4 seconds for 20
paragraphs of 1,250 code spans each, and 5 seconds for 4,990 headings.
"""

import re
import xml.etree.ElementTree as etree
from html import unescape
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import bleach
import markdown
from markdown.extensions import Extension
from markdown.extensions.toc import slugify_unicode
from markdown.inlinepatterns import InlineProcessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

__all__ = [
    "BODY_MAX_LENGTH",
    "MarkdownError",
    "WIKI_LINK",
    "render_markdown",
    "render_markdown_with_headings",
    "html_to_text",
    "internal_paths",
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


# Limits that keep rendering time bounded. Python-Markdown and bleach take time that grows
# with the square of some structures (each unclosed "[" is scanned to the end of its
# paragraph, each line taken from a block is searched for again with the rest of the block,
# each reference to one footnote looks through all earlier ones, html5lib copies an
# element's text for every entity in it), and every block costs a fraction of a millisecond.
# Within these limits every text measured (tests/test_bounded_input.py keeps them) rendered
# or was refused in at most about a second on a two-core machine.
BODY_MAX_LENGTH = 100_000  # about 15,000 words: past Wikipedia's "should be divided" size
BLOCK_MAX_LINES = 1_000  # lines without a blank line between them
NESTING_MAX_LEVELS = 32  # quote and list markers at a line's start, and 4 spaces of indent
TEXT_MAX_LENGTH = 5_000  # the text of one paragraph, list item, table cell or heading
OPEN_BRACKETS_MAX = 20  # "[" (or "(") in one such text still waiting for their "]" (")")
BLOCKS_MAX = 5_000  # paragraphs, list items, table cells, headings, ...
FOOTNOTE_REFERENCES_MAX = 500  # "[^", in references and definitions
LINES_MAX = 5_000  # lines that are not blank
FENCES_MAX = 1_000  # lines starting with ``` or ~~~ (500 fenced code blocks)
HTML_TAGS_MAX = 2_000  # "<" followed by a letter, "/", "!" or "?", code included
HTML_TAG_READING_MAX = 200_000  # characters read from such "<" to the next ">", in all

# The quote and list markers at the start of a line ("> - 1. text" has three).
LEADING_MARKERS_RE = re.compile(r"(?:(?:>|[*+-](?=\s)|\d+\.(?=\s))[ \t]*)+")
BRACKETS_RE = re.compile(r"\\.|[][()]")
# What Python's html.parser (Python-Markdown's raw HTML) takes for the start of a tag.
HTML_TAG_RE = re.compile(r"<[A-Za-z/!?]")


def check_bounds(text):
    """Refuse a text beyond the limits above, before rendering it.

    These are the checks that need the source's lines; :class:`BoundsTreeprocessor` checks
    the texts of blocks once Python-Markdown has split the text into them.

    Args:
        text: the Markdown source.

    Raises:
        MarkdownError: the text is longer than ``BODY_MAX_LENGTH``, has a block of more than
            ``BLOCK_MAX_LINES`` lines, more than ``LINES_MAX`` lines or ``FENCES_MAX``
            code fences, a line nested more than ``NESTING_MAX_LEVELS`` deep,
            "<" starting HTML tags beyond ``HTML_TAGS_MAX`` or ``HTML_TAG_READING_MAX``, or
            more than ``FOOTNOTE_REFERENCES_MAX`` footnote references. The message names
            the limit, and the line where there is one.
    """
    if len(text) > BODY_MAX_LENGTH:
        raise MarkdownError(
            f"The text has {len(text):,} characters; at most {BODY_MAX_LENGTH:,} are allowed."
        )
    block_start, block_lines, lines, fences = 0, 0, 0, 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            block_lines = 0
            continue
        lines += 1
        if lines > LINES_MAX:
            raise MarkdownError(
                f"Line {number}: the text has more than {LINES_MAX:,} lines that are not "
                "blank; split it into several pages."
            )
        fences += line.startswith(("```", "~~~"))
        if fences > FENCES_MAX:
            raise MarkdownError(
                f"Line {number}: the text has more than {FENCES_MAX:,} code fences (lines "
                "starting with ``` or ~~~); split it into several pages."
            )
        if block_lines == 0:
            block_start = number
        block_lines += 1
        if block_lines > BLOCK_MAX_LINES:
            raise MarkdownError(
                f"Line {block_start} starts a block of more than {BLOCK_MAX_LINES:,} lines "
                "without a blank line between them; separate it with blank lines."
            )
        stripped = line.expandtabs(4).lstrip(" ")
        markers = LEADING_MARKERS_RE.match(stripped)
        levels = (len(line.expandtabs(4)) - len(stripped)) // 4
        levels += len(re.findall(r"[>*+-]|\d+\.", markers[0])) if markers else 0
        if levels > NESTING_MAX_LEVELS:
            raise MarkdownError(
                f"Line {number} nests {levels:,} lists, quotes or indents; at most "
                f"{NESTING_MAX_LEVELS} are allowed."
            )
    reading = 0
    for tags, tag in enumerate(HTML_TAG_RE.finditer(text), start=1):
        end = text.find(">", tag.start())
        reading += (end if end >= 0 else len(text)) - tag.start()
        if tags > HTML_TAGS_MAX or reading > HTML_TAG_READING_MAX:
            raise MarkdownError(
                f"Line {text.count(chr(10), 0, tag.start()) + 1}: too many “<” read as the "
                f"start of an HTML tag (at most {HTML_TAGS_MAX:,}, reaching at most "
                f"{HTML_TAG_READING_MAX:,} characters in all up to their “>”); write “&lt;” "
                "or “< ” for a less-than sign."
            )
    references = text.count("[^")
    if references > FOOTNOTE_REFERENCES_MAX:
        raise MarkdownError(
            f"The text has {references:,} footnote marks (“[^”); at most "
            f"{FOOTNOTE_REFERENCES_MAX:,} are allowed."
        )


def _excerpt(text):
    """Return the start of a block's text for a message, without Python-Markdown's marks."""
    text = " ".join(re.sub(r"[\x02\x03]", "", text).split())
    return f"“{text[:40]}…”" if len(text) > 40 else f"“{text}”"


def _most_open(text):
    """Return the most "[" (or "(") open at once in ``text``; escaped ones do not count."""
    brackets = parens = most = 0
    for match in BRACKETS_RE.finditer(text):
        mark = match[0]
        if mark == "[":
            brackets += 1
        elif mark == "]":
            brackets = max(brackets - 1, 0)
        elif mark == "(":
            parens += 1
        elif mark == ")":
            parens = max(parens - 1, 0)
        most = max(most, brackets, parens)
    return most


class BoundsTreeprocessor(Treeprocessor):
    """Refuse blocks beyond the limits, before inline Markdown is applied to their texts."""

    def run(self, root):
        """Check the number of blocks, and each text inline Markdown will read.

        Raises:
            MarkdownError: more than ``BLOCKS_MAX`` blocks, or a text longer than
                ``TEXT_MAX_LENGTH`` or with more than ``OPEN_BRACKETS_MAX`` brackets open
                at once; the message quotes the start of the text.
        """
        blocks = 0
        for element in root.iter():
            blocks += 1
            if blocks > BLOCKS_MAX:
                raise MarkdownError(
                    f"The text has more than {BLOCKS_MAX:,} blocks (paragraphs, list items, "
                    "table cells, headings); split it into several pages."
                )
            for text in (element.text, element.tail):
                if not text or isinstance(text, AtomicString):
                    continue
                if len(text) > TEXT_MAX_LENGTH:
                    raise MarkdownError(
                        f"The paragraph starting {_excerpt(text)} has {len(text):,} "
                        f"characters; at most {TEXT_MAX_LENGTH:,} are allowed in one "
                        "paragraph, list item, table cell or heading."
                    )
                if _most_open(text) > OPEN_BRACKETS_MAX:
                    raise MarkdownError(
                        f"The paragraph starting {_excerpt(text)} has more than "
                        f"{OPEN_BRACKETS_MAX} “[” or “(” open at once; close them, or "
                        "escape them as “\\[” and “\\(”."
                    )


class BoundsExtension(Extension):
    """Register :class:`BoundsTreeprocessor` before inline Markdown (20), after footnotes (50)."""

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        md.treeprocessors.register(BoundsTreeprocessor(md), "bounds", 25)


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
        MarkdownError: the text is beyond one of the limits that keep rendering time
            bounded (see :func:`check_bounds` and :class:`BoundsTreeprocessor`), or
            Python-Markdown ran out of recursion depth (it parses nested blocks recursively).
    """
    if not text:
        return "", []
    check_bounds(text)
    md = markdown.Markdown(
        extensions=[*EXTENSIONS, WikiLinkExtension(resolve_link), BoundsExtension()],
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


def internal_paths(html):
    """Return the wiki paths that ``<a href>`` in ``html`` point at, without ``[[links]]``.

    Only absolute paths on this site count ("/ml-systems/"), not other hosts, fragments,
    or links the wiki-link extension made.

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


class _HrefParser(HTMLParser):
    """Collect the ``href`` of every ``<a>`` that is not a wiki link."""

    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and "wikilink" not in (attributes.get("class") or "").split():
            self.hrefs.append(attributes.get("href") or "")
