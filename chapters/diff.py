"""Compare two revisions of a node: changed fields, and a line diff of the body with the
changed words of each changed line marked.

Built on the standard library's ``difflib.SequenceMatcher`` (Ratcliff/Obershelp matching,
grouped into hunks with context as ``diff -u`` does). The results are plain data; templates
render them, so every piece of text is escaped by Django's auto-escaping.
"""

import difflib
import re
from dataclasses import dataclass

__all__ = ["Segment", "Line", "FieldChange", "choice_label", "diff_text", "field_changes"]

CONTEXT_LINES = 3
# SequenceMatcher is quadratic in the worst case; changed lines longer than this many tokens
# are shown whole rather than word by word, and the line diff lets difflib treat very common
# lines as junk (its "autojunk" heuristic), which keeps repetitive bodies fast.
MAX_WORD_DIFF_TOKENS = 400
TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Segment:
    """A run of text within a line; ``changed`` marks the words that differ."""

    text: str
    changed: bool = False


@dataclass(frozen=True)
class Line:
    """One line of a diff: ``kind`` is "equal", "delete" or "insert"."""

    kind: str
    old_number: int | None
    new_number: int | None
    segments: tuple[Segment, ...]

    @property
    def key(self):
        """Name the line as a review comment does (``ReviewComment.line``): ``"new-N"`` for
        the new text's line N (added or unchanged), ``"old-N"`` for a line only the old
        text has."""
        return f"old-{self.old_number}" if self.kind == "delete" else f"new-{self.new_number}"


@dataclass(frozen=True)
class FieldChange:
    """A field whose value differs between two revisions, as text to show."""

    label: str
    old: str
    new: str


def choice_label(choices, value):
    """Return the label of ``value`` among ``choices`` (a ``TextChoices``), else ``value``.

    A revision or a pending change may hold a value that is no longer a choice (stored before
    the model refused them, issue 24); it is shown as stored rather than failing the page.
    """
    return dict(choices.choices).get(value, value)


def field_changes(old, new, fields):
    """Return the fields whose shown values differ between two revisions.

    Args:
        old, new: the two revisions (any objects).
        fields: ``(label, function)`` pairs; each function returns a revision's value as
            text to show.

    Returns:
        A list of :class:`FieldChange`, in the order of ``fields``.
    """
    changes = []
    for label, value in fields:
        before, after = value(old), value(new)
        if before != after:
            changes.append(FieldChange(label, before, after))
    return changes


def diff_text(old, new, context=CONTEXT_LINES):
    """Return the line diff of two texts, as hunks of lines with ``context`` lines around.

    A block of lines replaced by as many or fewer lines is paired line by line and each pair
    is diffed word by word, so that only the changed words of a changed line are marked.

    Args:
        old, new: the two texts.
        context: how many unchanged lines to keep around each change.

    Returns:
        A list of hunks, each a list of :class:`Line`; empty when the texts are equal.
    """
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    hunks = []
    for group in matcher.get_grouped_opcodes(context):
        hunk = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                hunk.extend(
                    Line("equal", i + 1, j + 1, (Segment(old_lines[i]),))
                    for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                )
                continue
            paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
            for k in range(paired):
                old_segments, new_segments = _diff_words(old_lines[i1 + k], new_lines[j1 + k])
                hunk.append(Line("delete", i1 + k + 1, None, old_segments))
                hunk.append(Line("insert", None, j1 + k + 1, new_segments))
            hunk.extend(
                Line("delete", i + 1, None, (Segment(old_lines[i]),))
                for i in range(i1 + paired, i2)
            )
            hunk.extend(
                Line("insert", None, j + 1, (Segment(new_lines[j]),))
                for j in range(j1 + paired, j2)
            )
        hunks.append(hunk)
    return hunks


def _diff_words(old_line, new_line):
    """Return the segments of two lines with the words that differ marked as changed.

    White space between two changed words counts as changed, so a run of changed words is
    marked as one.
    """
    old_tokens, new_tokens = TOKEN.findall(old_line), TOKEN.findall(new_line)
    if max(len(old_tokens), len(new_tokens)) > MAX_WORD_DIFF_TOKENS:
        return (Segment(old_line, True),), (Segment(new_line, True),)
    matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    opcodes = matcher.get_opcodes()
    old_segments, new_segments = [], []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        between_changes = 0 < index < len(opcodes) - 1
        changed = tag != "equal" or (between_changes and not "".join(old_tokens[i1:i2]).strip())
        _append(old_segments, "".join(old_tokens[i1:i2]), changed)
        _append(new_segments, "".join(new_tokens[j1:j2]), changed)
    return tuple(old_segments), tuple(new_segments)


def _append(segments, text, changed):
    """Append ``text`` to ``segments``, joining it to the last segment if marked alike."""
    if not text:
        return
    if segments and segments[-1].changed == changed:
        segments[-1] = Segment(segments[-1].text + text, changed)
    else:
        segments.append(Segment(text, changed))
