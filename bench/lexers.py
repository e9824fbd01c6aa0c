"""Feed every Pygments lexer text it was not written for, as large as a body may be.

Run as ``.venv/bin/python bench/lexers.py [LANGUAGE ...]`` (by default every lexer Pygments
has). For each input of :data:`INPUTS` (a run of one character, words, nested brackets,
quotes: each fills a body up to ``BODY_MAX_LENGTH`` in one code fence) it highlights the code
with every lexer as a body's render does, in the kept child process that is killed at the
body's budget (:mod:`chapters.markdown.lexing`), and times each block from the request to
the answer or the kill, a new child's start included. It prints, per input, how the lexers
ended (highlighted, past the tokens allowed, killed at the budget) and the five slowest, with
the time of a whole render (:func:`chapters.markdown.render_markdown`: Markdown, highlighting,
sanitizing) of a body holding that fence. ``bench/README.md`` ("Code highlighting") keeps
the last run. ``tests/test_lexer_scan.py`` runs the same scan and checks the bound.
"""

import os
import sys
import time
from collections import Counter

# Each input fills a body of BODY_MAX_LENGTH characters: "```" and the language's name, a
# newline, the code, a newline and "```".
INPUTS = {
    "a": lambda length: "a" * length,
    "a b ": lambda length: ("a b " * length)[:length],
    "(…)": lambda length: "(" * (length // 2) + ")" * (length - length // 2),
    '"': lambda length: '"' * length,
    "'": lambda length: "'" * length,
}


def languages():
    """Return one name of every lexer Pygments has, in alphabetical order."""
    from pygments.lexers._mapping import LEXERS

    return sorted(aliases[0] for _, _, aliases, _, _ in LEXERS.values() if aliases)


def code(language, make):
    """Return what ``make`` makes as long as a fence of ``language`` in a body may hold."""
    from chapters.markdown import BODY_MAX_LENGTH

    return make(BODY_MAX_LENGTH - len(fence(language, "")))


def fence(language, text):
    """Return a body of one fence of ``language`` holding ``text``."""
    return f"```{language}\n{text}\n```"


def highlight_block(language, text):
    """Highlight ``text`` as one block of a body, as a render does; return how it ended.

    Returns:
        A pair: the seconds from the request to the answer (or to the kill), and
        ``"highlighted"``, ``"tokens"`` (past the tokens allowed) or ``"killed"``.
    """
    from chapters.markdown.mdx.highlight import (
        HighlightBudget,
        HighlightOverBudget,
        RemoteCodeHilite,
        budgeted_formatter,
    )

    hiliter = RemoteCodeHilite(
        text,
        lang=language,
        guess_lang=False,
        css_class="highlight",
        pygments_formatter=budgeted_formatter(HighlightBudget()),
    )
    started = time.monotonic()
    try:
        hiliter.hilite(shebang=False)
        ended = "highlighted"
    except HighlightOverBudget as error:
        ended = "tokens" if "tokens" in str(error) else "killed"
    return time.monotonic() - started, ended


def scan(make, names):
    """Highlight the input ``make`` makes with each lexer of ``names``.

    Returns:
        A list of ``(seconds, language, ended)``, slowest first (see :func:`highlight_block`).
    """
    results = []
    for language in names:
        seconds, ended = highlight_block(language, code(language, make))
        results.append((seconds, language, ended))
    return sorted(results, reverse=True)


def render_seconds(body):
    """Return the seconds a whole render of ``body`` takes."""
    from chapters.markdown import render_markdown

    started = time.monotonic()
    render_markdown(body)
    return time.monotonic() - started


def main(names):
    """Print, per input, how the lexers ended and the five slowest, with their render times."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only")
    import django

    django.setup()
    print(f"load average {os.getloadavg()[0]:.2f}; {len(names)} lexers")
    for name, make in INPUTS.items():
        started = time.monotonic()
        results = scan(make, names)
        ends = Counter(ended for _, _, ended in results)
        print(
            f"\n{name!r} up to the body's limit: scanned in "
            f"{time.monotonic() - started:.0f} s; "
            + ", ".join(f"{count} {ended}" for ended, count in sorted(ends.items()))
        )
        print(f"{'lexer':<16} {'block':>8} {'render':>8}  ended")
        for seconds, language, ended in results[:5]:
            render = render_seconds(fence(language, code(language, make)))
            print(f"{language:<16} {seconds:>6.2f} s {render:>6.2f} s  {ended}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main(sys.argv[1:] or languages())
