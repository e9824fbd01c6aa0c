"""A folder's files read into entries, one per node, each checked alone and against the others.

Nothing here reads the database: :mod:`.importer` matches the entries to nodes under the
tree's lock. Every problem names the file and the line it is on.
"""

import posixpath
from dataclasses import dataclass, field
from datetime import datetime

from ..imports.entries import Entry, body_problems, node_problems, requires_problems
from ..models import Node
from .frontmatter import read_document
from .summary import SUMMARY, read_summary

__all__ = ["FIELDS", "FilePlace", "Outline", "read_folder"]

FIELDS = ("title", "status", "slug", "updated", "id", "requires")
INDEX = "index.md"


@dataclass
class FilePlace:
    """Where an entry is in the folder: its file, the line of ``SUMMARY.md`` listing it, the
    lines of its front matter's fields and of its body, and the folder it is in (an
    :class:`~chapters.imports.entries.Entry`'s ``where``)."""

    file: str
    line: int
    folder: str = ""
    lines: dict = field(default_factory=dict)
    body_line: int = 1

    def at(self, name=None):
        """Return "<file> line <n>" for the line of front matter ``name`` (or the file)."""
        if name == "body":
            return f"{self.file} line {self.body_line}"
        if name in self.lines:
            return f"{self.file} line {self.lines[name]}"
        return f"{self.file} (SUMMARY.md line {self.line})"


@dataclass
class Outline:
    """A folder read: its entries in ``SUMMARY.md``'s order, and the section it is of."""

    entries: list
    section: str | None


def read_folder(files):
    """Read a folder's files into an :class:`Outline`.

    Args:
        files: a dict of relative paths to bytes, as :mod:`.folder` reads them.

    Returns:
        ``(outline, problems)``: the problems name each file and line; the outline's entries
        are those that could be read.
    """
    if SUMMARY not in files:
        return Outline([], None), [f"The folder has no {SUMMARY} at its top."]
    section, items, problems = read_summary(files[SUMMARY])
    entries, listed, stack = [], {}, []
    for item in items:
        where = f"{SUMMARY} line {item.line}"
        if item.target not in files:
            problems.append(f"{where}: names “{item.target}”, which is not in the folder.")
            continue
        if item.target in listed:
            problems.append(
                f"{where}: names “{item.target}” again (first on line {listed[item.target]})."
            )
            continue
        listed[item.target] = item.line
        del stack[item.level :]
        entry, problem = _place(item, stack[-1] if stack else None)
        if problem:
            problems.append(f"{where}: {problem}")
            continue
        stack.append(entry)
        problems += _read_entry(entry, files[item.target], item.text)
        entries.append(entry)
    problems += [
        f"{path} is not listed in {SUMMARY}."
        for path in sorted(files)
        if path != SUMMARY and path not in listed
    ]
    problems += _check_together(entries)
    if section is not None and sum(entry.parent is None for entry in entries) > 1:
        problems.append(
            f"{SUMMARY}: its front matter says it holds the section “{section}”, but it lists "
            "more than one entry at its top."
        )
    return Outline(entries, section), problems


def _place(item, parent):
    """Return ``(entry, None)`` for a list item under ``parent``'s item, or ``(None, problem)``
    when its file is not where the item's place in the list says."""
    kind = Node.Kind.SECTION if posixpath.basename(item.target) == INDEX else Node.Kind.CHAPTER
    folder = posixpath.dirname(item.target)
    container = posixpath.dirname(folder) if kind == Node.Kind.SECTION else folder
    if kind == Node.Kind.SECTION and not folder:
        return None, f"“{item.target}” is at the top of the folder; a section's is in its folder."
    entry = Entry(kind=kind, where=FilePlace(item.target, item.line, folder), parent=parent)
    if parent is None:
        if kind == Node.Kind.CHAPTER and not container:
            return (
                None,
                f"“{item.target}” is at the top of the folder; a chapter is in a section's folder.",
            )
        entry.location = container
    elif parent.kind == Node.Kind.CHAPTER:
        return (
            None,
            f"“{item.target}” is listed under the chapter “{parent.where.file}”; chapters hold "
            "no pages.",
        )
    elif container != parent.where.folder:
        return None, (
            f"“{item.target}” is listed under “{parent.where.file}” but is not in its folder "
            f"“{parent.where.folder}/”."
        )
    return entry, None


def _read_entry(entry, data, text):
    """Fill ``entry`` from its file; return the file's problems."""
    document = read_document(data)
    where = entry.where
    problems = [f"{where.file} {problem}" for problem in document.problems]
    where.lines, entry.body, where.body_line = document.lines, document.body, document.body_line
    values = document.fields
    problems += [
        f"{entry.at(name)}: “{name}” is not a name the front matter knows ({', '.join(FIELDS)})."
        for name in sorted(values.keys() - set(FIELDS))
    ]
    default_slug = posixpath.basename(
        where.folder if entry.kind == Node.Kind.SECTION else where.file
    )
    entry.title = values.get("title", text)
    entry.slug = values.get("slug", default_slug.removesuffix(".md"))
    entry.status, entry.id = values.get("status"), values.get("id")
    entry.requires = values.get("requires")
    problems += [f"{entry.at('requires')}: {problem}" for problem in requires_problems(entry)]
    for name, kind in (("title", str), ("slug", str), ("status", str), ("id", int)):
        value = getattr(entry, name)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            wanted = "a whole number" if kind is int else "text (put it in quotes)"
            problems.append(f"{entry.at(name)}: “{name}” is not {wanted}.")
            setattr(entry, name, "" if kind is str else None)
    if entry.id is not None and entry.id < 1:
        problems.append(f"{entry.at('id')}: “id” is not a positive number.")
        entry.id = None
    problems += _date(entry, values.get("updated"))
    problems += _field_problems(entry)
    return problems


def _date(entry, value):
    """Set the entry's ``updated`` from the front matter's value; return its problems."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return [f"{entry.at('updated')}: “updated” is not a date and time (ISO 8601)."]
    if not isinstance(value, datetime):
        return [f"{entry.at('updated')}: “updated” is not a date and time (ISO 8601)."]
    entry.updated = value
    return []


def _field_problems(entry):
    """Return what is wrong with the entry's fields as a node's and with its body
    (``chapters.imports.entries``), each at its line."""
    problems = [f"{entry.at(name)}: {problem}" for name, problem in node_problems(entry)]
    return problems + [f"{entry.at('body')}: {problem}" for problem in body_problems(entry)]


def _check_together(entries):
    """Return the problems of the entries together: two claiming one slug among the same
    siblings, or one id."""
    problems, slugs, ids = [], {}, {}
    for entry in entries:
        siblings = (id(entry.parent), entry.location)
        first = slugs.setdefault((siblings, entry.slug), entry)
        if first is not entry and entry.slug:
            problems.append(
                f"{entry.at('slug')}: claims the slug “{entry.slug}”, as {first.at('slug')} "
                "does; siblings cannot share a slug."
            )
        if entry.id is not None:
            first = ids.setdefault(entry.id, entry)
            if first is not entry:
                problems.append(
                    f"{entry.at('id')}: claims the id {entry.id}, as {first.at('id')} does."
                )
    return problems
