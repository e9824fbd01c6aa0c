"""Where a result opens and what it quotes: its best-matching heading, and a snippet of it.

A node stores its text by heading (``Node.sections``, :func:`chapters.markdown.
html_to_text_and_sections`): the text a reader reads, formulas as readable text. A result
opens at the heading whose section (its heading and the text under it, up to the next
heading) holds most of the query's terms, and names it, as MkDocs Material's search does;
of sections holding as many, the one whose heading holds more, then the one where they
occur more often, then the first. When the best is the text before the first heading, or
no section holds a term (the title matched), the result opens at the top and names no
heading. The snippet quotes the best section (docs/search.md, "Results open at their
heading").

A section holds the words of its identifiers' parts too, as the search indexes do
(``chapters.words.identifier_parts``), looked for only when the words alone leave a word of
the query unfound.

All of it is Python over the stored sections of the results shown, with no query
(tests/test_search_headings.py checks it): a term's needles are looked for with
``str.find`` and only the words they start are matched, each once per query
(:class:`Quoter`), so a result costs a fraction of a millisecond (docs/search.md gives the
measurement).
"""

import os.path
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..words import WORD, identifier_parts
from .query import english_stem

__all__ = ["Quote", "Quoter", "marked"]

SNIPPET_WORDS = 30
SNIPPET_WORDS_BEFORE_MATCH = 8
MAX_COUNTED = 8  # occurrences of a word counted in a section: enough to tell sections apart

# Accents, once decomposed: those of Latin letters are removed, as chapters.words.fold does.
ACCENTS = re.compile("[\u0300-\u036f]+")

# Control characters (but tab and newline) are no text a reader reads; a snippet drops them.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class Quote:
    """Where a result opens and what it shows (:class:`Quoter`).

    Attributes:
        url: the node's URL, with ``#`` and the heading's id when it opens at a heading.
        heading: the heading's text, or "" when it opens at the top.
        heading_html: the heading with the matched words in ``<mark>``, escaped.
        snippet: the quote, escaped, with the matched words in ``<mark>``.
    """

    url: str
    heading: str
    heading_html: SafeString
    snippet: SafeString


