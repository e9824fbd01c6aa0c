"""What a query asks for, read the same way for every database.

:func:`parse` turns what a reader typed (web-search syntax: words, "quoted phrases",
``-excluded`` terms) into a :class:`Query` of :class:`Term` objects, each of one kind:

- a **word**, folded (:func:`fold`), with its other spellings (the editors' synonyms and
  the British and American spellings of :mod:`.spelling`) and,
  for a word in Cyrillic, its Russian stem, matched as a prefix so that other word forms are
  found ("трансформеров" finds "Трансформеры"); the last word of the query is also matched
  as a prefix, since the reader may still be typing it ("backprop" finds "Backpropagation");
- a **phrase**, its words in a row: a quoted phrase, or a term such as ``q-learning`` or
  ``memory_order_acquire`` that the databases' parsers split into several words;
- a **substring**, for text written without spaces (Chinese, Japanese), where a word is no
  unit to match: "张量" is found in "张量并行";
- **any** of two or more words or phrases, written with ``or`` between them, as in
  PostgreSQL's ``websearch_to_tsquery``: "quantization or pruning".

Unquoted English stop words ("the", "and") are dropped, as PostgreSQL's ``english``
configuration drops them, so a query of stop words only finds nothing on either database.
:func:`highlighter` marks the words a query matches in any text, for titles and snippets;
:func:`similarity` is ``pg_trgm``'s trigram similarity, for spelling suggestions.
"""

import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from itertools import islice

import snowballstemmer

from ..words import IDENTIFIER, NO_SPACE_SCRIPTS, WORD, fold, hump_words, words
from .spelling import variants as spelling_variants
from .stopwords import ENGLISH_STOP_WORDS

__all__ = [
    "HEADING_PUNCTUATION",
    "MIN_PREFIX",
    "Query",
    "Term",
    "alternatives",
    "edit_distance",
    "fold",
    "highlighter",
    "parse",
    "query_terms",
    "similarity",
    "trigrams",
    "words",
]

MIN_PREFIX = 3  # a shorter last word is matched whole: "c" would match half the wiki

# One term of web-search syntax: an optional minus, then a "quoted phrase" (the closing quote
# may be missing, as websearch_to_tsquery allows) or a run of other characters.
WEB_TERM = re.compile(r'(?P<exclude>-?)(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s"]+))')

CYRILLIC = re.compile("[\u0400-\u04ff]")
ASCII_WORD = re.compile("[a-z0-9]+")
EDGES = re.compile(r"^[\W_]+|[\W_]+$")  # what an identifier is typed between: "os.path.join()"
POSSESSIVE = re.compile("(?<=\\w)['\u2019]s\\b", re.IGNORECASE)
# What a heading drops before it is compared with Query.joined(): "prefetch_related()",
# "TemplateResponse", "django.contrib.humanize", "on-delete" are read as one word.
HEADING_PUNCTUATION = "()_.- "

RUSSIAN = snowballstemmer.stemmer("russian")

# Snowball's stemmers are pure Python, and a snippet stems every word of a body: the words of
# bodies repeat, so stems are remembered.
english_stem = lru_cache(maxsize=65536)(snowballstemmer.stemmer("english").stemWord)


@dataclass
class Term:
    """One thing a result must contain (or, excluded, must not).

    Attributes:
        kind: "word", "phrase", "substring" or "any".
        text: the term as typed (a phrase without its quotes).
        words: its folded words; one for a word.
        variants: other folded spellings of a word (synonyms), matched like it.
        prefixes: folded strings a word of the text may start with to match: the word
            itself when it is the query's last, its Russian stem for a Cyrillic word.
        options: for "any", the word and phrase terms one of which must match.
        alternatives: other forms of an identifier typed unquoted, each a list of folded
            words matched as a phrase, like the term (:func:`alternatives`): the parts of a
            word in camel case (``["thread", "pool", "executor"]``), the words of
            ``lru_cache`` run together (``["lrucache"]``).
        adjacent: whether the term follows the one before it directly in the query, with no
            stop word or ``or`` dropped between them (:meth:`Query.pairs`).
    """

    kind: str
    text: str
    words: list
    variants: list = field(default_factory=list)
    prefixes: list = field(default_factory=list)
    options: list = field(default_factory=list)
    alternatives: list = field(default_factory=list)
    adjacent: bool = False

    def as_typed(self):
        """Return the term without its alternatives (nor its options'): what a title or a
        heading must hold to count for the ranking's keys, so that the page naming an
        identifier as typed comes before one naming its words apart."""
        return replace(
            self,
            alternatives=[],
            options=[option.as_typed() for option in self.options],
        )

    @property
    def spellings(self):
        """Return the word and its variants (for a word), without repeats."""
        return list(dict.fromkeys(self.words + self.variants))


