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

All of it is Python over the stored sections of the results shown, with no query
(tests/test_search_headings.py checks it): a term's needles are looked for with
``str.find`` and only the words they start are matched, each once per query
(:class:`Quoter`), so a result costs a fraction of a millisecond (docs/search.md gives the
measurement).
"""

import os.path
import re
import unicodedata
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..words import WORD
from .query import english_stem, highlighter

__all__ = ["Quote", "Quoter", "marked"]

SNIPPET_WORDS = 30
SNIPPET_WORDS_BEFORE_MATCH = 8
MAX_COUNTED = 8  # occurrences of a word counted in a section: enough to tell sections apart

# The accents of Latin letters, once decomposed (as chapters.words.fold removes them).
LATIN_ACCENTS = re.compile("(?<=[a-z\u00c0-\u024f])[\u0300-\u036f]+")

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
        self.spans = highlighter(query)
        # Each unit is one word of a word or phrase term: (spellings, their stems, prefixes).
        self.units = []
        # Each term: its options (several for "a or b"), each a list of unit numbers, or
        # the folded words of a substring term.
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
            self.terms.append(options)
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

    def _held(self, text):
        """Return the numbers of the terms ``text`` holds, and how often their words occur
        in it (counting up to :data:`MAX_COUNTED` of each unit).

        Each needle of a unit is looked for with ``str.find`` in the folded text, and only
        the words it starts are matched in Python: a page's text is never read word by word.
        """
        folded = _folded(text)
        units, occurrences = set(), 0
        for number, (_, _, _, needles) in enumerate(self.units):
            count = 0
            for needle in needles:
                index = folded.find(needle)
                while index >= 0 and count < MAX_COUNTED:
                    if index == 0 or not folded[index - 1].isalnum():
                        word = WORD.match(folded, index)
                        if word is not None and self._matches(number, word.group()):
                            count += 1
                    index = folded.find(needle, index + 1)
            if count:
                units.add(number)
                occurrences += count
        held = set()
        for number, options in enumerate(self.terms):
            for kind, parts in options:
                if kind == "substring":
                    if all(part in folded for part in parts):
                        held.add(number)
                elif units.issuperset(parts):
                    held.add(number)
        return held, occurrences

    def best(self, sections):
        """Return the index of the best-matching section of ``sections``, or None.

        None when no section holds a term of the query.
        """
        best, best_key = None, (0, 0, 0)
        for index, section in enumerate(sections):
            in_heading, _ = self._held(section["title"])
            in_text, occurrences = self._held(section["text"])
            key = (len(in_heading | in_text), len(in_heading), occurrences)
            if key[0] and key > best_key:
                best, best_key = index, key
        return best

    def __call__(self, node, *, snippet=True):
        """Return the :class:`Quote` of ``node`` (its ``sections`` loaded).

        Args:
            node: a node as ``chapters.search.find_nodes`` returns it.
            snippet: False to leave the snippet out (""), where none is shown (the list as
                one types).
        """
        sections = node.sections
        index = self.best(sections)
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
    return unicodedata.normalize("NFC", LATIN_ACCENTS.sub("", decomposed))
