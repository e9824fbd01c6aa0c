"""Words as the wiki reads them: runs of letters and digits, folded.

Search reads queries and bodies with them (``chapters.search.query``), and a synonym's two
spellings are folded the same way when an editor saves them (``chapters.models.synonyms``),
so this module imports nothing of the wiki: the models and search both stand on it.
"""

import re
import unicodedata
from functools import lru_cache

__all__ = ["WORD", "fold", "words"]

# A word: a run of letters and digits, as PostgreSQL's parser and FTS5's unicode61 read them.
WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=65536)
def fold(text):
    """Return ``text`` case-folded, with the accents of Latin letters removed.

    Case is folded in every script ("ПРИВЕТ" → "привет"); accents are removed from Latin
    letters only, as PostgreSQL's ``unaccent`` and FTS5's ``remove_diacritics`` do ("Bézier"
    → "bezier"), so that "й" stays a letter of its own.
    """
    kept = []
    for character in unicodedata.normalize("NFD", text):
        if unicodedata.combining(character) and kept and kept[-1] < "\u0250":
            continue
        kept.append(character)
    return unicodedata.normalize("NFC", "".join(kept)).casefold()


def words(text):
    """Return the folded words of ``text``, in order."""
    return WORD.findall(fold(text))
