"""``SUMMARY.md``: the folder's outline, a nested list of links to its files.

In the spirit of mdBook's ``SUMMARY.md``: a heading, then one list item per file, nested
two spaces per level, each a link whose text is the node's title::

    # Summary

    - [Mathematics](mathematics/index.md)
      - [Linear Algebra](mathematics/linear-algebra/index.md)
        - [Vectors](mathematics/linear-algebra/vectors.md)

The list's order is the tree's order. Headings and blank lines are for readers and are
skipped when read; any other line is a problem.
"""

import posixpath
import re
from dataclasses import dataclass

from .frontmatter import read_document, write_document

__all__ = ["SUMMARY", "SummaryItem", "read_summary", "write_summary"]

SUMMARY = "SUMMARY.md"
INDENT = 2

ITEM = re.compile(
    r"(?P<indent>[ \t]*)[-*+][ \t]+\[(?P<text>(?:\\.|[^\\\]])*)\]"
    r"\((?:<(?P<bracketed>[^>]*)>|(?P<target>[^)\s]*))\)[ \t]*"
)
ESCAPED = re.compile(r"\\(.)")


@dataclass
class SummaryItem:
    """One list item of ``SUMMARY.md``: its line, depth (0 for the top), text and file."""

    line: int
    level: int
    text: str
    target: str


def write_summary(items, section=None):
    """Return the text of ``SUMMARY.md``.

    Args:
        items: ``(level, title, file)`` for each file, in tree order, levels from 0.
        section: for a folder of one section, its path, written as front matter.

    Returns:
        The text, ending with a newline.
    """
    head = write_document({"section": section}, "") if section is not None else ""
    lines = [f"{head}# Summary", ""]
    for level, title, target in items:
        text = re.sub(r"([\\\[\]])", r"\\\1", " ".join(title.split()))
        lines.append(f"{' ' * INDENT * level}- [{text}]({target})")
    return "\n".join(lines) + "\n"


def read_summary(data):
    """Read ``SUMMARY.md``'s bytes.

    Returns:
        ``(section, items, problems)``: the path its front matter names (None for a whole
        wiki), the :class:`SummaryItem` list in order, and what is wrong, each
        "SUMMARY.md line N: ...".
    """
    document = read_document(data)
    problems = [f"{SUMMARY} {problem}" for problem in document.problems]
    unknown = sorted(document.fields.keys() - {"section"})
    problems += [
        f"{SUMMARY} line {document.lines[name]}: “{name}” is not a name SUMMARY.md's front "
        "matter knows (only “section”)."
        for name in unknown
    ]
    section = document.fields.get("section")
    if section is not None and not isinstance(section, str):
        problems.append(f"{SUMMARY} line {document.lines['section']}: “section” is not a path.")
    items, previous = [], -1
    for number, line in enumerate(document.body.split("\n"), start=document.body_line):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{SUMMARY} line {number}"
        match = ITEM.fullmatch(line)
        if match is None:
            problems.append(
                f"{where}: is not a list item linking to a file (“- [Title](file.md)”)."
            )
            continue
        indent = match["indent"]
        if "\t" in indent or len(indent) % INDENT:
            problems.append(f"{where}: indent list items by {INDENT} spaces per level.")
            continue
        level = len(indent) // INDENT
        if level > previous + 1:
            problems.append(f"{where}: is indented deeper than one level below the item above.")
            continue
        target = match["bracketed"] if match["bracketed"] is not None else match["target"]
        problem = _target_problem(target)
        if problem:
            problems.append(f"{where}: {problem}")
            continue
        text = ESCAPED.sub(r"\1", match["text"]).strip()
        items.append(SummaryItem(number, level, text, posixpath.normpath(target)))
        previous = level
    return section, items, problems


def _target_problem(target):
    """Return what is wrong with a link's target as a file of the folder, or None."""
    if not target.endswith(".md"):
        return f"“{target}” is not a Markdown file (“.md”)."
    if target.startswith("/") or ".." in target.split("/") or "\\" in target:
        return f"“{target}” is not a path inside the folder."
    return None
