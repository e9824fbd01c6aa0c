"""Time Pygments' lexers on text they were not written for, and a body's render with it.

Run as ``.venv/bin/python bench/lexers.py [LANGUAGE ...]``. For each language (by default
the common ones of the curriculum's areas) it lexes runs of one or two characters of 4,000
and 8,000 characters and prints the slowest run and how much longer the double length took
(2 for a lexer linear on it, 4 for one quadratic). Then it times the rendering of a body
holding the slowest run on one line at 20,000 characters, which
``chapters.markdown.mdx.highlight`` bounds. ``bench/README.md`` ("Code highlighting") keeps
the last run.
"""

import os
import sys
import time

LANGUAGES = [
    "python", "c", "cpp", "cuda", "rust", "go", "java", "javascript", "typescript", "bash",
    "json", "yaml", "toml", "sql", "html", "css", "latex", "diff", "r", "julia", "haskell",
    "scala", "kotlin", "swift", "lua", "ruby", "csharp", "glsl", "llvm", "ocaml", "fan",
]  # fmt: skip

RUNS = [
    *"a\"'/*#<{(\\`$ \n0-=:@.%[|&!?;,+~^_",
    "/*", '"\\', "'\\", "<!--", "a ", "a\n", "0.", "--", "#{", "${", '"""', "r'", "a(", "a.",
    "{{", "[[", "(*", "{-", 'x"',
]  # fmt: skip


def seconds(lexer, text):
    """Return how long lexing ``text`` takes, in seconds."""
    from pygments import lex

    started = time.perf_counter()
    for _ in lex(text, lexer):
        pass
    return time.perf_counter() - started


def slowest_run(language):
    """Return ``(seconds at 8,000 characters, growth from 4,000, run)`` of the slowest run."""
    from pygments.lexers import get_lexer_by_name

    lexer = get_lexer_by_name(language)
    worst = (0.0, 0.0, "")
    for run in RUNS:
        text = run * (8000 // len(run))
        half, full = seconds(lexer, text[:4000]), seconds(lexer, text)
        worst = max(worst, (full, full / max(half, 1e-6), run))
    return worst


def main(languages):
    """Print each language's slowest run, then the bounded render of the slowest of all."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only")
    import django

    django.setup()
    from chapters.markdown import render_markdown

    print(f"{'language':<12} {'8,000 chars':>12} {'x from 4,000':>13}  run")
    slowest = (0.0, "", "")
    for language in languages:
        full, growth, run = slowest_run(language)
        print(f"{language:<12} {full:>10.3f} s {growth:>12.1f}  {run!r}")
        if "\n" not in run:  # a body's blocks are at most 1,000 lines (chapters.markdown.limits)
            slowest = max(slowest, (full, language, run))
    _, language, run = slowest
    body = f"```{language}\n{run * (20_000 // len(run))}\n```"
    started = time.perf_counter()
    render_markdown(body)
    print(
        f"Render of 20,000 characters of {run!r} as {language}: "
        f"{time.perf_counter() - started:.2f} s (bounded)"
    )


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main(sys.argv[1:] or LANGUAGES)