class Quoter:
    """Quote the results of one query: call it with each node.

    Args:
        query: a parsed query (``chapters.search.parse_query``).
    """

    def __init__(self, query):
        self.spans = query.spans
        # Each unit is one word of a word or phrase term: (spellings, their stems, prefixes).
        self.units = []
        # Each term: its options (several for "a or b", and an identifier's alternatives:
        # "user name" for "userName"), each a list of unit numbers, or the folded words of a
        # substring term.
        self.terms = []
        for term in query.terms:
            options = []
            for option in term.options or [term]:
                if option.kind == "substring":
                    options.append(("substring", option.words))
                elif option.kind == "word":
                    options.append(("units", [self._unit(option.spellings, option.prefixes)]))
                else:
                    options.append(("units", [self._unit([word], []) for word in option.words]))
                for words in option.alternatives:
                    options.append(("units", [self._unit([word], []) for word in words]))
            self.terms.append(options)
        self.substrings = any(kind == "substring" for options in self.terms for kind, _ in options)
        self._verdicts = {}  # (unit, word) -> whether the word matches the unit

    def _unit(self, spellings, prefixes):
        """Add a unit; return its number.

        A word of the text matches the unit as the highlighter matches it (a spelling, a
        spelling's English stem, a prefix); every such word starts with one of the unit's
        needles: a prefix, or what a spelling has in common with its stem less its last
        letter (at least two are kept), since a stem's last letter may be one another word
        of that stem does not have ("flies" and "fly" stem to "fli": "fl").
        """
        needles = set(prefixes)
        for spelling in spellings:
            stem = english_stem(spelling)
            common = os.path.commonprefix([spelling, stem])
            needles.add(common[: max(2, len(common) - 1)])
        self.units.append(
            (
                frozenset(spellings),
                frozenset(map(english_stem, spellings)),
                tuple(prefixes),
                tuple(sorted(needles)),
            )
        )
        return len(self.units) - 1

    def _matches(self, number, word):
        """Return whether ``word`` (folded) matches unit ``number``."""
        verdict = self._verdicts.get((number, word))
        if verdict is None:
            spellings, stems, prefixes, _ = self.units[number]
            verdict = self._verdicts[(number, word)] = (
                word in spellings or english_stem(word) in stems or word.startswith(prefixes)
            )
        return verdict

    def _found(self, texts):
        """Return, for each of ``texts`` (folded), the units its words match and how often
        (counting up to :data:`MAX_COUNTED` of each unit in each text).

        The texts are joined, each needle of a unit is looked for with ``str.find``, and only
        the words it starts are matched in Python: a page's text is never read word by word,
        and a text is skipped once a unit is counted enough there.
        """
        starts, position = [], 0
        for text in texts:
            starts.append(position)
            position += len(text) + 1
        starts.append(position)
        whole = "\n".join(texts)
        units, counts = [set() for _ in texts], [0] * len(texts)
        for number, (_, _, _, needles) in enumerate(self.units):
            counted = {}
            for needle in needles:
                index = whole.find(needle)
                while index >= 0:
                    text = bisect_right(starts, index) - 1
                    if (index == 0 or not whole[index - 1].isalnum()) and self._matches(
                        number, WORD.match(whole, index).group()
                    ):
                        counted[text] = counted.get(text, 0) + 1
                        if counted[text] == MAX_COUNTED:  # enough here: on to the next text
                            index = whole.find(needle, starts[text + 1])
                            continue
                    index = whole.find(needle, index + 1)
            for text, count in counted.items():
                units[text].add(number)
                counts[text] += min(count, MAX_COUNTED)
        return units, counts

    def _terms(self, units, text):
        """Return the numbers of the terms a text holds, given the units its words match."""
        held = set()
        for number, options in enumerate(self.terms):
            for kind, parts in options:
                if (kind == "substring" and all(part in text for part in parts)) or (
                    kind == "units" and units.issuperset(parts)
                ):
                    held.add(number)
        return held

    def best(self, sections, title=""):
        """Return the index of the best-matching section of ``sections``, or None.

        None when no section holds a term of the query. When none holds every term and some
        word of the query is neither in a section nor in the page's ``title``, the sections
        are read again with their identifiers' parts, as the search indexes hold them
        (``chapters.words.identifier_parts``: "ThreadPoolExecutor" is found by "thread pool
        executor", "lru_cache" by "lrucache"); only then, since finding the parts costs more
        than the rest (about 0.2 ms for 3,000 characters).
        """
        texts = [s[name] for s in sections for name in ("title", "text")]
        best, held, found = self._best(_folded_each(texts))
        if held == len(self.terms):
            return best
        found |= self._found(_folded_each([title]))[0][0]
        if len(found) == len(self.units):  # every word is on the page: parts add nothing
            return best
        with_parts, held_with_parts, _ = self._best(_folded_each(list(map(_with_parts, texts))))
        return with_parts if held_with_parts > held else best

    def _best(self, texts):
        """Return the index of the best section of ``texts`` (each section's heading and text,
        folded, in turn), the number of terms it holds and the units found in any text;
        (None, 0, units) when no section holds a term."""
        units, counts = self._found(texts)
        best, best_key = None, (0, 0, 0)
        for index in range(len(texts) // 2):
            heading, text = 2 * index, 2 * index + 1
            if not (units[heading] or units[text] or self.substrings):
                continue
            in_heading = self._terms(units[heading], texts[heading])
            in_text = self._terms(units[text], texts[text])
            key = (len(in_heading | in_text), len(in_heading), counts[text])
            if key[0] and key > best_key:
                best, best_key = index, key
        return best, best_key[0], set().union(*units)

    def __call__(self, node, *, snippet=True):
        """Return the :class:`Quote` of ``node`` (its ``sections`` loaded).

        Args:
            node: a node as ``chapters.search.find_nodes`` returns it.
            snippet: False to leave the snippet out (""), where none is shown (the list as
                one types).
        """
        sections = node.sections
        index = self.best(sections, node.title)
        url = node.get_absolute_url()
        quoted = self._quoted(sections, index) if snippet else mark_safe("")
        if index is None or not sections[index]["id"]:
            return Quote(url, "", mark_safe(""), quoted)
        heading, title = sections[index]["id"], sections[index]["title"]
        return Quote(f"{url}#{heading}", title, marked(title, self.spans(title)), quoted)

    def _quoted(self, sections, index):
        """Return the snippet of section ``index`` of ``sections``; for None, of the whole
        text (headings included) from its start."""
        if index is None:
            text = " ".join(f"{s['title']} {s['text']}".strip() for s in sections)
            return self.snippet(text, seek=False)
        return self.snippet(sections[index]["text"])

    def snippet(self, text, *, seek=True):
        """Return a quote of ``text`` with the words the query matches in ``<mark>``.

        About :data:`SNIPPET_WORDS` words, from a few words before the first match (or from
        the start of the text when it holds none, or ``seek`` is False: no section held a
        term, so the text is not read for one); "…" marks where the text was cut.

        Returns:
            Safe HTML: escaped text and ``<mark>`` elements; "" for no text.
        """
        text = " ".join(CONTROL.sub("", text).split(" "))
        found = self.spans(text, first=True) if seek else []
        text_words = text.split(" ") if text else []
        start = 0
        if found:
            start = max(0, text.count(" ", 0, found[0][0]) - SNIPPET_WORDS_BEFORE_MATCH)
        end = start + SNIPPET_WORDS
        quote = " ".join(
            (["…"] if start > 0 else [])
            + text_words[start:end]
            + (["…"] if end < len(text_words) else [])
        )
        return marked(quote, self.spans(quote))


def marked(text, spans):
    """Return ``text`` escaped, with each of ``spans`` wrapped in ``<mark>``.

    This is where search output becomes HTML: every part is escaped and ``<mark>`` is the
    only markup added, so neither a body nor a query can inject any, which makes the result
    safe to mark so.

    Args:
        text: plain text.
        spans: sorted, non-overlapping ``(start, end)`` pairs of offsets in ``text``.
    """
    parts, position = [], 0
    for start, end in spans:
        parts.append(escape(text[position:start]))
        parts.append(f"<mark>{escape(text[start:end])}</mark>")
        position = end
    parts.append(escape(text[position:]))
    return mark_safe("".join(parts))


def _folded(text):
    """Return ``text`` folded as :func:`chapters.words.fold` folds a word: case folded, the
    accents of Latin letters removed, all in C for a text of any length."""
    folded = text.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFD", folded)
    return unicodedata.normalize("NFC", ACCENTS.sub(_latin_accent, decomposed))


def _latin_accent(match):
    """Return "" for accents on a Latin letter (before U+0250), else the accents."""
    start = match.start()
    return "" if start and match.string[start - 1] < "\u0250" else match.group()


def _with_parts(text):
    """Return ``text`` followed by its identifiers' parts (``chapters.words.identifier_parts``),
    or ``text`` alone when it holds no identifier."""
    parts = identifier_parts(text)
    return f"{text} {parts}" if parts else text


def _folded_each(texts):
    """Return each of ``texts`` (on one line each) folded as :func:`_folded` folds it, all
    folded at once."""
    folded = _folded("\n".join(texts)).split("\n")
    return folded if len(folded) == len(texts) else [_folded(text) for text in texts]
