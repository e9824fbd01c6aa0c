"""The curriculum file: the whole tree as versioned JSON, exported and imported by path.

``manage.py export_curriculum`` writes it and ``manage.py import_curriculum`` reads it back::

    {"format": "curriculum-wiki", "nodes": [...], "version": 1}

The nodes come in tree order (a parent before its children, siblings in the editor's order).
Each is an object of eight fields: ``path`` (the node's URL path, its natural key), ``parent``
(the parent's path, or null for an area), ``slug`` (the last segment of the path), ``kind``,
``status``, ``title``, ``body`` (Markdown) and ``updated`` (the date of its latest revision,
ISO 8601 with a UTC offset), and a chapter with prerequisites a ninth, ``requires``, the
paths of the chapters it builds on, in order (without it, a chapter has none). What is
derived from them (HTML, text, headings, links, redirects, django-mptt's tree numbers) is
left out; an import saves through the model, which derives it again. The same database
always gives the same bytes: keys sorted, two spaces of indent, UTF-8 without escapes, a
final newline.
"""

import json
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

from .imports.engine import (
    ImportRefused,
    Policy,
    TreeImport,
    date_latest_revision,
    tree_position,
)
from .imports.entries import Entry, body_problems, node_problems, requires_problems
from .models import RESERVED_ROOT_SLUGS, Node, tree_write

__all__ = [
    "FORMAT",
    "VERSION",
    "CurriculumFileError",
    "ImportCounts",
    "JsonPlace",
    "date_latest_revision",
    "export_curriculum",
    "import_curriculum",
    "tree_position",
]

FORMAT = "curriculum-wiki"
VERSION = 1
FIELDS = ("body", "kind", "parent", "path", "slug", "status", "title", "updated")
# The fields a node may leave out (``requires``: none).
OPTIONAL = ("requires",)
# What the import engine does with a file's entries: match them by path (their place), the
# file's content replacing the site's, a new first sibling before the next one the tree has.
POLICY = Policy(use_ids=False, keep_site_edits=False, new_first="before_next")


class CurriculumFileError(Exception):
    """A curriculum file that cannot be imported; ``problems`` lists every reason."""

    def __init__(self, problems):
        super().__init__("\n".join(problems))
        self.problems = problems


class ImportCounts(NamedTuple):
    """What an import did: nodes added, changed and unchanged, and nodes not in the file."""

    added: int
    changed: int
    unchanged: int
    not_in_file: int


@dataclass
class JsonPlace:
    """Where an entry is in a curriculum file, and what only the file gives: its index in
    ``nodes``, its path and its parent's path (an :class:`~chapters.imports.entries.Entry`'s
    ``where``)."""

    index: int
    path: str
    parent: str | None

    def at(self, name=None):
        """Return "nodes[<index>] “<path>”", whatever the field."""
        return f"nodes[{self.index}] “{self.path}”"


