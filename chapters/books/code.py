"""Highlighted code in a book's PDF with as few boxes as draw the same colours.

Pygments wraps every token in a ``<span>`` (``chapters/markdown/mdx/highlight.py``), also
the spaces between tokens and the names and punctuation its style leaves uncoloured. Each
span is an inline box WeasyPrint lays out, splits at line ends and draws: in the benchmark's
bodies, code's spans cost WeasyPrint more than all the other text together
(bench/README.md, "Books"). A span that changes nothing on paper is taken out, its text kept:
one of a class ``static/css/pygments.css`` gives no style, and one holding only whitespace
whose style is only ink (a colour, a font), as ink on spaces shows nothing. Neighbouring
spans whose classes have the same style (an operator and a number, both grey) are then
joined, across whitespace when their style is only ink. The code reads and looks the same.
"""

import re
from functools import lru_cache
from pathlib import Path

from django.contrib.staticfiles import finders

__all__ = ["fewer_spans"]

PYGMENTS_CSS = "css/pygments.css"
_RULE = re.compile(r"^\.highlight \.([\w-]+) \{([^}]*)\}", re.MULTILINE)
# Declarations that draw something besides the glyphs (and so show on spaces).
_BEYOND_INK = ("background", "border", "text-decoration", "outline")


@lru_cache(maxsize=1)
def token_styles():
    """Return the declarations ``static/css/pygments.css`` gives each token class, by class,
    and whether they are ink only: ``{"k": ("color: #008000; font-weight: bold", True)}``."""
    text = Path(finders.find(PYGMENTS_CSS)).read_text(encoding="utf-8")
    return {
        name: (declarations.strip(), not any(word in declarations for word in _BEYOND_INK))
        for name, declarations in _RULE.findall(text)
    }


def fewer_spans(body):
    """Take out of every ``pre`` in ``body`` (an ElementTree element, not namespaced) the
    token spans that change nothing on paper, and join neighbouring spans of one class."""
    styles = token_styles()
    for pre in body.iter("pre"):
        for parent in list(pre.iter()):
            _unwrap(parent, styles)
            _join(parent, styles)


def _unwrap(parent, styles):
    """Replace ``parent``'s childless spans that change nothing by their text."""
    for child in list(parent):
        if child.tag != "span" or len(child):
            continue
        style = styles.get(child.get("class", ""))
        blank = not (child.text or "").strip()
        if style is None or (blank and style[1]):
            _replace_by_text(parent, child)


def _join(parent, styles):
    """Join each childless span of ``parent`` to the span before it when their classes
    have the same style."""
    before = None
    for child in list(parent):
        style = styles.get(child.get("class"))
        if child.tag != "span" or len(child) or style is None:
            before = None
            continue
        if before is not None and styles[before.get("class")][0] == style[0]:
            between = before.tail or ""
            if not between or (not between.strip() and style[1]):
                before.text = (before.text or "") + between + (child.text or "")
                before.tail = child.tail
                parent.remove(child)
                continue
        before = child


def _replace_by_text(parent, child):
    """Remove ``child`` from ``parent``, keeping its text and tail in its place."""
    text = (child.text or "") + (child.tail or "")
    index = list(parent).index(child)
    if index:
        previous = parent[index - 1]
        previous.tail = (previous.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
    parent.remove(child)
