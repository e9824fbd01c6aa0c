"""The rules a node keeps: where it may stand in the tree, and what its fields may hold.

``Node`` (:mod:`.node`) takes them from :class:`NodeRules`: where it may stand is
:class:`~.placement.PlacementRules` (with the limits of paths and the reserved slugs), what
its fields may hold :class:`FieldRules`, here. Its ``save()`` checks them under
the tree's lock (:meth:`NodeRules.validate_in_tree`); the admin's form through ``clean()``;
curriculum files, fixtures and ``check_tree()`` through :meth:`NodeRules.field_problems` and
:meth:`NodeRules.check_placement`.
"""

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import validate_unicode_slug
from django.db import models
from django.utils import timezone
from django.utils.text import slugify

from chapters.markdown import BODY_MAX_LENGTH, MarkdownError, check_markdown

from .placement import (
    PATH_MAX_LENGTH,
    PATH_URL_MAX_LENGTH,
    REQUEST_LINE_MAX_LENGTH,
    RESERVED_ROOT_SLUGS,
    PlacementRules,
)
from .prerequisites import PrerequisiteRules, requires_shape_problem
from .tree import current_write

__all__ = [
    "CHOICE_CONSTRAINTS",
    "PATH_MAX_LENGTH",
    "PATH_URL_MAX_LENGTH",
    "REQUEST_LINE_MAX_LENGTH",
    "RESERVED_ROOT_SLUGS",
    "TITLE_MAX_LENGTH",
    "FieldRules",
    "Kind",
    "NodeRules",
    "Status",
    "one_line",
    "title_character_problem",
    "unique_slug",
]

# What no database stores: a NUL, and a lone surrogate (only in text that came from JSON or
# Python, never from UTF-8). Searched for with a regular expression: a loop in Python over a
# body's 100,000 characters took 20 ms of the tree's lock.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

TITLE_MAX_LENGTH = 200
# What a title may not hold, as its error messages say it. A title is one line: it heads
# pages, fills the <title> and the subjects of e-mail, where a line break would start another
# header. Beyond control characters (Unicode category Cc: line breaks, tabs, escapes),
# bidirectional embeddings, overrides and isolates reorder the text around them (the "Trojan
# Source" attack, CVE-2021-42574), line and paragraph separators break the line, and
# zero-width spaces make two titles that look the same differ. The zero-width joiner and
# non-joiner (U+200D, U+200C) stay allowed: Persian, the scripts of India and emoji need them.
CONTROL_CHARACTERS = "a line break, a tab or another control character"
REFUSED_IN_TITLES = {
    **dict.fromkeys("\u202a\u202b\u202c\u202d\u202e", "a bidirectional override"),
    **dict.fromkeys("\u2066\u2067\u2068\u2069", "a bidirectional override"),
    **dict.fromkeys("\u2028\u2029", "a line or paragraph separator"),
    **dict.fromkeys("\u200b\u2060\ufeff\u180e", "a zero-width character"),
}


class Kind(models.TextChoices):
    """What a node is: a section holds nodes, a chapter holds text (``Node.Kind``)."""

    SECTION = "section", "Section"
    CHAPTER = "chapter", "Chapter"


class Status(models.TextChoices):
    """How far a node's text has come (``Node.Status``)."""

    DRAFT = "draft", "Draft"
    IN_REVIEW = "review", "In review"
    PUBLISHED = "published", "Published"


# The database's own check that a node's kind and status are among their choices
# (``Node.Meta.constraints``), so that not even QuerySet.update() or raw SQL stores another.
CHOICE_CONSTRAINTS = [
    models.CheckConstraint(
        condition=models.Q((f"{field}__in", choices.values)),
        name=f"{field}_is_a_choice",
        violation_error_message=f"The {field} is not one of {', '.join(choices)}.",
    )
    for field, choices in (("kind", Kind), ("status", Status))
]