@dataclass
class Query:
    """A parsed query: the terms a result may match and those it must not.

    Attributes:
        text: the query as typed.
        terms: the :class:`Term` objects to match: a result matches one or more of them,
            and those matching more come first (``chapters.search``'s ranking).
        excluded: the :class:`Term` objects a result must not match.
    """

    text: str
    terms: list
    excluded: list

    def __bool__(self):
        """Return True when there is something to search for."""
        return bool(self.terms or self.excluded)

    def pairs(self):
        """Return the pairs of folded words the query has side by side, in order.

        The last word of a word or phrase term and the first of the next one, when the
        second directly follows the first in what was typed ("binary search in a sorted
        list" gives ``("binary", "search")`` and ``("sorted", "list")``): a text with them
        side by side too is ranked above one with them apart.
        """
        return [
            (first.words[-1], second.words[0])
            for first, second in zip(self.terms, self.terms[1:], strict=False)
            if second.adjacent and {first.kind, second.kind} <= {"word", "phrase"}
        ]

    def joined(self):
        """Return the query's words run together, as a heading equal to it reads once its
        punctuation and spaces are dropped (:data:`HEADING_PUNCTUATION`): "prefetch_related"
        and "template response" give "prefetchrelated" and "templateresponse".

        "" unless the query is words and phrases only, none excluded, in letters a-z and
        digits (lower case is folded alike by both databases only there).
        """
        if self.excluded or any(term.kind not in ("word", "phrase") for term in self.terms):
            return ""
        joined = "".join(word for term in self.terms for word in term.words)
        return joined if ASCII_WORD.fullmatch(joined) else ""

    @cached_property
    def spans(self):
        """Return the query's :func:`highlighter`, made once for all the texts it marks."""
        return highlighter(self)

    def titles(self):
        """Return the folded strings a title equal to the query may be, in any spelling.

        The query's words joined by spaces, and the same with each word's variants in turn
        ("language modelling" also as "language modeling"); empty when a term is excluded.
        """
        if self.excluded or not self.terms or any(t.kind == "any" for t in self.terms):
            return []
        base = [" ".join(term.words) for term in self.terms]
        titles = [" ".join(base)]
        for index, term in enumerate(self.terms):
            for variant in term.variants:
                titles.append(" ".join([*base[:index], variant, *base[index + 1 :]]))
        return titles


def query_terms(query):
    """Split ``query`` in web-search syntax into the terms to find and the terms to exclude.

    Terms without a letter or digit are dropped, as PostgreSQL's parser drops punctuation.

    Returns:
        A pair of lists of strings ``(terms, excluded)``; whitespace inside a phrase is one
        space.
    """
    terms, excluded = [], []
    for match in WEB_TERM.finditer(query):
        term = " ".join((match["phrase"] or match["word"] or "").split())
        if any(character.isalnum() for character in term):
            (excluded if match["exclude"] else terms).append(term)
    return terms, excluded


def parse(text, synonyms=None):
    """Read ``text`` (web-search syntax) into a :class:`Query`.

    Args:
        text: the query as typed.
        synonyms: a function from a list of folded words to a dict mapping some of them to
            lists of other spellings (``chapters.search.kept.synonyms_of``), or None.

    Returns:
        A :class:`Query`; falsy when nothing is left to search for.
    """
    terms, excluded, either, gap = [], [], False, True
    for match in WEB_TERM.finditer(text):
        raw = " ".join((match["phrase"] or match["word"] or "").split())
        if match["word"] and not match["exclude"] and raw.casefold() == "or":
            either, gap = bool(terms), True
            continue
        term = _term(raw, quoted=match["phrase"] is not None)
        if term is None:
            gap = True
            continue
        term.adjacent, gap = not gap and not match["exclude"], bool(match["exclude"])
        if match["exclude"]:
            excluded.append(term)
        elif either and term.kind != "substring" and terms[-1].kind != "substring":
            terms[-1] = _either(terms[-1], term)
        else:
            terms.append(term)
        either = False
    single = [term for term in terms + excluded if term.kind == "word"]
    single += [option for term in terms if term.kind == "any" for option in term.options]
    single = [term for term in single if term.kind == "word"]
    variants = synonyms([term.words[0] for term in single]) if synonyms and single else {}
    for term in single:
        word = term.words[0]
        found = variants.get(word, []) + spelling_variants(word)
        term.variants = [v for v in dict.fromkeys(found) if v != word]
    last = terms[-1] if terms else None
    if last is not None and last.kind == "word" and not text.rstrip().endswith('"'):
        last.prefixes = [s for s in last.spellings if len(s) >= MIN_PREFIX] + last.prefixes
    return Query(text=text, terms=terms, excluded=excluded)


def _either(first, second):
    """Return the "any" term of ``first`` or ``second``."""
    options = (first.options if first.kind == "any" else [first]) + [second]
    return Term(
        "any",
        " or ".join(option.text for option in options),
        [word for option in options for word in option.words],
        options=options,
    )


