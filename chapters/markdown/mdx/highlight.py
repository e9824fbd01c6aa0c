"""Code highlighting with a time bound and a size bound: past either, a body's code is shown
plain.

Python-Markdown's codehilite extension highlights code with Pygments, whose lexers are
regular expressions tried at each position of the code; some take time in the square of
the code's length (or worse) on text they were not written for, such as a long run of one
character, and some spend seconds in one match before their first token. The size limits
(:mod:`..limits`) cannot tell such text from ordinary code, and nearly every popular lexer
has some (``bench/README.md``, "Code highlighting"). So each block is highlighted in a kept
child process (:mod:`chapters.markdown.lexing`) that is killed when the body's budget runs
out: :class:`HighlightExtension` has Python-Markdown's fenced and indented code call
:class:`RemoteCodeHilite` where they call codehilite's ``CodeHilite``, and the web process
never loads a lexer. The blocks of a body share one :class:`HighlightBudget`: the lexers'
loading may take ``LEXER_LOAD_SECONDS_MAX`` in all, the highlighting
``HIGHLIGHT_SECONDS_MAX`` in all, measured by the web process's clock. Past either it raises
:class:`HighlightOverBudget`, and the body is rendered again with highlighting off: every code
block escaped, as written, with its language's class (``chapters.markdown``). A body always
renders in at most that long more than it takes without highlighting, plus a new child's
start when the last one was killed.

The tokens are counted too (in the child, by :func:`budgeted_formatter`). Each becomes a
``<span>``, which the page then carries: past ``HIGHLIGHT_TOKENS_MAX`` tokens in a body the
code is shown plain as well, as code viewers show a large file plain.

The code blocks' HTML does not go through the sanitizer (:class:`CodeBlocks`): it is
codehilite's and Pygments' own, every character of the code escaped, and bleach took seconds
over a long block of escaped characters (100,000 ``"`` as ``&quot;``: 3.4 s), far longer than
highlighting it.
"""

import logging
import re
import secrets
import time
import types

from markdown.extensions import Extension, codehilite, fenced_code
from pygments.formatters.html import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from .. import lexing

__all__ = [
    "HIGHLIGHT_SECONDS_MAX",
    "HIGHLIGHT_TOKENS_MAX",
    "LEXER_LOAD_SECONDS_MAX",
    "HighlightBudget",
    "HighlightExtension",
    "HighlightOverBudget",
    "RemoteCodeHilite",
    "CodeBlocks",
    "budgeted_formatter",
    "language_label",
]

logger = logging.getLogger(__name__)

# The time a body's code may take to highlight, in all. Ordinary code highlights in a small
# fraction of it (bench/README.md, "Code highlighting").
HIGHLIGHT_SECONDS_MAX = 0.5
# The time a body's lexers may take to load, in all, apart from the above: the first use of a
# lexer in a child imports its module and compiles its expressions, up to a tenth of a second
# on a quiet machine (bench/README.md, "Code highlighting").
LEXER_LOAD_SECONDS_MAX = 1.0
# The tokens a body's code may have, in all, to be highlighted: several thousand lines of
# ordinary code (bench/README.md, "Code highlighting").
HIGHLIGHT_TOKENS_MAX = 10_000


class HighlightOverBudget(Exception):
    """The code of a body took longer than its budget to highlight, or has too many tokens."""


class HighlightBudget:
    """The time and tokens one body's code may still spend.

    Args:
        seconds: the highlighting time allowed, in all; by default ``HIGHLIGHT_SECONDS_MAX``.
        tokens: the tokens allowed, in all; by default ``HIGHLIGHT_TOKENS_MAX``.
        load_seconds: the lexers' loading time allowed, in all; by default
            ``LEXER_LOAD_SECONDS_MAX``.
    """

    def __init__(self, seconds=None, tokens=None, load_seconds=None):
        self.seconds = HIGHLIGHT_SECONDS_MAX if seconds is None else seconds
        self.tokens_max = HIGHLIGHT_TOKENS_MAX if tokens is None else tokens
        self.load_seconds = LEXER_LOAD_SECONDS_MAX if load_seconds is None else load_seconds
        self.spent, self.count, self.loading = 0.0, 0, 0.0

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

    The class is what codehilite is configured with in the web process, where
    :class:`RemoteCodeHilite` reads its ``budget`` and never instantiates it; the child
    process formats with it (:func:`chapters.markdown.lexing_child.serve`).

    Args:
        budget: a :class:`HighlightBudget`, shared by every block of one body.

    Returns:
        A subclass of ``pygments.formatters.html.HtmlFormatter``, with ``budget`` as its
        attribute of that name.
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

    BudgetedHtmlFormatter.budget = budget
    return BudgetedHtmlFormatter