def title_character_problem(title):
    """Return what a title may not hold that ``title`` holds, as a phrase; None if nothing.

    Returns:
        ``CONTROL_CHARACTERS`` for a control character (Unicode category Cc), else for the
        first character of ``REFUSED_IN_TITLES`` what it is and its code point and name
        ("a bidirectional override (U+202E RIGHT-TO-LEFT OVERRIDE)"), else None.
    """
    if any(unicodedata.category(character) == "Cc" for character in title):
        return CONTROL_CHARACTERS
    for character in title:
        if character in REFUSED_IN_TITLES:
            name = unicodedata.name(character)
            return f"{REFUSED_IN_TITLES[character]} (U+{ord(character):04X} {name})"
    return None


def unique_slug(title, taken, fallback):
    """Return a slug for ``title`` that is not in ``taken``.

    Django's ``slugify`` with ``allow_unicode`` keeps letters of any script, so a title in
    Cyrillic or Chinese keeps its words and still works in a URL; a title of only punctuation
    gets ``fallback``. While the slug is taken, "-2", "-3", ... is appended.

    Args:
        title: the node's title.
        taken: the slugs the node's siblings already use (any container).
        fallback: the slug to use when the title has no letters or digits.

    Returns:
        A non-empty slug of at most 100 characters.
    """
    base = slugify(title, allow_unicode=True)[:90].strip("-_") or fallback
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def one_line(text):
    """Return ``text`` with its line breaks, tabs and runs of spaces made single spaces.

    What a user writes as one line (an edit summary, where the site's editor, the admin, a
    pending change, a script or a delete stores it) is stored so, and a review's comment
    is mailed so (``chapters.edit.notify``): it cannot fake lines of its own in a history,
    a feed or a message.

    Args:
        text: a text, or None.

    Returns:
        The text on one line, stripped; "" for None.
    """
    return " ".join((text or "").split())


