"""Words as the wiki reads them: runs of letters and digits, folded.

Search reads queries and bodies with them (``chapters.search.query``), and a synonym's two
spellings are folded the same way when an editor saves them (``chapters.models.synonyms``),
so this module imports nothing of the wiki: the models and search both stand on it.
:func:`identifier_parts` is what search indexes beside a text so that its identifiers are
found by their parts (``ThreadPoolExecutor`` by "pool executor") and run together
(``lru_cache`` by "lrucache").
"""

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "IDENTIFIER",
    "NO_SPACE_SCRIPTS",
    "WORD",
    "fold",
    "hump_words",
    "identifier_parts",
    "joined",
    "spaceless_grams",
    "words",
]

# A word: a run of letters and digits, as PostgreSQL's parser and FTS5's unicode61 read them.
WORD = re.compile(r"[^\W_]+")
# An identifier: words joined by underscores, dots or slashes ("os.path.join", "dll/shared").
IDENTIFIER = re.compile(r"[^\W_]+(?:[_./]+[^\W_]+)*")
PATH_SEPARATOR = re.compile("[./]+")
# Where a word written in camel case has a new part: a capital after a small letter or a
# digit ("getElement"), or a capital followed by a small letter after capitals ("HTTPServer").
HUMP = re.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Scripts written without spaces between words: CJK ideographs, kana, Thai, Lao, Khmer.
NO_SPACE_SCRIPTS = re.compile(
    "[\u0e00-\u0eff\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)
SPACELESS_RUN = re.compile(NO_SPACE_SCRIPTS.pattern + "+")


@lru_cache(maxsize=65536)
def fold(text):
    """Return ``text`` case-folded, with the accents of Latin letters removed.

    Case is folded in every script ("ПРИВЕТ" → "привет"), one letter to one letter, as the
    indexes fold it (FTS5's ``unicode61``, PostgreSQL's ``lower()``): Unicode's simple case
    folding, not the full folding of ``str.casefold()``, which writes "ß" as "ss" and "ﬁ"
    as "fi", words the indexes never hold ("Straße" would find nothing). Accents are removed
    from Latin letters only, as PostgreSQL's ``unaccent`` and FTS5's ``remove_diacritics``
    do ("Bézier" → "bezier"), so that "й" stays a letter of its own.
    """
    kept = []
    for character in unicodedata.normalize("NFD", text):
        if unicodedata.combining(character) and kept and kept[-1] < "\u0250":
            continue
        kept.append(character)
    text = unicodedata.normalize("NFC", "".join(kept))
    folded = text.casefold()
    if len(folded) == len(text):  # no letter became two: the simple folding, at C's speed
        return folded
    return "".join(map(_fold_letter, text))


@lru_cache(maxsize=4096)
def _fold_letter(character):
    """Return ``character`` case-folded to one character: its full case folding when that
    is one character (Unicode's simple folding then agrees), else its lower case."""
    folded = character.casefold()
    return folded if len(folded) == 1 else character.lower()


def words(text):
    """Return the folded words of ``text``, in order."""
    return WORD.findall(fold(text))


def hump_words(word):
    """Return the parts of ``word`` written in camel case, folded, or [] when it has one part.

    Split before a capital that follows a small letter or a digit, and before the last of
    several capitals when a small letter follows it (ASCII letters only): "ThreadPoolExecutor"
    gives ``["thread", "pool", "executor"]``, "HTTPServer" ``["http", "server"]``, "utf8Encode"
    ``["utf8", "encode"]``; "int64", "Kernel" and a word in capitals ("HTTP2SERVER") give [].
    Most words are one case: they are not split at all, as the highlighter asks of every word
    of a snippet.
    """
    if word.islower() or word.isupper():
        return []
    parts = HUMP.split(word)
    return [fold(part) for part in parts] if len(parts) > 1 else []


def identifier_parts(text):
    """Return the text search indexes beside ``text`` for the identifiers it holds.

    For each identifier of ``text`` (:data:`IDENTIFIER`), in order: when it is two words or
    more of which two or more hold a letter, those words run together (:func:`joined`:
    "lru_cache" gives "lrucache", "os.path.join" "ospathjoin"; "3.14" nothing), and so are
    those of each step of a path of dots or slashes ("functools.lru_cache" gives
    "functoolslrucache lrucache"); then the parts of each of its words written in camel case
    (:func:`hump_words`: "ThreadPoolExecutor" gives "thread pool executor"). Plain words give
    nothing.

    Returns:
        The folded words, separated by spaces; "" when ``text`` has no identifier.
    """
    found = []
    for identifier in IDENTIFIER.findall(text):
        if "_" not in identifier and "." not in identifier and "/" not in identifier:
            # One word, as most of a text's are: nothing to join; in one case, no humps.
            if not (identifier.islower() or identifier.isupper()):
                found.extend(hump_words(identifier))
            continue
        found.extend(joined(identifier))
        for step in PATH_SEPARATOR.split(identifier) if PATH_SEPARATOR.search(identifier) else []:
            found.extend(joined(step))
        for part in WORD.findall(identifier):
            found.extend(hump_words(part))
    return " ".join(found)


def spaceless_grams(*texts):
    """Return the characters and pairs of neighbouring characters of the runs of scripts
    written without spaces (:data:`NO_SPACE_SCRIPTS`) in ``texts``, which search indexes.

    A substring of such a script is in a text only if each of its characters and pairs is
    (the principle of n-gram indexes: Zobel and Moffat, "Inverted files for text search
    engines", 2006), so an index of them gives the few texts to look in for "张量", which
    has no trigram for the trigram indexes.

    Returns:
        The distinct characters and pairs, sorted, separated by spaces; "" when there are
        none.
    """
    grams = set()
    for text in texts:
        for run in SPACELESS_RUN.findall(text):
            grams.update(run)
            grams.update(run[start : start + 2] for start in range(len(run) - 1))
    return " ".join(sorted(grams))


def joined(identifier):
    """Return ``[words]``: the words of ``identifier`` run together, folded, when they are
    two or more of which two or more hold a letter; else []."""
    parts = WORD.findall(identifier)
    if len(parts) > 1 and sum(not part.isdigit() for part in parts) > 1:
        return [fold("".join(parts))]
    return []
