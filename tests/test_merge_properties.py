"""Properties of three-way merges (chapters.edit.merge), drawn by Hypothesis: the merge
agrees with Breezy's merge3, which it replaced, and never loses a line of either side."""

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chapters.edit.merge import END, MIDDLE, START, conflicts_in, lines, merge_text, resolve

CASES = Path(__file__).parent / "data" / "merge3-cases.json"

# Texts of a few lines that repeat, so that the sides match the base in more than one way.
texts = st.lists(st.sampled_from(["", "a", "b", "c", "# Title", "Some text."]), max_size=12).map(
    "\n".join
)


def test_merge_text_merges_every_recorded_case_as_merge3_did():
    cases = [json.loads(line) for line in CASES.read_text().splitlines()]
    assert len(cases) == 1008
    differing = []
    for number, case in enumerate(cases):
        merged = merge_text(case["base"], case["theirs"], case["yours"])
        conflicts = [[list(conflict.yours), list(conflict.theirs)] for conflict in merged.conflicts]
        if (merged.text, conflicts) != (case["text"], case["conflicts"]):
            differing.append(number)
    assert differing == []


@settings(max_examples=300)
@given(texts, texts)
def test_merge_text_takes_the_only_side_that_changed(base, changed):
    expected = "\n".join(lines(changed))
    assert (merge_text(base, base, changed).text, merge_text(base, base, changed).conflicts) == (
        expected,
        (),
    )
    assert (merge_text(base, changed, base).text, merge_text(base, changed, base).conflicts) == (
        expected,
        (),
    )
    assert (
        merge_text(base, changed, changed).text,
        merge_text(base, changed, changed).conflicts,
    ) == (
        expected,
        (),
    )


@settings(max_examples=300)
@given(texts, texts, texts)
def test_merge_text_marks_exactly_its_conflicts(base, theirs, yours):
    merged = merge_text(base, theirs, yours)
    assert conflicts_in(merged.text) == list(merged.conflicts)
    assert [line for line in lines(merged.text) if line in (START, MIDDLE, END)] == [
        START,
        MIDDLE,
        END,
    ] * len(merged.conflicts)


@st.composite
def edits(draw, base, name):
    """Draw an edit of ``base``: some of its lines deleted, new lines (``name`` and a number,
    found nowhere else) inserted anywhere."""
    kept = [line for line in base if draw(st.booleans())]
    edited, new = [], iter(f"{name}{number}" for number in range(10**6))
    for line in [*kept, None]:
        edited.extend(next(new) for _ in range(draw(st.integers(0, 2))))
        if line is not None:
            edited.append(line)
    return edited


def is_subsequence(part, whole):
    """Return True when the lines ``part`` are found in ``whole`` in the same order."""
    rest = iter(whole)
    return all(line in rest for line in part)


def resolved(text, count, choice):
    """Return ``text`` with each of its ``count`` conflicts resolved by ``choice``."""
    for _ in range(count):
        text = resolve(text, 0, choice)
    return lines(text)


@settings(max_examples=300)
@given(
    st.integers(0, 12).flatmap(lambda size: st.just([f"base{n}" for n in range(size)])), st.data()
)
def test_merge_text_never_loses_a_line_of_either_side(base, data):
    texts = {side: "\n".join(data.draw(edits(base, side))) for side in ("yours", "theirs")}
    merged = merge_text("\n".join(base), texts["theirs"], texts["yours"])
    # As merged: an empty text is one empty line.
    base, sides = lines("\n".join(base)), {side: lines(text) for side, text in texts.items()}
    for side, other in (("yours", "theirs"), ("theirs", "yours")):
        added = [line for line in sides[side] if line.startswith(side)]
        deleted_by_other = set(base) - set(sides[other])
        # Everything a side wrote is in the merged text, once.
        assert [line for line in lines(merged.text) if line.startswith(side)] == added
        # Taking this side in every conflict gives this side, less only the base lines the
        # other side deleted elsewhere, plus only the lines the other side added.
        taken = [
            line
            for line in resolved(merged.text, len(merged.conflicts), side)
            if not line.startswith(other)
        ]
        assert is_subsequence(taken, sides[side])
        assert is_subsequence([line for line in sides[side] if line not in deleted_by_other], taken)
    kept_by_both = [line for line in base if line in sides["yours"] and line in sides["theirs"]]
    assert is_subsequence(kept_by_both, lines(merged.text))
