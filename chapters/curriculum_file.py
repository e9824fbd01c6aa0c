"""The curriculum file: the whole tree as versioned JSON, exported and imported by path.

``manage.py export_curriculum`` writes it and ``manage.py import_curriculum`` reads it back::

    {"format": "curriculum-wiki", "nodes": [...], "version": 1}

The nodes come in tree order (a parent before its children, siblings in the editor's order).
Each is an object of eight fields: ``path`` (the node's URL path, its natural key), ``parent``
(the parent's path, or null for an area), ``slug`` (the last segment of the path), ``kind``,
``status``, ``title``, ``body`` (Markdown) and ``updated`` (the date of its latest revision,
ISO 8601 with a UTC offset). What is derived from them (HTML, text, headings, links,
redirects, django-mptt's tree numbers) is left out; an import saves through the model, which
derives it again. The same database always gives the same bytes: keys sorted, two spaces of
indent, UTF-8 without escapes, a final newline.
"""

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

from django.core.exceptions import ValidationError
from mptt.exceptions import InvalidMove

from .markdown import MarkdownError, check_markdown
from .models import RESERVED_ROOT_SLUGS, Node, tree_write

__all__ = [
    "FORMAT",
    "VERSION",
    "CurriculumFileError",
    "ImportCounts",
    "date_latest_revision",
    "export_curriculum",
    "import_curriculum",
    "tree_position",
]

FORMAT = "curriculum-wiki"
VERSION = 1
FIELDS = ("body", "kind", "parent", "path", "slug", "status", "title", "updated")
# What an import compares and writes; slug and parent are part of the path it matches by.
CONTENT_FIELDS = ("title", "kind", "status", "body")


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
class Entry:
    """One node of a curriculum file, its fields checked one by one."""

    index: int
    path: str
    parent: str | None
    slug: str
    kind: str
    status: str
    title: str
    body: str
    updated: datetime

    def __str__(self):
        return f"nodes[{self.index}] “{self.path}”"