class RemoteCodeHilite(codehilite.CodeHilite):
    """codehilite's ``CodeHilite``, highlighting in the child process within the body's budget.

    Takes codehilite's arguments; ``pygments_formatter`` is the body's
    :func:`budgeted_formatter`, whose budget is charged. With ``use_pygments`` off (as
    :func:`chapters.markdown.check_markdown` renders) it writes codehilite's plain HTML itself.
    """

    def __init__(self, src, **options):
        super().__init__(src, **options)
        self.child_options = {
            key: value for key, value in options.items() if key != "pygments_formatter"
        }

    def hilite(self, shebang=True):
        """Return the block's HTML as ``CodeHilite.hilite()`` writes it, highlighted in the child.

        Raises:
            HighlightOverBudget: the lexer did not load within the body's load allowance,
                the highlighting did not end within its remaining time or passed its
                tokens, or the child could not start or died.
        """
        if not self.use_pygments:
            return super().hilite(shebang)
        budget = self.pygments_formatter.budget
        seconds = budget.seconds - budget.spent
        if seconds <= 0:
            raise HighlightOverBudget(f"Highlighting took more than {budget.seconds} s.")
        request = {
            "src": self.src,
            "shebang": shebang,
            "options": self.child_options,
            "tokens": budget.tokens_max - budget.count,
        }
        started = time.monotonic()
        try:
            answer, loaded_in, highlighted_in = lexing.highlight(
                request, max(budget.load_seconds - budget.loading, 0), seconds
            )
        except lexing.ChildFailed as error:
            budget.spent += time.monotonic() - started
            logger.info("Code shown plain: %s", error)
            raise HighlightOverBudget(str(error)) from error
        budget.loading += loaded_in
        budget.spent += highlighted_in
        if "over" in answer:
            raise HighlightOverBudget(answer["over"])
        budget.count += answer["tokens"]
        return answer["html"]


def _calling(method, code_hilite):
    """Return a copy of Python-Markdown's ``method`` that calls ``code_hilite`` for ``CodeHilite``.

    The fenced code preprocessor and codehilite's treeprocessor construct the module-level
    ``CodeHilite`` in their ``run()``, with no setting to choose another; the copy reads its
    global names from a namespace of its own, so Python-Markdown's modules stay as they are.
    """
    namespace = {**method.__globals__, "CodeHilite": code_hilite}
    copy = types.FunctionType(
        method.__code__, namespace, method.__name__, method.__defaults__, method.__closure__
    )
    copy.__kwdefaults__ = method.__kwdefaults__
    return copy


class CodeBlocks:
    """The HTML of one rendering's code blocks, set aside while the rest is sanitized.

    Each block's HTML is kept and a placeholder, ``<pre>`` holding a number drawn anew for
    each rendering and the block's index, takes its place in what Python-Markdown writes;
    :meth:`restore` puts the blocks back into the sanitized HTML. A body cannot write a
    placeholder of its own: it does not know the number.
    """

    def __init__(self):
        self.nonce = secrets.token_hex(8)
        self.blocks = []

    def keep(self, html):
        """Keep a code block's ``html``; return its placeholder."""
        self.blocks.append(html)
        return f"<pre>wikicode-{self.nonce}-{len(self.blocks) - 1}</pre>"

    def restore(self, html):
        """Return the sanitized ``html`` with each placeholder replaced by its block.

        A block's HTML ends in a line break, which Python-Markdown strips from the end of
        what it writes: so is it stripped from the end of the result.
        """
        if not self.blocks:
            return html
        placeholder = re.compile(rf"<pre>wikicode-{self.nonce}-(\d+)</pre>")
        return placeholder.sub(lambda match: self.blocks[int(match.group(1))], html).rstrip("\n")


class FencedBlockPreprocessor(fenced_code.FencedBlockPreprocessor):
    """Python-Markdown's fenced code, highlighted by :class:`RemoteCodeHilite`, each block's
    HTML kept in ``blocks`` (:class:`CodeBlocks`)."""

    run_fenced = _calling(fenced_code.FencedBlockPreprocessor.run, RemoteCodeHilite)

    def __init__(self, md, config, blocks):
        super().__init__(md, config)
        self.blocks = blocks

    def run(self, lines):
        """Run Python-Markdown's preprocessor; keep the HTML of the blocks it stashed."""
        return _kept(self.md, self.blocks, self.run_fenced, lines)


class HiliteTreeprocessor(codehilite.HiliteTreeprocessor):
    """codehilite's indented code, highlighted by :class:`RemoteCodeHilite`, each block's HTML
    kept in ``blocks`` (:class:`CodeBlocks`)."""

    run_hilite = _calling(codehilite.HiliteTreeprocessor.run, RemoteCodeHilite)

    def __init__(self, md, blocks):
        super().__init__(md)
        self.blocks = blocks

    def run(self, root):
        """Run codehilite's treeprocessor; keep the HTML of the blocks it stashed."""
        return _kept(self.md, self.blocks, self.run_hilite, root)


def _kept(md, blocks, run, argument):
    """Call ``run(argument)``, then move the HTML it stored in Python-Markdown's stash of raw
    HTML (the code blocks, highlighted or plain) into ``blocks``, leaving placeholders."""
    stash = md.htmlStash
    first = stash.html_counter
    result = run(argument)
    for index in range(first, stash.html_counter):
        stash.rawHtmlBlocks[index] = blocks.keep(stash.rawHtmlBlocks[index])
    return result


class HighlightExtension(Extension):
    """Have the fenced_code and codehilite extensions highlight in the child process, and
    keep their blocks' HTML apart from the sanitizer in ``md.code_blocks``
    (:class:`CodeBlocks`).

    Registered after both, it puts its processors in place of theirs, with their settings.
    """

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        md.code_blocks = CodeBlocks()
        fenced = md.preprocessors["fenced_code_block"]
        md.preprocessors.register(
            FencedBlockPreprocessor(md, fenced.config, md.code_blocks), "fenced_code_block", 25
        )
        hiliter = HiliteTreeprocessor(md, md.code_blocks)
        hiliter.config = md.treeprocessors["hilite"].config
        md.treeprocessors.register(hiliter, "hilite", 30)
