"""Spelling variants by rule: the British and American forms of any English word.

The editors' synonyms (``chapters.models.Synonym``) list pairs one by one; most pairs follow
a handful of regular patterns, so search derives the other form of any word that follows one
(:func:`variants`), whether or not a synonym lists it: "serialise" also looks for
"serialize", "catalogue" for "catalog", "colours" for "colors", and back. The patterns are
those of the Oxford and Merriam-Webster spelling differences as Wikipedia's "American and
British English spelling differences" groups them: -ise/-ize (with -isation/-ization),
-yse/-yze, -our/-or, -tre/-ter, -ogue/-og and -ence/-ense.

A derived form that is no word ("vectour" from "vector") finds nothing and costs one more
alternative in the index's query; a stem of at least :data:`MIN_STEM` letters before the
ending keeps short words ("four", "size", "dog", "dense") out, whose other form would be
another real word ("for") or none.
"""

import re

__all__ = ["MIN_STEM", "variants"]

MIN_STEM = 3

# (pattern, replacement) pairs, each applied to the whole word; "{stem}" is at least MIN_STEM
# letters, and each ending may be followed by the inflections listed.
RULES = [
    (r"(?P<stem>\w{3,})is(?P<end>e|es|ed|ing|er|ers|ation|ations|able)", r"\g<stem>iz\g<end>"),
    (r"(?P<stem>\w{3,})iz(?P<end>e|es|ed|ing|er|ers|ation|ations|able)", r"\g<stem>is\g<end>"),
    (r"(?P<stem>\w{3,})ys(?P<end>e|es|ed|ing|er|ers)", r"\g<stem>yz\g<end>"),
    (r"(?P<stem>\w{3,})yz(?P<end>e|es|ed|ing|er|ers)", r"\g<stem>ys\g<end>"),
    (r"(?P<stem>\w{3,})our(?P<end>|s|ed|ing|ful|less|able|ite|ites)", r"\g<stem>or\g<end>"),
    (r"(?P<stem>\w{2,}[^u])or(?P<end>|s|ed|ing|ful|less|able|ite|ites)", r"\g<stem>our\g<end>"),
    (r"(?P<stem>\w{3,})tre(?P<end>|s)", r"\g<stem>ter\g<end>"),
    (r"(?P<stem>\w{3,})ter(?P<end>|s)", r"\g<stem>tre\g<end>"),
    (r"(?P<stem>\w{3,})ogue(?P<end>|s)", r"\g<stem>og\g<end>"),
    (r"(?P<stem>\w{3,})og(?P<end>|s)", r"\g<stem>ogue\g<end>"),
    (r"(?P<stem>\w{3,})ence(?P<end>|s|d)", r"\g<stem>ense\g<end>"),
    (r"(?P<stem>\w{3,})ense(?P<end>|s|d)", r"\g<stem>ence\g<end>"),
]
COMPILED = [(re.compile(pattern), replacement) for pattern, replacement in RULES]


def variants(word):
    """Return the other spellings of ``word`` by the rules above, without ``word`` itself.

    Args:
        word: a folded word (``chapters.words.fold``).

    Returns:
        A list of strings, possibly empty: "serialisation" gives ``["serialization"]``,
        "colour" ``["color"]``, "kernel" nothing.
    """
    found = []
    for pattern, replacement in COMPILED:
        if pattern.fullmatch(word):
            other = pattern.sub(replacement, word, count=1)
            if other != word and other not in found:
                found.append(other)
    return found
