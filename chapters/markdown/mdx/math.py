"""TeX math in Markdown, rendered on the server to MathML: a Python-Markdown extension.

Formulas are written as in pandoc and LaTeX: ``$...$`` and ``\\(...\\)`` inline, ``$$...$$``
and ``\\[...\\]`` displayed. latex2mathml converts them, so pages need no script and print as
they show. This module only finds and converts formulas; which MathML survives is decided by
the sanitizer's allowlist in :mod:`chapters.markdown.sanitize`, like everything else in a body.
How many formulas a text may hold is a limit in :mod:`chapters.markdown.limits`.
"""

import html
import re
import xml.etree.ElementTree as etree

from latex2mathml.converter import convert_to_element
from markdown.blockprocessors import BlockProcessor
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

from ..limits import MATH_CHARACTERS_MAX, MATH_FORMULAS_MAX, MarkdownError

__all__ = ["MathExtension", "formula_element"]

# A dollar amount is not math: after pandoc's rule (its manual, extension tex_math_dollars),
# the opening $ must have a non-space right after it, the closing $ a non-space right before
# it, and the closing $ must not be followed by a digit. So "costs $5 and $10" stays text. A
# backslash makes a $ literal ("\$5"). $$ and \[ \] display a formula; \( \) are inline.
INLINE_MATH_RE = (
    r"(?<!\\)\$\$(?P<display_dollars>.+?)\$\$"
    r"|(?<!\\)\\\[(?P<display_brackets>.+?)\\\]"
    r"|(?<!\\)\\\((?P<inline_parens>.+?)\\\)"
    r"|(?<![\\$])\$(?![\s$])(?P<inline_dollar>(?:\\.|[^\\$])+?)(?<!\s)\$(?![\d$])"
)

# A paragraph that is one displayed formula (no blank line inside, as in pandoc).
DISPLAY_BLOCK_RE = re.compile(
    r"\s*(?:\$\$(?P<dollars>(?:(?!\$\$).)+)\$\$|\\\[(?P<brackets>(?:(?!\\\]).)+)\\\])\s*", re.S
)

# Python-Markdown's placeholders for code spans and stashed HTML: such a match is no formula.
PLACEHOLDER_MARKS = ("\x02", "\x03")


def formula_element(latex, display, source):
    """Return a formula as a MathML element, or its source marked as an error.

    latex2mathml builds an ElementTree of MathML elements; its own ``convert()`` then undoes
    the XML escaping of the text (so ``\\text{<b>}`` would come out as a tag). The tree is
    used as it is built instead, and Python-Markdown serializes it, escaping the text. The
    character references latex2mathml writes as text (``&#x0003C;`` for ``<``) are decoded
    first, or they would be escaped too. Every text is an ``AtomicString``, so Markdown's
    inline syntax (``*``, ``_``, links) is not applied inside a formula.

    Args:
        latex: the formula without its delimiters.
        display: "inline" or "block".
        source: the formula as written, delimiters included, shown if it cannot be read.

    Returns:
        A ``math`` element with the TeX source as its ``alttext``, or a ``code`` element of
        class ``math-error`` holding the source when latex2mathml cannot convert the formula.
    """
    try:
        math = convert_to_element(latex.strip(), display=display)
    except Exception:
        # Any failure means "cannot be read": latex2mathml raises its own errors for malformed
        # TeX, but also StopIteration, IndexError, ValueError, TypeError and RecursionError.
        error = etree.Element("code", {"class": "math-error"})
        error.text = AtomicString(source)
        return error
    del math.attrib["xmlns"]  # not needed for MathML in HTML, and not allowed by the sanitizer
    # The TeX source, MathML's own text alternative: for readers without MathML, and the text
    # that search matches and quotes (chapters.markdown.text.html_to_text).
    math.set("alttext", latex.strip())
    for element in math.iter():
        if element.text:
            element.text = AtomicString(html.unescape(element.text))
        if element.tail:
            element.tail = AtomicString(html.unescape(element.tail))
        for name, value in element.attrib.items():
            element.attrib[name] = html.unescape(value)
    return math


def count_formula(md, latex):
    """Count a formula against the text's limits, before it is converted.

    Args:
        md: the Markdown instance rendering the text (it holds the counts so far).
        latex: the formula without its delimiters.

    Raises:
        MarkdownError: the text has more than ``MATH_FORMULAS_MAX`` formulas, or more than
            ``MATH_CHARACTERS_MAX`` characters of TeX in all.
    """
    md.math_formulas += 1
    md.math_characters += len(latex)
    if md.math_formulas > MATH_FORMULAS_MAX or md.math_characters > MATH_CHARACTERS_MAX:
        raise MarkdownError(
            f"The text has more than {MATH_FORMULAS_MAX:,} formulas or more than "
            f"{MATH_CHARACTERS_MAX:,} characters of math; split it into several pages."
        )


class MathInlineProcessor(InlineProcessor):
    """Replace a formula in running text with its MathML."""

    def handleMatch(self, m, data):
        """Return the element for the formula ``m`` matched, and where it starts and ends."""
        latex = m.group(m.lastgroup)
        if any(mark in latex for mark in PLACEHOLDER_MARKS):
            return None, None, None
        display = "inline" if m.lastgroup.startswith("inline") else "block"
        count_formula(self.md, latex)
        return formula_element(latex, display, m.group(0)), m.start(0), m.end(0)


class MathBlockProcessor(BlockProcessor):
    """Take a paragraph that is one displayed formula before lists or headings can claim it.

    Runs after indented code (so an indented ``$$`` stays code) and before tables, headings,
    rules and lists, so that lines of a formula such as ``- b`` or ``= c`` stay TeX.
    """

    def test(self, parent, block):
        """Return whether ``block`` is exactly one ``$$...$$`` or ``\\[...\\]`` formula."""
        return DISPLAY_BLOCK_RE.fullmatch(block) is not None

    def run(self, parent, blocks):
        """Replace the block with a paragraph holding the formula's MathML."""
        block = blocks.pop(0)
        match = DISPLAY_BLOCK_RE.fullmatch(block)
        latex = match["dollars"] if match["dollars"] is not None else match["brackets"]
        count_formula(self.parser.md, latex)
        paragraph = etree.SubElement(parent, "p")
        paragraph.append(formula_element(latex, "block", block.strip()))


class MathExtension(Extension):
    """Add TeX math (``$``, ``$$``, ``\\(``, ``\\[``) rendered to MathML."""

    def extendMarkdown(self, md):
        """Register the processors and make ``\\$`` an escaped, literal dollar.

        The inline processor runs after code spans (priority 190), so ``$`` in code stays
        code, and before backslash escapes (180), which would otherwise eat ``\\(`` and
        ``\\[``. Fenced code is stashed by a preprocessor before any of this runs.
        """
        md.math_formulas = md.math_characters = 0
        md.ESCAPED_CHARS.append("$")
        # A formula is phrasing content, inline or displayed (MathML Core): taken for a block,
        # it would be set on lines of its own in the HTML (Python-Markdown's prettifier), and
        # a paragraph holding only raw <math> would lose its <p>.
        md.block_level_elements.remove("math")
        md.inlinePatterns.register(MathInlineProcessor(INLINE_MATH_RE, md), "math", 185)
        md.parser.blockprocessors.register(MathBlockProcessor(md.parser), "math", 78)
