"""Write merge3-cases.json: edits merged by Breezy's merge3, the wiki's merge until it had its own.

``tests/test_merge_properties.py`` checks that ``chapters.edit.merge.merge_text`` merges every
case here as merge3 did. merge3 is GPL-2.0-or-later and none of the wiki's dependencies, so
the cases are kept as data; to make them again, in a throwaway virtualenv:

    python3.11 -m venv /tmp/merge3 && /tmp/merge3/bin/pip install merge3==1.0.0
    /tmp/merge3/bin/python tests/data/merge3_cases.py > tests/data/merge3-cases.json

Each case is a base and two edits of it, drawn from a fixed seed: short texts of a few
repeated lines (so that lines match in more than one way), and long ones of 200 lines and
more (where difflib counts frequent lines as junk, as it does from 200 items on). One case a
line: ``{"base", "theirs", "yours", "text", "conflicts"}``, conflicts as ``[yours, theirs]``.
"""

import json
import random
import sys

from merge3 import Merge3

SHORT_LINES = ["", "a", "b", "c", "d", "# Title", "Some text."]


def merged_by_merge3(base, theirs, yours):
    """Return merge3's merge as the wiki made it: the text, conflicts between markers, and
    the conflicts as ``[yours, theirs]``."""
    merged, conflicts = [], []
    split = [
        text.replace("\r\n", "\n").replace("\r", "\n").split("\n") for text in (base, yours, theirs)
    ]
    for kind, *groups in Merge3(*split).merge_groups():
        if kind == "conflict":
            _, mine, other = groups
            conflicts.append([list(mine), list(other)])
            merged.extend(["<<<<<<< yours", *mine, "=======", *other, ">>>>>>> theirs"])
        else:
            merged.extend(groups[0])
    return "\n".join(merged), conflicts


def edited(rng, lines, alphabet):
    """Return ``lines`` after a few random inserts, deletes and replacements."""
    lines = list(lines)
    for _ in range(rng.randint(0, 4)):
        at = rng.randint(0, len(lines))
        width = rng.randint(1, 3)
        new = [rng.choice(alphabet) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.5:
            lines[at:at] = new
        else:
            lines[at : at + width] = new
    return lines


def text(rng, lines):
    """Join lines as a body: with or without a last line break, sometimes with ``\\r\\n``."""
    joined = "\r\n".join(lines) if rng.random() < 0.1 else "\n".join(lines)
    return joined + ("\n" if lines and rng.random() < 0.5 else "")


def case(rng, base_lines, alphabet):
    """Return one case: a base, two edits of it and merge3's merge of them."""
    base = text(rng, base_lines)
    theirs = text(rng, edited(rng, base_lines, alphabet))
    yours = text(rng, edited(rng, base_lines, alphabet))
    merged, conflicts = merged_by_merge3(base, theirs, yours)
    return {
        "base": base,
        "theirs": theirs,
        "yours": yours,
        "text": merged,
        "conflicts": conflicts,
    }


def main():
    """Print the cases, one JSON object a line."""
    rng = random.Random(28)
    for _ in range(1000):
        base_lines = [rng.choice(SHORT_LINES) for _ in range(rng.randint(0, 12))]
        print(json.dumps(case(rng, base_lines, SHORT_LINES)))
    for _ in range(8):
        paragraphs = [f"Paragraph {rng.randint(1, 40)}." for _ in range(rng.randint(100, 140))]
        base_lines = [line for paragraph in paragraphs for line in (paragraph, "")]
        print(json.dumps(case(rng, base_lines, ["", "New text.", *paragraphs[:10]])))


if __name__ == "__main__":
    sys.exit(main())
