"""The diff: long changed lines are shown whole, not word by word."""

from chapters.diff import MAX_WORD_DIFF_TOKENS, Line, Segment, diff_text


def test_diff_shows_a_very_long_changed_line_whole():
    old = " ".join(["word"] * MAX_WORD_DIFF_TOKENS)
    new = old + " more"
    assert diff_text(old, new) == [
        [
            Line("delete", 1, None, (Segment(old, True),)),
            Line("insert", None, 1, (Segment(new, True),)),
        ]
    ]


def test_diff_marks_changed_words_of_a_short_line():
    assert diff_text("a b c", "a x c") == [
        [
            Line("delete", 1, None, (Segment("a "), Segment("b", True), Segment(" c"))),
            Line("insert", None, 1, (Segment("a "), Segment("x", True), Segment(" c"))),
        ]
    ]
