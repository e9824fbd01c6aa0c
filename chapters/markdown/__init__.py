"""Render a node's Markdown body to sanitized HTML, and read that HTML back.

This package is the only place that knows which Markdown extensions the wiki uses, which HTML
the sanitizer lets through, and which parts of that HTML are marks rather than text. Its one
rendering path is :func:`render_markdown_with_headings`: Python-Markdown, then the sanitizer.
Each concern has a module of its own:

- this module: the extensions a body is rendered with, their settings, and the render
  functions;
- :mod:`.sanitize`: the allowlists of tags, attributes and URL schemes (MathML's too), and
  the one function that applies bleach with them;
- :mod:`.comments`: a reader's comment, rendered with fewer extensions and a shorter
  allowlist (:func:`render_comment`);
- :mod:`.limits`: :class:`MarkdownError` and the limits that keep rendering time bounded;
- :mod:`.lexing`: the kept child process that highlights code, killed at a body's budget
  (:mod:`.mdx.highlight` tells the budget);
- :mod:`.graphviz` and :mod:`.svg`: Graphviz's ``dot`` run within bounds on a diagram's
  source, and the SVG it writes allowlisted;
- :mod:`.text`: the text a reader reads in rendered HTML (for search, whole and by heading),
  and the wiki paths its links point at (for the ``Link`` rows); :mod:`.formulas`, a
  formula's MathML as readable text (for search's snippets);
- :mod:`.mdx`: the wiki's own Python-Markdown extensions (math, nested lists, wiki links,
  the media library's images and files, ids that never clash with the page's).

Other modules import from here (``from chapters.markdown import render_markdown``), not from
the modules inside.
"""

from functools import partial
from html import unescape

import markdown
from markdown.serializers import to_html_string

from .comments import render_comment
from .graphviz import DiagramBudget
from .limits import BODY_MAX_LENGTH, BoundsExtension, MarkdownError, check_bounds
from .mdx.diagrams import MERMAID_MARK, DiagramExtension
from .mdx.highlight import (
    HighlightBudget,
    HighlightExtension,
    HighlightOverBudget,
    budgeted_formatter,
)
from .mdx.ids import IdFilter, IdMarkExtension, heading_slug
from .mdx.media import MEDIA_REFERENCE, MediaExtension, no_media
from .mdx.wikilinks import WIKI_LINK, WikiLinkExtension, link_element, unresolved
from .sanitize import sanitize
from .text import external_images, html_to_text, html_to_text_and_sections, internal_paths

__all__ = [
    "BODY_MAX_LENGTH",
    "wiki_link_tags",
    "MEDIA_REFERENCE",
    "MERMAID_MARK",
    "MarkdownError",
    "WIKI_LINK",
    "check_markdown",
    "render_comment",
    "render_markdown",
    "render_markdown_with_headings",
    "html_to_text_and_sections",
    "external_images",
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
    "chapters.markdown.mdx.math:MathExtension",  # $...$, $$...$$, \(...\), \[...\] to MathML
    "chapters.markdown.mdx.nested_lists:NestedListExtension",  # nested by two spaces, or four
]

EXTENSION_CONFIGS = {
    # Alignment as an attribute keeps ``style`` (and a CSS sanitizer) out of the allowlist.
    "tables": {"use_align_attribute": True},
    # Pygments classes under ``.highlight``, matching static/css/pygments.css.
    "codehilite": {"css_class": "highlight", "guess_lang": False},
    # Stable heading ids, also for headings in non-Latin scripts, never one the page uses.
    "toc": {
        "slugify": heading_slug,
        "permalink": True,
        "permalink_title": "Link to this heading",
    },
}


def check_markdown(text):
    """Raise :class:`MarkdownError` where :func:`render_markdown` would, rendering less.

    For checking a text before it is saved (``Node.clean()``, imports), which then renders
    it in full: what refuses a text is the limits (:func:`check_bounds` and the
    treeprocessor of :mod:`.limits`, which reads the tree after code blocks are set aside
    as raw HTML, highlighted or not) and Python-Markdown's recursion, never the
    highlighting of code nor bleach. So code is not highlighted and nothing is sanitized.

    Args:
        text: the Markdown source; may be empty.

    Raises:
        MarkdownError: as :func:`render_markdown_with_headings`.
    """
    if text:
        check_bounds(text)
        _convert(text, unresolved, no_media, {"use_pygments": False}, None)


def render_markdown(text, resolve_link=unresolved, resolve_media=no_media):
    """Render Markdown to HTML that is safe to insert into a page.

    See :func:`render_markdown_with_headings`, of which this is the HTML.
    """
    return render_markdown_with_headings(text, resolve_link, resolve_media)[0]


