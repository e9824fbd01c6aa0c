"""Nested lists indented by two spaces, as other Markdown tools write them: an extension.

Python-Markdown nests a list only under four spaces of indent (its documented difference
from other implementations). Its advice, ``tab_length=2``, applies to every block: two spaces
would then start a code block, and four-space code blocks would keep two spaces of their
indent. mdx_truly_sane_lists (what Python-Markdown's issue #3 points to) accepts *only* two
spaces, so lists written with four stop nesting; pymdown-extensions has no such option. So
this preprocessor moves the *list item lines* of a nested list to four spaces per level, and
leaves everything else as it was: documents written with four spaces come out unchanged.
"""

import re
from dataclasses import dataclass

from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

__all__ = ["NestedListExtension", "reindent_nested_lists"]

# A list item as Python-Markdown reads one: "-", "*", "+" or "1.", spaces, then text.
LIST_ITEM_RE = re.compile(r"( *)([*+-]|\d+\.)( +)\S")

# "* * *" and "- - -" are horizontal rules, not items.
RULE_RE = re.compile(r" {0,3}([-*_])(?: *\1){2,} *")


@dataclass
class _Item:
    indent: int  # the indent of the item's line in the source
    column: int  # where the item's text starts in the source ("- a": 2, "1. a": 3)
    shift: int  # how many spaces the item's line was moved right (or left)


def reindent_nested_lists(lines, tab_length=4):
    """Yield the lines with each nested list item indented ``tab_length`` spaces per level.

    An item is a child of the item above when it is indented at least two spaces more than
    that item (so "- a" and "1. a" both nest under two spaces, and under three or four), and
    less than four spaces past the start of that item's text (more is a code block in the
    item, as in CommonMark, and is left alone). Lines that
    continue an item's text without a blank line move with it. Blocks after a blank line
    (further paragraphs, code) are not moved: inside an item they need four spaces per level,
    as Python-Markdown has always required. Text before the first item is never touched, so
    indented code blocks are left as written.

    Args:
        lines: the Markdown source as lines (fenced code and raw HTML already stashed).
        tab_length: the indent Python-Markdown expects per level of nesting.

    Yields:
        The lines, list items re-indented.
    """
    items, after_blank = [], True
    for line in lines:
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        item = LIST_ITEM_RE.match(line)
        if not text:
            after_blank = True
            yield line
            continue
        if item and not RULE_RE.fullmatch(line):
            while items and indent < items[-1].indent + 2:
                items.pop()
            if (not items and indent >= tab_length) or (
                items and indent >= items[-1].column + tab_length
            ):
                yield line  # indented code, or code inside an item
            else:
                new_indent = tab_length * len(items) if items else indent
                items.append(_Item(indent, column=item.end(3), shift=new_indent - indent))
                yield " " * new_indent + text
        elif items and not after_blank and indent:
            yield " " * max(indent + items[-1].shift, 0) + text
        else:
            while items and indent < items[-1].indent + 2:
                items.pop()
            yield line
        after_blank = False


class NestedListPreprocessor(Preprocessor):
    """Re-indent nested list items (see :func:`reindent_nested_lists`)."""

    def run(self, lines):
        """Return the lines with nested list items at four spaces per level."""
        return list(reindent_nested_lists(lines, self.md.tab_length))


class NestedListExtension(Extension):
    """Let authors nest lists by two spaces (or three under "1."), as well as by four."""

    def extendMarkdown(self, md):
        """Register the preprocessor after fenced code (25) and raw HTML blocks (20).

        By then both are stashed away as placeholders, so their lines are never re-indented.
        """
        md.preprocessors.register(NestedListPreprocessor(md), "nested_lists", 15)