def export_curriculum():
    """Return the whole tree as the text of a curriculum file (see the module's docstring).

    Returns:
        The JSON text, ending with a newline; the same for the same database.
    """
    nodes = [
        {
            "body": node.body,
            "kind": node.kind,
            "parent": node.path.rpartition("/")[0] or None,
            "path": node.path,
            "slug": node.slug,
            "status": node.status,
            "title": node.title,
            "updated": node.updated.astimezone(UTC).isoformat(),
        }
        for node in Node.objects.only("body", "kind", "path", "slug", "status", "title", "updated")
    ]
    document = {"format": FORMAT, "version": VERSION, "nodes": nodes}
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def import_curriculum(data, source=None, *, summary=None, user=None):
    """Load a curriculum file into the tree, all or nothing.

    Every entry is checked alone first; then, in one write to the tree (``tree_write``, so
    that nothing of the tree is read before its lock), against the file and the database;
    then, in file order,
    a node whose path exists is updated (title, kind, status, body and its place among its
    siblings) and any other is added, through ``Node.save()`` and django-mptt's moves, so
    paths, HTML, links and redirects are derived as for an edit. Siblings end up in the
    file's order; nodes that are not in the file are left as they are. Each added or changed
    node gets one revision, by ``user``, with the summary ``summary`` ("Imported from
    <source>" by default). Its date, and the
    node's ``updated``, are the file's when the node is new or the file's date is later than
    its latest revision; otherwise the change is a new edit, dated now.

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
        existing = {node.path: node for node in Node.objects.for_navigation()}
        problems += _check_tree(entries, existing)
        if problems:
            raise CurriculumFileError(problems)
        counts = {"added": 0, "changed": 0, "unchanged": 0}
        placed = {}
        for entry, previous, following in _siblings(entries, existing):
            try:
                outcome = _write(entry, existing, placed, previous, following, summary)
            except (ValidationError, InvalidMove, MarkdownError) as error:
                messages = error.messages if isinstance(error, ValidationError) else [str(error)]
                raise CurriculumFileError([f"{entry}: {' '.join(messages)}"]) from error
            counts[outcome] += 1
        left = len(existing.keys() - placed.keys())
        return ImportCounts(**counts, not_in_file=left)


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
    missing, unknown = set(FIELDS) - fields.keys(), fields.keys() - set(FIELDS)
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
    entry = Entry(index=index, **{**fields, "updated": None})
    return entry, [f"{label}: {problem}" for problem in _field_problems(entry, fields["updated"])]


def _field_problems(entry, updated):
    """Yield what is wrong with an entry's fields, and set its ``updated`` from ``updated``.

    The node's own fields are checked by ``Node.field_problems``; what only a file has (the
    path and parent it gives, the date as text) and the body's rendering are checked here.
    """
    for field, value in (("parent", entry.parent), ("updated", updated)):
        if value is not None and any(c == "\x00" or "\ud800" <= c <= "\udfff" for c in value):
            yield f"“{field}” holds a NUL or a lone surrogate, which no database stores."
    try:
        entry.updated = datetime.fromisoformat(updated)
    except ValueError:
        unreadable = f"“updated” “{updated}” is not an ISO 8601 date and time."
    else:
        unreadable = None
    node = Node(
        title=entry.title,
        slug=entry.slug,
        kind=entry.kind,
        status=entry.status,
        body=entry.body,
        path=entry.path,
        updated=entry.updated,
    )
    yield from node.field_problems(updated_as_written=updated)
    limit = Node._meta.get_field("path").max_length
    if len(entry.path) > limit:
        yield f"the path is {len(entry.path)} characters long; the limit is {limit}."
    if entry.parent is None and entry.slug in RESERVED_ROOT_SLUGS:
        yield f"the slug “{entry.slug}” is reserved for the site's own URLs."
    expected = f"{entry.parent}/{entry.slug}" if entry.parent is not None else entry.slug
    if entry.path != expected:
        yield f"the path is not the parent's path and the slug (“{expected}”)."
    if unreadable:
        yield unreadable
    try:
        check_markdown(entry.body)
    except MarkdownError as error:
        yield f"the body cannot be rendered: {error}"


def _check_tree(entries, existing):
    """Return what is wrong with the entries together, and with the tree they would make.

    Args:
        entries: the file's entries, in file order.
        existing: the database's nodes by path.
    """
    problems, first = [], {}
    for entry in entries:
        if entry.path in first:
            problems.append(
                f"{entry}: {first[entry.path]} has the same path; siblings cannot share the "
                f"slug “{entry.slug}”."
            )
        first.setdefault(entry.path, entry)
    for entry in entries:
        chain, parent = [entry.path], first.get(entry.parent)
        while parent is not None and parent is not entry and parent.path not in chain[1:]:
            chain.append(parent.path)
            parent = first.get(parent.parent)
        if parent is entry:
            cycle = " → ".join(f"“{path}”" for path in [*chain, entry.path])
            problems.append(f"{entry}: is its own ancestor ({cycle}).")
        elif entry.parent is None and entry.kind == Node.Kind.CHAPTER:
            problems.append(f"{entry}: a chapter must belong to a section.")
        elif entry.parent is not None and entry.parent in first:
            parent = first[entry.parent]
            if parent.index > entry.index:
                problems.append(f"{entry}: comes before its parent, {parent}; list parents first.")
            if parent.kind == Node.Kind.CHAPTER:
                problems.append(
                    f"{entry}: its parent {parent} is a chapter; chapters cannot have children."
                )
        elif entry.parent is not None and entry.parent not in existing:
            problems.append(
                f"{entry}: its parent “{entry.parent}” is neither in the file nor in the database."
            )
        elif entry.parent is not None and existing[entry.parent].is_chapter:
            problems.append(
                f"{entry}: its parent “{entry.parent}” is a chapter in the database; "
                "chapters cannot have children."
            )
    children = {}
    for path in existing:
        children.setdefault(path.rpartition("/")[0], []).append(path)
    for entry in entries:
        if entry.kind == Node.Kind.CHAPTER and entry.path in existing:
            stay = [path for path in children.get(entry.path, []) if path not in first]
            if stay:
                problems.append(
                    f"{entry}: is a chapter in the file but has children in the database "
                    f"that the file does not hold (“{stay[0]}”)."
                )
    return problems


def _siblings(entries, existing):
    """Yield each entry with its previous sibling in the file and, for a new entry that is
    the first of its siblings, the first later sibling that exists in the database.
    """
    groups = {}
    for entry in entries:
        groups.setdefault(entry.parent, []).append(entry)
    previous, following = {}, {}
    for group in groups.values():
        pairs = zip([None, *group[:-1]], group, strict=True)
        previous.update((entry.index, before) for before, entry in pairs)
        later = None
        for entry in reversed(group):
            following[entry.index] = later
            later = entry if entry.path in existing else later
    for entry in entries:
        before = previous[entry.index]
        new_and_first = before is None and entry.path not in existing
        yield entry, before, following[entry.index] if new_and_first else None


def _write(entry, existing, placed, previous, following, reason):
    """Add or update the node of one entry in its place; return "added", "changed" or
    "unchanged".

    Args:
        entry: the entry, checked.
        existing: the database's nodes before the import, by path.
        placed: the nodes of the entries written so far, by path; this entry's is added.
        previous: the entry of the previous sibling in the file, or None.
        following: for a new node without ``previous``, the entry of the first later sibling
            in the database, or None.
        reason: the revision's summary.
    """
    if entry.path not in existing:
        parent = None
        if entry.parent is not None:
            parent = placed.get(entry.parent) or existing[entry.parent]
        node = Node(parent=parent, slug=entry.slug)
        for field in CONTENT_FIELDS:
            setattr(node, field, getattr(entry, field))
        node.validate_placement(parent)
        if previous is not None:
            node.insert_at(placed[previous.path], "right")
        elif following is not None:
            node.insert_at(existing[following.path], "left")
        node._change_reason = reason
        node.save()
        date_latest_revision(node, entry.updated)
        placed[entry.path] = node
        return "added"
    node = placed[entry.path] = Node.objects.get(pk=existing[entry.path].pk)
    changed = any(getattr(node, field) != getattr(entry, field) for field in CONTENT_FIELDS)
    after = placed[previous.path] if previous is not None else None
    moved = after is not None and tree_position(node) < tree_position(after)
    if not (changed or moved):
        return "unchanged"
    newer = entry.updated > node.updated
    for field in CONTENT_FIELDS:
        setattr(node, field, getattr(entry, field))
    node._change_reason = reason
    if moved:
        Node.objects.move_node(node, after, "right")
    else:
        node.save()
    if newer:
        date_latest_revision(node, entry.updated)
    return "changed"


def tree_position(node):
    """Return the node's place in tree order as stored: ``(tree_id, lft)``."""
    return Node.objects.filter(pk=node.pk).values_list("tree_id", "lft").get()


def date_latest_revision(node, when):
    """Date the node's latest revision, and its ``updated``, ``when`` instead of now.

    ``Node.save()`` dates every save now; an import keeps the file's dates (this module's
    and ``chapters.files.importer``'s).
    """
    Node.objects.filter(pk=node.pk).update(updated=when)
    revision = Node.history.filter(id=node.pk).order_by("-history_id").values("pk").first()
    Node.history.filter(pk=revision["pk"]).update(history_date=when, updated=when)
