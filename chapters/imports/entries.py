"""What an import reads, whatever the format: entries, one per node, and their checks.

A curriculum file (``chapters.curriculum_file``) and a folder of Markdown files
(``chapters.files.reading``) are read into the same :class:`Entry`; each entry's fields are
then checked by the same two functions, the rules every node keeps (:func:`node_problems`,
``Node.field_problems``, which ``manage.py loaddata`` applies to fixtures' rows too) and its
body's (:func:`body_problems`). Only what a format alone gives (a JSON field's type, a
front matter's line, a path written out beside its parent and slug) is checked by its
reader. Nothing here reads the database.
"""

from dataclasses import dataclass
from datetime import datetime

from ..markdown import BODY_MAX_LENGTH, MarkdownError, check_markdown
from ..models import Node

__all__ = ["Entry", "body_problems", "node_problems", "requires_problems"]

# Node.field_problems' sentences start with the field they are about: "the slug ...",
# "“body” holds ...".
NAMED = ("title", "slug", "status", "updated", "body", "requires")


@dataclass(eq=False)
class Entry:
    """One node as an import reads it, before it is matched to a node of the tree.

    Attributes:
        kind: "section" or "chapter".
        where: where the format has it, an object with ``at(name=None)``: the text naming
            the entry, or the line of one of its fields, in a problem (each format's own).
        parent: the entry it is under, or None at the top of what was read.
        location: for an entry without ``parent``, the path of the wiki's section it goes
            under ("" for an area); None when it has a parent.
        title, slug, body: its fields.
        status: its status, or None to keep a matched node's (a draft for a new one).
        updated: the date of its latest revision, or None (the import's time).
        id: the primary key it asks for, or None.
        given_path: the path the format writes out (a curriculum file's ``path``), checked
            with the node's fields; "" when the format derives it.
        requires: the paths of its prerequisites as read, in order, or None to keep a
            matched node's; the engine replaces them by the ids they name
            (``TreeImport``, ``chapters.models.prerequisites``).
    """

    kind: str
    where: object
    parent: "Entry | None" = None
    location: str | None = None
    title: str = ""
    slug: str = ""
    status: str | None = None
    updated: datetime | None = None
    id: int | None = None
    body: str = ""
    given_path: str = ""
    requires: list | None = None

    def __str__(self):
        return self.at()

    def at(self, name=None):
        """Return the text naming the entry, or its field ``name``, in a problem."""
        return self.where.at(name)

    @property
    def path(self):
        """Return the node's path as the entry places it."""
        above = self.parent.path if self.parent is not None else self.location
        return f"{above}/{self.slug}" if above else self.slug


def node_problems(entry, updated_as_written=None):
    """Return ``(field, sentence)`` for what is wrong with the entry as a node's fields.

    The checks of ``Node.field_problems`` (the rules every stored node keeps: no NUL, a
    title that is one safe line, a slug that is a slug, choices, a date with a timezone),
    on a node made of the entry's fields (a draft when it gives no status).

    Args:
        entry: the :class:`Entry`.
        updated_as_written: ``updated`` as the file wrote it, quoted in the message about a
            date without a timezone.

    Returns:
        A list of ``(field, sentence)``; ``field`` is the field the sentence is about, or
        None.
    """
    node = Node(
        title=entry.title,
        slug=entry.slug,
        kind=entry.kind,
        status=entry.status or Node.Status.DRAFT,
        body=entry.body,
        path=entry.given_path,
        updated=entry.updated,
    )
    return [
        (next((n for n in NAMED if problem.startswith((f"the {n} ", f"“{n}”"))), None), problem)
        for problem in node.field_problems(updated_as_written=updated_as_written)
    ]


def body_problems(entry):
    """Return the sentences of what is wrong with the entry's body: too long, or it cannot be
    rendered (``chapters.markdown.check_markdown``, which runs no lexer).

    Args:
        entry: the :class:`Entry`.
    """
    if len(entry.body) > BODY_MAX_LENGTH:
        return [
            f"the body is {len(entry.body):,} characters long; the limit is {BODY_MAX_LENGTH:,}."
        ]
    try:
        check_markdown(entry.body)
    except MarkdownError as error:
        return [f"the body cannot be rendered: {error}"]
    return []


def requires_problems(entry):
    """Return the sentences of what is wrong with the entry's ``requires`` as read: not a
    list of paths (text), a path given twice, or prerequisites for a section.

    Args:
        entry: the :class:`Entry`; its ``requires`` is left None when it is not a list of
            text.
    """
    if entry.requires is None:
        return []
    if not isinstance(entry.requires, list) or not all(
        isinstance(path, str) for path in entry.requires
    ):
        entry.requires = None
        return ["“requires” is not a list of page paths."]
    entry.requires = [path.strip("/") for path in entry.requires]
    if len(set(entry.requires)) != len(entry.requires):
        return ["“requires” names a page more than once."]
    if entry.requires and entry.kind != Node.Kind.CHAPTER:
        return ["“requires” is for chapters; a section has no prerequisites."]
    return []
