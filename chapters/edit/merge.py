"""Three-way merges of an edit: the body line by line, the other fields one by one.

An editor's form was opened at one revision of a page (the *base*); if someone saved the page
since (*theirs*), what the editor typed (*yours*) is merged with their revision instead of
overwriting it, the way version control merges two branches. The body is merged by diff3
(Khanna, Kunal and Pierce, "A Formal Investigation of Diff3", 2007): each side is compared
with the base by :class:`difflib.SequenceMatcher`; the base lines both sides kept are
*stable*, and each stretch between two stable runs is compared on its own. A stretch changed
on one side only takes that side's lines; changed alike on both, it is kept once; changed
differently on both (changes on lines next to each other count, as in diff3 and git) it is a
:class:`Conflict`, written into the merged text between marker lines for the editor to
resolve::

    <<<<<<< yours
    your lines
    =======
    their lines
    >>>>>>> theirs

This is the merge Breezy's ``merge3`` made on difflib, which the wiki used until it was
replaced for its licence (GPL); ``tests/test_merge_properties.py`` checks that both agree.

Other fields (title, status, slug, parent, ...) merge the same way, each as one line:
:func:`merge_fields`. Nothing here knows about nodes or forms; ``chapters.edit.conflicts``
applies it to the editors' forms and ``chapters.edit.workflow`` to pending changes.
"""

from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = [
    "CHOICES",
    "END",
    "MIDDLE",
    "START",
    "Conflict",
    "TextMerge",
    "conflicts_in",
    "has_markers",
    "lines",
    "merge_fields",
    "merge_text",
    "resolve",
]

START, MIDDLE, END = "<<<<<<< yours", "=======", ">>>>>>> theirs"

# The ways one conflict can be resolved, as the editors' forms name them.
CHOICES = ("yours", "theirs", "both")


@dataclass(frozen=True)
class Conflict:
    """One region that both sides changed differently: its lines on each side."""

    yours: tuple[str, ...]
    theirs: tuple[str, ...]


@dataclass(frozen=True)
class TextMerge:
    """A merged text, with each conflict between markers, and the conflicts in order."""

    text: str
    conflicts: tuple[Conflict, ...]