def _term(raw, quoted):
    """Return the :class:`Term` for one term of the query, or None for nothing to match.

    A possessive's "s" is dropped ("user's" is the word "user"): PostgreSQL's English
    configuration drops it as a stop word, where SQLite's index would look for the phrase
    "user s".
    """
    folded = words(POSSESSIVE.sub("", raw))
    if not folded:
        return None
    if NO_SPACE_SCRIPTS.search(raw):
        return Term("substring", raw, folded)
    found = [] if quoted else alternatives(POSSESSIVE.sub("", raw))
    if len(folded) > 1 or (quoted and folded[0] in ENGLISH_STOP_WORDS):
        return Term("phrase", raw, folded, alternatives=found)
    word = folded[0]
    if word in ENGLISH_STOP_WORDS:
        return None
    term = Term("word", raw, [word], alternatives=found)
    if CYRILLIC.search(word):
        stem = RUSSIAN.stemWord(word)
        if stem != word and len(stem) >= MIN_PREFIX:
            term.prefixes.append(stem)
    return term


def edit_distance(first, second):
    """Return the edits that turn one word into the other: the optimal string alignment
    distance (Levenshtein's insertions, deletions and substitutions of one character, and
    transpositions of two adjacent ones, each costing 1; no substring edited twice).

    A transposition is a common typo ("evaulated"), and one edit: Levenshtein's distance
    would count two, as for "emulated".
    """
    before, previous = None, list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i]
        for j, b in enumerate(second, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
            if i > 1 and j > 1 and a == second[j - 2] and first[i - 2] == b:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        before, previous = previous, current
    return previous[-1]


def alternatives(raw):
    """Return the other forms of an identifier typed as ``raw``, as the index holds them
    beside the text (``chapters.words.identifier_parts``), each a list of folded words.

    Words joined by underscores, dots or slashes, two or more of them with a letter, also
    run together ("lru_cache": ``[["lrucache"]]``); a word written in camel case also as its
    parts ("ThreadPoolExecutor": ``[["thread", "pool", "executor"]]``; "getElementById"
    keeps "by"). A plain word or phrase has none.
    """
    found = []
    parts = WORD.findall(raw)
    lettered = sum(not part.isdigit() for part in parts)
    if IDENTIFIER.fullmatch(EDGES.sub("", raw)) and len(parts) > 1 and lettered > 1:
        found.append([fold("".join(parts))])
    humps = [hump_words(part) or [fold(part)] for part in parts]
    if any(len(each) > 1 for each in humps):
        found.append([word for each in humps for word in each])
    return found


def similarity(first, second):
    """Return the trigram similarity of two strings, as ``pg_trgm``'s ``similarity()``.

    Each word (a run of letters and digits, folded) is padded with two spaces before and
    one after and cut into its three-character pieces; the similarity is the number of
    pieces the two strings share over the number of distinct pieces in both (PostgreSQL's
    documentation of ``pg_trgm``).

    Returns:
        A float from 0 (nothing shared) to 1.
    """
    a, b = trigrams(first), trigrams(second)
    return len(a & b) / len(a | b) if a or b else 0.0


def trigrams(text):
    """Return the set of ``pg_trgm`` trigrams of ``text`` (see :func:`similarity`)."""
    return {
        padded[index : index + 3]
        for word in words(text)
        for padded in [f"  {word} "]
        for index in range(len(padded) - 2)
    }


def highlighter(query):
    """Return a function that finds where ``query`` matches in a text.

    A word of the text matches a word of the query when their folded forms are equal, or
    have the same English stem ("kernels" for "kernel"), or it starts with one of the
    term's prefixes; a substring term matches wherever it occurs, ignoring case. Words of
    phrases are matched one by one, and so are the words of an identifier's alternatives
    ("user" and "name" for "userName"); a word written in camel case also matches by its
    parts ("ThreadPoolExecutor" for "pool").

    Returns:
        A function from a text to the sorted, non-overlapping ``(start, end)`` spans that
        match in it; with ``first=True``, to a list of the first of them only (or none),
        found without reading the rest of the text.
    """
    exact, stems, prefixes, substrings = set(), set(), [], []
    for term in [option for each in query.terms for option in each.options or [each]]:
        if term.kind == "substring":
            substrings.extend(WORD.findall(term.text))
            continue
        for spelling in term.spellings + [w for form in term.alternatives for w in form]:
            exact.add(spelling)
            stems.add(english_stem(spelling))
        prefixes.extend(term.prefixes)
    pattern = (
        re.compile("|".join(map(re.escape, sorted(substrings, key=len, reverse=True))), re.I)
        if substrings
        else None
    )

    starts = tuple(prefixes)

    seen = {}  # each word's answer: a body's words repeat, and folding them is the cost

    def matches(word):
        found = seen.get(word)
        if found is None:
            found = any(
                folded in exact or english_stem(folded) in stems
                for folded in [fold(word), *hump_words(word)]
            ) or fold(word).startswith(starts)
            seen[word] = found
        return found

    def spans(text, *, first=False):
        limit = 1 if first else None
        found = (match.span() for match in WORD.finditer(text) if matches(match.group()))
        found = list(islice(found, limit))
        if pattern is not None:
            found.extend(match.span() for match in islice(pattern.finditer(text), limit))
        merged = []
        for start, end in sorted(found):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged[:limit]

    return spans
