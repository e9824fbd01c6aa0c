"""Three-way merges (chapters.edit.merge): exact merged texts, exact conflicts."""

import pytest

from chapters.edit.merge import (
    Conflict,
    conflicts_in,
    has_markers,
    merge_fields,
    merge_text,
    resolve,
)

BASE = "# Fusion\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n"


def test_merge_text_takes_changes_to_different_paragraphs_from_both_sides():
    theirs = BASE.replace("First paragraph.", "First paragraph, reworded by them.")
    yours = BASE.replace("Third paragraph.", "Third paragraph, reworded by you.")
    merged = merge_text(BASE, theirs, yours)
    assert merged.text == (
        "# Fusion\n\nFirst paragraph, reworded by them.\n\nSecond paragraph.\n\n"
        "Third paragraph, reworded by you.\n"
    )
    assert merged.conflicts == ()


def test_merge_text_keeps_a_change_made_alike_on_both_sides_once():
    both = BASE.replace("Second", "2nd")
    assert merge_text(BASE, both, both) == merge_text(both, both, both)
    assert merge_text(BASE, both, both).text == both


def test_merge_text_marks_a_line_both_sides_changed_differently():
    theirs = BASE.replace("Second paragraph.", "Their second.")
    yours = BASE.replace("Second paragraph.", "Your second.")
    merged = merge_text(BASE, theirs, yours)
    assert merged.conflicts == (Conflict(("Your second.",), ("Their second.",)),)
    assert merged.text == (
        "# Fusion\n\nFirst paragraph.\n\n"
        "<<<<<<< yours\nYour second.\n=======\nTheir second.\n>>>>>>> theirs\n"
        "\nThird paragraph.\n"
    )


def test_merge_text_counts_changes_to_adjacent_lines_as_a_conflict():
    base = "a\nb\nc\nd"
    merged = merge_text(base, "a\nb\nC\nd", "a\nB\nc\nd")
    assert merged.conflicts == (Conflict(("B", "c"), ("b", "C")),)


def test_merge_text_ignores_how_lines_end():
    theirs = BASE.replace("First", "1st")
    yours = BASE.replace("Third", "3rd").replace("\n", "\r\n")
    merged = merge_text(BASE, theirs, yours)
    assert (merged.text, merged.conflicts) == (
        BASE.replace("First", "1st").replace("Third", "3rd"),
        (),
    )


def test_merge_text_both_adding_at_the_end_conflicts():
    merged = merge_text("a\n", "a\ntheirs\n", "a\nyours\n")
    assert merged.conflicts == (Conflict(("yours",), ("theirs",)),)


def test_merge_fields_takes_each_side_s_changes_and_reports_conflicts():
    base = {"title": "Fusion", "status": "draft", "slug": "fusion", "parent_id": 1}
    theirs = {"title": "Kernel Fusion", "status": "review", "slug": "fusion", "parent_id": 2}
    yours = {"title": "Fusion", "status": "published", "slug": "kernel-fusion", "parent_id": 2}
    values, conflicts = merge_fields(base, theirs, yours)
    assert values == {
        "title": "Kernel Fusion",
        "status": "published",
        "slug": "kernel-fusion",
        "parent_id": 2,
    }
    assert conflicts == {"status": ("published", "review")}


def test_merge_fields_without_a_base_conflict_wherever_the_sides_differ():
    values, conflicts = merge_fields(
        {}, {"title": "B", "status": "draft"}, {"title": "A", "status": "draft"}
    )
    assert (values, conflicts) == ({"title": "A", "status": "draft"}, {"title": ("A", "B")})


MARKED = (
    "top\n<<<<<<< yours\nmine 1\n=======\ntheirs 1\n>>>>>>> theirs\n"
    "middle\n<<<<<<< yours\nmine 2\n=======\n>>>>>>> theirs\nend"
)


@pytest.mark.parametrize(
    ("index", "choice", "text"),
    [
        (0, "yours", "top\nmine 1\nmiddle\n<<<<<<< yours\nmine 2\n=======\n>>>>>>> theirs\nend"),
        (0, "theirs", "top\ntheirs 1\nmiddle\n<<<<<<< yours\nmine 2\n=======\n>>>>>>> theirs\nend"),
        (1, "theirs", "top\n<<<<<<< yours\nmine 1\n=======\ntheirs 1\n>>>>>>> theirs\nmiddle\nend"),
        (
            1,
            "both",
            "top\n<<<<<<< yours\nmine 1\n=======\ntheirs 1\n>>>>>>> theirs\nmiddle\nmine 2\nend",
        ),
        (2, "yours", MARKED),
    ],
)
def test_resolve_replaces_one_marked_conflict(index, choice, text):
    assert resolve(MARKED, index, choice) == text


def test_conflicts_in_reads_the_markers_back():
    assert conflicts_in(MARKED) == [
        Conflict(("mine 1",), ("theirs 1",)),
        Conflict(("mine 2",), ()),
    ]
    assert has_markers(MARKED)
    assert not has_markers("Title\n=======\n\ntext")


def test_resolve_refuses_an_unknown_choice():
    with pytest.raises(ValueError):
        resolve(MARKED, 0, "mine")
