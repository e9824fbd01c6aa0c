"""Code highlighting with a time bound and a size bound: past either, a body's code is shown
plain.

Python-Markdown's codehilite extension highlights code with Pygments, whose lexers are
regular expressions tried at each position of the code; some take time in the square of
the code's length (or worse) on text they were not written for, such as a long run of one
character. The size limits (:mod:`..limits`) cannot tell such text from ordinary code, and
nearly every popular lexer has some (``bench/README.md``, "Code highlighting"). So the
lexing itself is bounded: Pygments lexes lazily, token by token, as the formatter asks for
them, and the formatter given to codehilite (:func:`budgeted_formatter`) counts the time
spent producing tokens across the whole body. Past ``HIGHLIGHT_SECONDS_MAX`` it raises
:class:`HighlightOverBudget`, and the body is rendered again with highlighting off: every
code block escaped, as written, with its language's class (``chapters.markdown``). A body
always renders in at most that long more than it takes without highlighting, plus one
token's work.

The tokens are counted too. Each becomes a ``<span>`` that the sanitizer (bleach) then
parses and checks, which takes longer than lexing it: a fast lexer can produce, within the
time bound, more spans than the sanitizer gets through in seconds. Past
``HIGHLIGHT_TOKENS_MAX`` tokens in a body the code is shown plain as well, as code viewers
show a large file plain.
"""

import time

from pygments.formatters.html import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

__all__ = [
    "HIGHLIGHT_SECONDS_MAX",
    "HIGHLIGHT_TOKENS_MAX",
    "HighlightBudget",
    "HighlightOverBudget",
    "budgeted_formatter",
    "language_label",
]

# The time a body's code may take to lex, in all. Ordinary code lexes in a small fraction
# of it (bench/README.md, "Code highlighting").
HIGHLIGHT_SECONDS_MAX = 0.5
# The tokens a body's code may have, in all, to be highlighted: several thousand lines of
# ordinary code (bench/README.md, "Code highlighting").
HIGHLIGHT_TOKENS_MAX = 10_000


class HighlightOverBudget(Exception):
    """The code of a body took longer than its budget to highlight, or has too many tokens."""


class HighlightBudget:
    """The lexing time one body may still spend.

    Args:
        seconds: the time allowed, in all; by default ``HIGHLIGHT_SECONDS_MAX``.
        tokens: the tokens allowed, in all; by default ``HIGHLIGHT_TOKENS_MAX``.
    """

    def __init__(self, seconds=None, tokens=None):
        self.seconds = HIGHLIGHT_SECONDS_MAX if seconds is None else seconds
        self.tokens_max = HIGHLIGHT_TOKENS_MAX if tokens is None else tokens
        self.spent, self.count = 0.0, 0

    def tokens(self, tokensource):
        """Yield from ``tokensource``, counting the tokens and the time taken to produce each.

        Raises:
            HighlightOverBudget: the time counted passed ``seconds``, or the tokens counted
                passed ``tokens``.
        """
        tokens = iter(tokensource)
        while True:
            started = time.monotonic()
            try:
                token = next(tokens)
            except StopIteration:
                return
            self.spent += time.monotonic() - started
            if self.spent > self.seconds:
                raise HighlightOverBudget(f"Highlighting took more than {self.seconds} s.")
            self.count += 1
            if self.count > self.tokens_max:
                raise HighlightOverBudget(f"The code has more than {self.tokens_max:,} tokens.")
            yield token


def language_label(lang_str):
    """Return the label shown above a block of code in ``lang_str``, or None.

    Args:
        lang_str: what codehilite passes a formatter: ``language-`` and the language the
            author named after the fence (``language-text`` when none was named).

    Returns:
        The name Pygments gives the language's lexer ("Python" for ``python`` or ``py``),
        the language as written when Pygments has no lexer for it, or None for plain text.
    """
    language = lang_str.removeprefix("language-")
    if not language or language == "text":
        return None
    try:
        return get_lexer_by_name(language).name
    except ClassNotFound:
        return language


def budgeted_formatter(budget):
    """Return a Pygments HTML formatter class that lexes within ``budget``.

    codehilite instantiates the class given as its ``pygments_formatter`` for each block,
    with Pygments' options and ``lang_str`` (Python-Markdown's documented way to pass a
    formatter class); it formats as Pygments' ``HtmlFormatter``, which codehilite uses by
    default, with the language's name (:func:`language_label`) as Pygments' ``filename``:
    a ``<span class="filename">`` before the ``<pre>``, the block's label.

    Args:
        budget: a :class:`HighlightBudget`, shared by every block of one body.

    Returns:
        A subclass of ``pygments.formatters.html.HtmlFormatter``.
    """

    class BudgetedHtmlFormatter(HtmlFormatter):
        """Pygments' ``HtmlFormatter``, reading its tokens through the body's budget."""

        def __init__(self, lang_str="", **options):
            label = language_label(lang_str)
            super().__init__(**({"filename": label} if label else {}), **options)
            self.lang_str = lang_str

        def format_unencoded(self, tokensource, outfile):
            """Format as ``HtmlFormatter`` does, the tokens counted against the budget."""
            super().format_unencoded(budget.tokens(tokensource), outfile)

    return BudgetedHtmlFormatter