def export_curriculum():
    """Return the whole tree as the text of a curriculum file (see the module's docstring).

    Returns:
        The JSON text, ending with a newline; the same for the same database.
    """
    read = ("body", "kind", "path", "slug", "status", "title", "updated", "requires")
    stored = list(Node.objects.only(*read))
    paths = {node.pk: node.path for node in stored}
    nodes = []
    for node in stored:
        fields = {
            "body": node.body,
            "kind": node.kind,
            "parent": node.path.rpartition("/")[0] or None,
            "path": node.path,
            "slug": node.slug,
            "status": node.status,
            "title": node.title,
            "updated": node.updated.astimezone(UTC).isoformat(),
        }
        requires = [paths[pk] for pk in node.requires if pk in paths]
        if requires:
            fields["requires"] = requires
        nodes.append(fields)
    document = {"format": FORMAT, "version": VERSION, "nodes": nodes}
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def import_curriculum(data, source=None, *, summary=None, user=None):
    """Load a curriculum file into the tree, all or nothing.

    Every entry is checked alone first (``chapters.imports.entries``, as a folder's); then,
    in one write to the tree (``tree_write``, so that nothing of the tree is read before its
    lock), against the file and the database; then the import engine
    (``chapters.imports.engine``) updates the node at each entry's path (title, kind,
    status, body and its place among its siblings) and adds the others, a new first sibling
    before the next one the tree holds, through ``Node.save()`` and django-mptt's moves, so
    paths, HTML, links and redirects are derived as for an edit. Siblings end up in the
    file's order; nodes that are not in the file are left as they are, and what the file
    holds replaces what the site changed after its dates (the stale rule,
    ``chapters.imports.stale``, is a folder's). Each added or changed node gets one
    revision, by ``user``, with the summary ``summary`` ("Imported from <source>" by
    default). Its date, and the node's ``updated``, are the file's when the node is new or
    the file's date is later than its latest revision; otherwise the change is a new edit,
    dated now.

    Args:
        data: the file's bytes.
        source: the file's name, for the default summary.
        summary: the revisions' summary (the command's names the file's git commit:
            ``chapters.management.importing``); None for "Imported from <source>".
        user: the revisions' author, or None.

    Returns:
        An :class:`ImportCounts`.

    Raises:
        CurriculumFileError: the file is not a valid curriculum file or does not fit the
            tree; its ``problems`` name each offending entry. Nothing is written.
    """
    entries, problems = _read(data)
    summary = summary or f"Imported from {source}"
    with tree_write(user=user, bodies=[entry.body for entry in entries]):
        run = TreeImport(summary, POLICY)
        kinds = {path: kind for _, _, path, kind in run.tree.nodes.values()}
        problems += _check_tree(entries, kinds)
        if problems:
            raise CurriculumFileError(problems)
        _link(entries)
        run.match(entries)
        try:
            run.apply()
        except ImportRefused as error:
            raise CurriculumFileError(error.problems) from error
        done = Counter(change.action for change in run.changes)
        return ImportCounts(
            added=done["added"],
            changed=done["changed"] + done["moved"],
            unchanged=run.unchanged,
            not_in_file=len(run.unmatched),
        )


def _read(data):
    """Return a file's entries and the problems of the file and of each entry alone.

    An entry is returned if it has the eight fields, of the right types, even when a field's
    value is wrong, so that the checks across entries can still name what else is wrong.
    """
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        return [], [f"The file is not UTF-8 text ({error.reason} at byte {error.start})."]
    except json.JSONDecodeError as error:
        return [], [f"The file is not valid JSON: {error}."]
    if not isinstance(document, dict) or set(document) != {"format", "version", "nodes"}:
        return [], [
            "The file is not a curriculum file: it must be an object with exactly "
            "“format”, “version” and “nodes”."
        ]
    if document["format"] != FORMAT:
        return [], [f"The file is not a curriculum file: its “format” is not “{FORMAT}”."]
    if document["version"] != VERSION:
        return [], [
            f"The file is version {json.dumps(document['version'])}; this wiki reads "
            f"version {VERSION}."
        ]
    if not isinstance(document["nodes"], list):
        return [], ["The file's “nodes” is not a list."]
    entries, problems = [], []
    for index, fields in enumerate(document["nodes"]):
        entry, entry_problems = _read_entry(index, fields)
        problems += entry_problems
        if entry is not None:
            entries.append(entry)
    return entries, problems


def _read_entry(index, fields):
    """Return ``(Entry or None, problems)`` for one node of the file, checked alone."""
    label = f"nodes[{index}]"
    if not isinstance(fields, dict):
        return None, [f"{label}: is not an object."]
    if isinstance(fields.get("path"), str):
        label = f"{label} “{fields['path']}”"
    missing, unknown = set(FIELDS) - fields.keys(), fields.keys() - {*FIELDS, *OPTIONAL}
    if missing or unknown:
        return None, [
            f"{label}: {name} field{'s' if len(names) > 1 else ''} "
            + ", ".join(f"“{field}”" for field in sorted(names))
            + "."
            for name, names in (("lacks the", missing), ("has the unknown", unknown))
            if names
        ]
    wrong = [f for f in FIELDS if not isinstance(fields[f], str)]
    if fields["parent"] is None:
        wrong.remove("parent")
    if wrong:
        return None, [f"{label}: “{field}” is not a string." for field in wrong]
    entry = Entry(
        kind=fields["kind"],
        where=JsonPlace(index, fields["path"], fields["parent"]),
        title=fields["title"],
        slug=fields["slug"],
        status=fields["status"],
        body=fields["body"],
        given_path=fields["path"],
        requires=fields.get("requires", []),
    )
    return entry, [f"{label}: {problem}" for problem in _field_problems(entry, fields["updated"])]