class FieldRules:
    """The checks of a node's own fields, each alone; a mixin of ``Node`` (by
    :class:`NodeRules`).

    They read the other nodes through the node's own model (``type(self).objects``).
    """

    def check_body(self):
        """Raise :class:`~chapters.markdown.MarkdownError` for a body that cannot be
        rendered: the error of its rendering before the write's lock, where the write
        rendered it (``tree_write(bodies=...)``), else :func:`~chapters.markdown.
        check_markdown`'s, which runs no lexer."""
        write = current_write(self._state.db)
        rendered = write.rendered.get(self.body) if write is not None else None
        if rendered is None:
            check_markdown(self.body)
        elif rendered.error is not None:
            raise rendered.error

    def field_problems(self, updated_as_written=None):
        """Return what is wrong with the node's own fields, each checked alone.

        The checks every row must pass before it is stored, whoever writes it: a curriculum
        file (``chapters.curriculum_file``) or a fixture (the ``loaddata`` command), which
        both bypass the admin's form; ``type(self).objects.check_tree()`` applies them to stored
        nodes, and ``save()`` through :meth:`check_fields`. The tree's rules, which need the
        other nodes, are :meth:`validate_placement`; whether the body can be rendered is known
        by rendering it. Deferred fields are not read.

        Args:
            updated_as_written: ``updated`` as the source wrote it, quoted in the message
                about a date without a timezone; by default its ISO 8601 form.

        Returns:
            A list of sentences, in lower case and ending with a full stop, in this order:
            text fields holding a NUL or a lone surrogate (no database stores them), a blank
            title, a title holding what a title may not (:func:`title_character_problem`), a
            title or slug longer than its column, a slug that is not a slug, a kind or status
            that is not a choice, prerequisites that are not a list of distinct ids, a date
            without a timezone. Empty when all is well.
        """
        return [problem for _, problem in self._field_problems(updated_as_written)]

    def check_fields(self):
        """Refuse the node's own fields as :meth:`field_problems` does, but for ``updated``
        (which ``save()`` sets).

        Called by ``save()`` once the slug is filled in, so that code saving a node directly
        stores no status or kind outside their choices, no malformed slug and no blank or
        unsafe title (the database refuses the first two too: ``Node.Meta.constraints``).

        Raises:
            ValidationError: keyed by field, each message a sentence naming the field.
        """
        errors = {}
        for field, problem in self._field_problems():
            if field != "updated":
                errors.setdefault(field, []).append(problem[0].upper() + problem[1:])
        if errors:
            raise ValidationError(errors)

    def _field_problems(self, updated_as_written=None):
        """Yield ``(field, sentence)`` for each problem :meth:`field_problems` lists."""
        read = {"body", "kind", "path", "slug", "status", "title"} - self.get_deferred_fields()
        for field in sorted(read):
            if UNSTORABLE.search(getattr(self, field)):
                yield field, f"“{field}” holds a NUL or a lone surrogate, which no database stores."
        if not self.title.strip():
            yield "title", "the title is blank."
        if "title" in read and (problem := title_character_problem(self.title)):
            yield "title", f"the title holds {problem}."
        for field in ("title", "slug"):
            length, limit = len(getattr(self, field)), self._meta.get_field(field).max_length
            if length > limit:
                yield field, f"the {field} is {length} characters long; the limit is {limit}."
        try:
            validate_unicode_slug(self.slug)
        except ValidationError:
            yield "slug", f"the slug “{self.slug}” is not a slug (letters, digits, “-” or “_”)."
        for field, choices in (("kind", self.Kind), ("status", self.Status)):
            value = getattr(self, field)
            if value not in choices.values:
                yield field, f"the {field} “{value}” is not one of {', '.join(choices.values)}."
        requires = "requires" not in self.get_deferred_fields()
        if requires and (problem := requires_shape_problem(self.requires)):
            yield "requires", problem
        if self.updated is not None and timezone.is_naive(self.updated):
            written = updated_as_written or self.updated.isoformat()
            yield "updated", f"“updated” “{written}” has no timezone (end it with Z or +00:00)."

    def check_lengths(self):
        """Refuse a title or body longer than allowed, the same on every database.

        SQLite does not enforce a column's length, and PostgreSQL enforces the title's only
        with a database error; this check comes first on both.

        Raises:
            ValidationError: (keyed by field) the title is longer than ``TITLE_MAX_LENGTH``
                or the body longer than ``BODY_MAX_LENGTH`` characters.
        """
        errors = {}
        for field, limit in (("title", TITLE_MAX_LENGTH), ("body", BODY_MAX_LENGTH)):
            length = len(getattr(self, field))
            if length > limit:
                errors[field] = (
                    f"Ensure this value has at most {limit:,} characters (it has {length:,})."
                )
        if errors:
            raise ValidationError(errors)

    def fill_slug(self):
        """Give the node a slug made from its title, unique among its siblings, if it has none.

        See :func:`unique_slug`; a title of only punctuation gets the node's kind ("chapter").
        """
        if self.slug:
            return
        siblings = type(self).objects.filter(parent_id=self.parent_id).exclude(pk=self.pk)
        taken = set(siblings.values_list("slug", flat=True))
        if self.parent_id is None:
            taken |= RESERVED_ROOT_SLUGS
        self.slug = unique_slug(self.title, taken, fallback=self.kind)


class NodeRules(PlacementRules, PrerequisiteRules, FieldRules):
    """The checks of a node's place in the tree (:class:`~.placement.PlacementRules`), of its
    prerequisites (:class:`~.prerequisites.PrerequisiteRules`) and of its own fields
    (:class:`FieldRules`); a mixin of ``Node``, and the admin form's ``clean()``, which needs
    them all."""

    def clean(self):
        """Validate the node as the admin's form sees it.

        Raises:
            ValidationError: the title is blank or holds what a title may not (see
                :func:`title_character_problem`), the title or body is too long, the body
                cannot be rendered, the tree's rules refuse the node where it is (see
                :meth:`validate_in_tree`), or its prerequisites are refused
                (:meth:`validate_requires`).
        """
        if not self.title.strip():
            raise ValidationError({"title": "The title cannot be blank."})
        if problem := title_character_problem(self.title):
            raise ValidationError({"title": f"The title cannot hold {problem}."})
        self.check_lengths()
        try:
            self.check_body()
        except MarkdownError as error:
            raise ValidationError({"body": str(error)}) from error
        self.fill_slug()
        self.validate_in_tree()
        self.validate_requires()