def render_markdown_with_headings(
    text, resolve_link=unresolved, resolve_media=no_media, *, highlight=True
):
    """Render Markdown to HTML that is safe to insert into a page, and list its headings.

    Python-Markdown renders the text with tables, fenced code highlighted by Pygments
    (within a time bound, past which code is shown plain: :mod:`.mdx.highlight`),
    ```` ```dot ```` diagrams drawn as SVG and ```` ```mermaid ```` ones left to the browser
    (:mod:`.mdx.diagrams`),
    footnotes, heading ids, callouts, definition lists, task lists, math (as MathML),
    lists nested by two or four spaces, ``[[wiki links]]`` and the media library's images and
    files (``![alt](image:<name>)``, ``[text](file:<name>)``); bleach then removes every
    tag, attribute and URL scheme that is not in the allowlists of :mod:`.sanitize`
    (disallowed tags are stripped, their text kept as text).

    Args:
        text: the Markdown source; may be empty.
        resolve_link: ``resolve(target) -> (href, problem)`` for ``[[target]]`` (see
            :class:`.mdx.wikilinks.WikiLinkProcessor`); by default every wiki link is shown
            as broken.
        resolve_media: ``resolve(kind, name) -> (item, problem)`` for the media library's
            references (see :class:`.mdx.media.MediaProcessor`); by default each is shown as
            a placeholder.
        highlight: False to show code plain without running any lexer, and ```` ```dot ````
            diagrams as code without running Graphviz (a save that must render under the
            tree's lock, ``chapters.models.rendering``).

    Returns:
        A pair: the sanitized HTML as a string ("" for an empty text), and the headings in
        document order, each a dict with ``level`` (1 to 6), ``id`` (as in the HTML) and
        ``title`` (plain text, to be escaped where shown), as the toc extension lists them.

    Raises:
        MarkdownError: the text is beyond one of the limits that keep rendering time
            bounded (see :mod:`.limits`), or Python-Markdown ran out of recursion depth (it
            parses nested blocks recursively).
    """
    if not text:
        return "", []
    check_bounds(text)
    plain = {"use_pygments": False}
    if highlight:
        highlighted = {"pygments_formatter": budgeted_formatter(HighlightBudget())}
        diagrams = DiagramBudget()
        try:
            md, html = _convert(text, resolve_link, resolve_media, highlighted, diagrams)
        except HighlightOverBudget:
            md, html = _convert(text, resolve_link, resolve_media, plain, diagrams)
    else:
        md, html = _convert(text, resolve_link, resolve_media, plain, None)
    ids = partial(IdFilter, mark=md.id_mark, generated=md.generated_ids)
    html = md.code_blocks.restore(sanitize(html, filters=[ids]))
    return html, list(_flatten_headings(md.toc_tokens))


def _convert(text, resolve_link, resolve_media, highlighting, diagrams):
    """Return the Python-Markdown instance that rendered ``text``, and its HTML (unsanitized).

    Args:
        text: the Markdown source, within the limits.
        resolve_link: the wiki links' resolver.
        resolve_media: the media references' resolver.
        highlighting: codehilite's settings for this rendering, beside ``EXTENSION_CONFIGS``'s
            (the time-bounded formatter, or highlighting off).
        diagrams: the body's :class:`.graphviz.DiagramBudget`, or None to show
            ```` ```dot ```` fences as code without running Graphviz.

    Raises:
        MarkdownError: beyond the limits checked while parsing, or nested too deeply.
        HighlightOverBudget: the code took longer than its budget to highlight, or has
            more tokens than it allows.
    """
    md = markdown.Markdown(
        extensions=[
            *EXTENSIONS,
            WikiLinkExtension(resolve_link),
            MediaExtension(resolve_media),
            BoundsExtension(),
            IdMarkExtension(),
            HighlightExtension(),
            DiagramExtension(diagrams),
        ],
        extension_configs={
            **EXTENSION_CONFIGS,
            "codehilite": {**EXTENSION_CONFIGS["codehilite"], **highlighting},
        },
        output_format="html",
    )
    try:
        return md, md.convert(text)
    except RecursionError as error:
        raise MarkdownError(
            "The text nests lists, quotes or other blocks too deeply to be rendered."
        ) from error


def wiki_link_tags(href, problem):
    """Return the opening and closing tags of a wiki link as a rendered body holds them.

    The element is made as :class:`.mdx.wikilinks.WikiLinkProcessor` makes it and goes
    through Python-Markdown's serializer and the sanitizer, so the tags are byte for byte
    those of a body rendered with the link resolved (``chapters.models.rendering``).

    Args:
        href: the link's address, or None for a broken link.
        problem: why a broken link is broken (its tooltip).

    Returns:
        ``(opening, closing)``, e.g. ``('<a class="wikilink" href="/a/">', "</a>")``.
    """
    element = link_element(href, problem)
    element.text = "x"
    html = sanitize(to_html_string(element))
    opening = html[: html.rindex(">x</") + 1]
    return opening, html[len(opening) + 1 :]


def _flatten_headings(tokens):
    """Yield the toc extension's nested heading tokens in document order, as plain dicts."""
    for token in tokens:
        # "name" is the heading's text with tags removed and HTML-escaped.
        yield {"level": token["level"], "id": token["id"], "title": unescape(token["name"])}
        yield from _flatten_headings(token["children"])
