"""Render a reader's comment (``chapters.models.Comment``) to sanitized HTML.

A comment is Markdown like a body, through the same sanitizer (:func:`.sanitize.sanitize`),
with fewer extensions and a shorter allowlist, because it is shown on a page it did not
write and is written by any signed-in reader:

- no headings: a comment's headings would stand in the page's outline, and their ids could
  clash with the page's; ``#`` lines read as paragraphs;
- no wiki links, media references, math, footnotes (ids again) or highlighting (the lexer's
  child process is for bodies);
- images only from the site itself (a ``src`` that is a path): an image from elsewhere
  would tell another host who reads the thread;
- links as a body's (http, https, mailto or relative: bleach drops ``javascript:``), each
  marked ``rel="nofollow ugc"`` as user-generated content (Google's documented values), so a
  comment lends no standing to where it points.
"""

import re

import markdown
from bleach.html5lib_shim import Filter
from markdown.treeprocessors import Treeprocessor

from .limits import MarkdownError, check_bounds
from .sanitize import sanitize

__all__ = ["COMMENT_ATTRIBUTES", "COMMENT_TAGS", "LINK_REL", "render_comment"]

COMMENT_TAGS = frozenset(
    {
        "a", "blockquote", "br", "code", "del", "em", "hr", "img", "li", "ol", "p", "pre",
        "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
    }
)  # fmt: skip

LINK_REL = "nofollow ugc"

# A path on this site: "/x", not "//host/x" nor "/\host/x" (which browsers read as "//").
SITE_PATH = re.compile(r"/(?![/\\])")


def _image_attribute(tag, name, value):
    """Keep an image's ``alt`` and ``title``, and its ``src`` only as a path on the site."""
    if name == "src":
        return SITE_PATH.match(value) is not None
    return name in {"alt", "title"}


COMMENT_ATTRIBUTES = {
    "a": ["href", "title", "rel"],
    "img": _image_attribute,
    "ol": ["start"],
    "td": ["align"],
    "th": ["align"],
}


class NoHeadings(Treeprocessor):
    """Turn each heading into a paragraph."""

    def run(self, root):
        for element in root.iter():
            if element.tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
                element.tag = "p"


class LinkRel(Filter):
    """An html5lib filter giving every link ``rel="nofollow ugc"`` (raw HTML's too)."""

    def __iter__(self):
        for token in super().__iter__():
            if token["type"] == "StartTag" and token["name"] == "a":
                token["data"] = {
                    key: value for key, value in token["data"].items() if key != (None, "rel")
                }
                token["data"][(None, "rel")] = LINK_REL
            yield token


def render_comment(text):
    """Render a comment's Markdown to HTML that is safe to show in its thread.

    Args:
        text: the Markdown, as typed.

    Returns:
        The sanitized HTML ("" for an empty text).

    Raises:
        MarkdownError: the text is beyond the limits that keep rendering time bounded
            (:mod:`.limits`), or nests blocks too deeply to be rendered.
    """
    if not text:
        return ""
    check_bounds(text)
    md = markdown.Markdown(
        extensions=["fenced_code", "sane_lists", "tables"],
        extension_configs={"tables": {"use_align_attribute": True}},
        output_format="html",
    )
    md.treeprocessors.register(NoHeadings(md), "no_headings", 0)
    try:
        html = md.convert(text)
    except RecursionError as error:
        raise MarkdownError(
            "The text nests lists, quotes or other blocks too deeply to be rendered."
        ) from error
    return sanitize(html, [LinkRel], tags=COMMENT_TAGS, attributes=COMMENT_ATTRIBUTES)