def _field_problems(entry, updated):
    """Yield what is wrong with an entry's fields, and set its ``updated`` from ``updated``.

    The node's own fields and its body are checked as every import's entries are
    (``chapters.imports.entries``); what only a file has (the path and parent it gives, the
    date as text) is checked here.
    """
    path, parent = entry.where.path, entry.where.parent
    for field, value in (("parent", parent), ("updated", updated)):
        if value is not None and any(c == "\x00" or "\ud800" <= c <= "\udfff" for c in value):
            yield f"“{field}” holds a NUL or a lone surrogate, which no database stores."
    try:
        entry.updated = datetime.fromisoformat(updated)
    except ValueError:
        unreadable = f"“updated” “{updated}” is not an ISO 8601 date and time."
    else:
        unreadable = None
    for _, problem in node_problems(entry, updated_as_written=updated):
        yield problem
    limit = Node._meta.get_field("path").max_length
    if len(path) > limit:
        yield f"the path is {len(path)} characters long; the limit is {limit}."
    if parent is None and entry.slug in RESERVED_ROOT_SLUGS:
        yield f"the slug “{entry.slug}” is reserved for the site's own URLs."
    expected = f"{parent}/{entry.slug}" if parent is not None else entry.slug
    if path != expected:
        yield f"the path is not the parent's path and the slug (“{expected}”)."
    if unreadable:
        yield unreadable
    yield from body_problems(entry)
    yield from requires_problems(entry)


def _check_tree(entries, kinds):
    """Return what is wrong with the entries together, and with the tree they would make.

    Args:
        entries: the file's entries, in file order, each with its :class:`JsonPlace`.
        kinds: the database's nodes' kinds by path.
    """
    problems, first = [], {}
    for entry in entries:
        if entry.where.path in first:
            problems.append(
                f"{entry}: {first[entry.where.path]} has the same path; siblings cannot share "
                f"the slug “{entry.slug}”."
            )
        first.setdefault(entry.where.path, entry)
    for entry in entries:
        place = entry.where
        chain, parent = [place.path], first.get(place.parent)
        while parent is not None and parent is not entry and parent.where.path not in chain[1:]:
            chain.append(parent.where.path)
            parent = first.get(parent.where.parent)
        if parent is entry:
            cycle = " → ".join(f"“{path}”" for path in [*chain, place.path])
            problems.append(f"{entry}: is its own ancestor ({cycle}).")
        elif place.parent is None and entry.kind == Node.Kind.CHAPTER:
            problems.append(f"{entry}: a chapter must belong to a section.")
        elif place.parent is not None and place.parent in first:
            parent = first[place.parent]
            if parent.where.index > place.index:
                problems.append(f"{entry}: comes before its parent, {parent}; list parents first.")
            if parent.kind == Node.Kind.CHAPTER:
                problems.append(
                    f"{entry}: its parent {parent} is a chapter; chapters cannot have children."
                )
        elif place.parent is not None and place.parent not in kinds:
            problems.append(
                f"{entry}: its parent “{place.parent}” is neither in the file nor in the database."
            )
        elif place.parent is not None and kinds[place.parent] == Node.Kind.CHAPTER:
            problems.append(
                f"{entry}: its parent “{place.parent}” is a chapter in the database; "
                "chapters cannot have children."
            )
    children = {}
    for path in kinds:
        children.setdefault(path.rpartition("/")[0], []).append(path)
    for entry in entries:
        if entry.kind == Node.Kind.CHAPTER and entry.where.path in kinds:
            stay = [path for path in children.get(entry.where.path, []) if path not in first]
            if stay:
                problems.append(
                    f"{entry}: is a chapter in the file but has children in the database "
                    f"that the file does not hold (“{stay[0]}”)."
                )
    return problems


def _link(entries):
    """Give each entry its parent entry, or, for a parent the file does not hold, the path of
    the node it goes under as its ``location`` ("" at the top). The entries passed
    :func:`_check_tree`: paths are unique, and parents come first."""
    by_path = {}
    for entry in entries:
        entry.parent = by_path.get(entry.where.parent)
        if entry.parent is None:
            entry.location = entry.where.parent or ""
        by_path[entry.where.path] = entry