def lines(text):
    """Return the lines of ``text``, its line breaks made ``\\n`` whatever they were.

    Browsers send a textarea's lines ending in ``\\r\\n``, and stored bodies end them in
    ``\\n``; compared as they are, every line of a body would differ. A text ending in a line
    break has an empty last line, so ``"\\n".join(lines(text))`` gives the text back.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def merge_text(base, theirs, yours):
    """Merge two edits of ``base`` line by line.

    Args:
        base: the text both edits started from.
        theirs: the text saved by someone else since.
        yours: the text of the form being saved.

    Returns:
        A :class:`TextMerge`; its text has ``\\n`` line breaks, and each conflict between
        :data:`START`, :data:`MIDDLE` and :data:`END` lines, yours first.
    """
    merged, conflicts = [], []
    for old, mine, other, stable in _stretches(lines(base), lines(yours), lines(theirs)):
        if mine == other or old == other:
            merged.extend(mine)
        elif old == mine:
            merged.extend(other)
        else:
            conflicts.append(Conflict(tuple(mine), tuple(other)))
            merged.extend([START, *mine, MIDDLE, *other, END])
        merged.extend(stable)
    return TextMerge("\n".join(merged), tuple(conflicts))


def _stretches(base, yours, theirs):
    """Yield the stretches of three texts' lines between the base lines both sides kept.

    Args:
        base, yours, theirs: lists of lines.

    Yields:
        ``(base, yours, theirs, stable)`` for each stretch in order: the three sides' lines
        of the stretch, then the stable lines after it (kept by both sides, so the same on
        all three). The last stretch ends at the texts' ends, with no stable lines after it.
    """
    at_base = at_yours = at_theirs = 0
    for start, in_yours, in_theirs, size in _stable(base, yours, theirs):
        yield (
            base[at_base:start],
            yours[at_yours:in_yours],
            theirs[at_theirs:in_theirs],
            base[start : start + size],
        )
        at_base, at_yours, at_theirs = start + size, in_yours + size, in_theirs + size


def _stable(base, yours, theirs):
    """Return the runs of base lines that both sides kept, and where each side has them.

    A run is ``(base start, yours start, theirs start, length)``, in order; the last one is
    empty, at the three texts' ends. A base line is kept by a side when difflib's matching
    blocks of the base and that side hold it (with difflib's defaults, as merge3 called it:
    from 200 lines on, lines found in more than 1% of a text are matched only next to
    others); runs are where both sides' blocks overlap.
    """
    mine = SequenceMatcher(None, base, yours).get_matching_blocks()
    other = SequenceMatcher(None, base, theirs).get_matching_blocks()
    runs, i, j = [], 0, 0
    while i < len(mine) and j < len(other):
        (base_a, yours_a, size_a), (base_b, theirs_b, size_b) = mine[i], other[j]
        start, end = max(base_a, base_b), min(base_a + size_a, base_b + size_b)
        if start < end:
            runs.append((start, yours_a + start - base_a, theirs_b + start - base_b, end - start))
        # The block that ends first can overlap no later block of the other side.
        if base_a + size_a < base_b + size_b:
            i += 1
        else:
            j += 1
    runs.append((len(base), len(yours), len(theirs), 0))
    return runs


def merge_fields(base, theirs, yours):
    """Merge two edits of single-valued fields, each field on its own.

    A field changed on one side only takes that side's value; changed alike on both, that
    value; changed differently on both, it is a conflict. A field missing from ``base``
    (its revision is unknown) counts as changed on both sides.

    Args:
        base: the fields' values at the base revision, by name.
        theirs: their values now, by name.
        yours: the form's values, by name: the fields merged.

    Returns:
        ``(values, conflicts)``: the merged value of each field of ``yours`` (yours where
        they conflict), and ``{name: (yours, theirs)}`` for the conflicting ones, in the
        order of ``yours``.
    """
    values, conflicts = {}, {}
    missing = object()
    for name, mine in yours.items():
        old, other = base.get(name, missing), theirs[name]
        if mine in (other, old):
            values[name] = other
        elif other == old:
            values[name] = mine
        else:
            values[name] = mine
            conflicts[name] = (mine, other)
    return values, conflicts


def _blocks(text):
    """Return the lines of ``text`` and each marked conflict's ``(start, end, conflict)``.

    ``start`` is the index of its :data:`START` line, ``end`` one past its :data:`END`
    line. Markers out of order are not a conflict.
    """
    found, text_lines = [], lines(text)
    start = middle = None
    for index, line in enumerate(text_lines):
        if line == START:
            start, middle = index, None
        elif line == MIDDLE and start is not None and middle is None:
            middle = index
        elif line == END and middle is not None:
            conflict = Conflict(
                tuple(text_lines[start + 1 : middle]), tuple(text_lines[middle + 1 : index])
            )
            found.append((start, index + 1, conflict))
            start = middle = None
    return text_lines, found


def conflicts_in(text):
    """Return the conflicts still marked in ``text``, in order, as :func:`merge_text` wrote
    them."""
    return [conflict for _, _, conflict in _blocks(text)[1]]


def has_markers(text):
    """Return True when a line of ``text`` is a :data:`START` or :data:`END` marker.

    A text with one was merged with a conflict not yet resolved; no page body needs such a
    line (a lone ``=======`` is a Markdown heading's underline, so it is not asked about).
    """
    return any(line in (START, END) for line in lines(text))


def resolve(text, index, choice):
    """Resolve one marked conflict of ``text``.

    Args:
        text: a text holding conflicts between markers.
        index: which conflict, from 0, among those still marked.
        choice: ``"yours"``, ``"theirs"`` or ``"both"`` (yours, then theirs).

    Returns:
        The text with that conflict's markers and lines replaced by the chosen lines, its
        line breaks ``\\n``; the text unchanged if there is no such conflict.

    Raises:
        ValueError: ``choice`` is none of the three.
    """
    if choice not in CHOICES:
        raise ValueError(f"A conflict is resolved with one of {', '.join(CHOICES)}.")
    text_lines, found = _blocks(text)
    if not 0 <= index < len(found):
        return "\n".join(text_lines)
    start, end, conflict = found[index]
    chosen = {
        "yours": conflict.yours,
        "theirs": conflict.theirs,
        "both": conflict.yours + conflict.theirs,
    }[choice]
    return "\n".join([*text_lines[:start], *chosen, *text_lines[end:]])
