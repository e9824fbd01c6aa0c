"""The limits that keep rendering a Markdown text bounded in time, and the error that refuses one.

Python-Markdown, bleach and latex2mathml take time that grows with the square of some
structures (runs of "[", "<a ", "$x$", "```", nested quotes), so a text beyond one of the
limits below is refused with :class:`MarkdownError`, whose message names the limit (and the
line, where there is one). :func:`check_bounds` reads the source's lines before rendering;
:class:`BoundsTreeprocessor` reads the texts of blocks once Python-Markdown has split the text
into them; the math extension counts formulas as it finds them
(:mod:`chapters.markdown.mdx.math`). tests/test_bounded_input.py keeps the limits; the times
they were chosen by are in bench/README.md ("Rendering limits").
"""

import re

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

__all__ = [
    "BLOCKS_MAX",
    "BLOCK_MAX_LINES",
    "BODY_MAX_LENGTH",
    "FENCES_MAX",
    "FOOTNOTE_REFERENCES_MAX",
    "HTML_TAGS_MAX",
    "HTML_TAG_READING_MAX",
    "LINES_MAX",
    "MATH_CHARACTERS_MAX",
    "MATH_FORMULAS_MAX",
    "NESTING_MAX_LEVELS",
    "OPEN_BRACKETS_MAX",
    "TEXT_MAX_LENGTH",
    "BoundsExtension",
    "BoundsTreeprocessor",
    "MarkdownError",
    "check_bounds",
]


class MarkdownError(ValueError):
    """A Markdown text that cannot be rendered (for example, lists nested too deeply)."""


# Python-Markdown and bleach take time that grows with the square of some structures (each
# unclosed "[" is scanned to the end of its paragraph, each line taken from a block is
# searched for again with the rest of the block, each reference to one footnote looks through
# all earlier ones, html5lib copies an element's text for every entity in it), and every block
# adds to the time.
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

# latex2mathml's time grows with every formula and every character of TeX, so a text's math
# is limited in all (counted by chapters.markdown.mdx.math).
MATH_FORMULAS_MAX = 1_000
MATH_CHARACTERS_MAX = 20_000

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
