"""The kept child process's loop: highlight the blocks its parent (:mod:`.lexing`) sends.

The parent (:mod:`.lexing`) starts it as its own Python process and only talks to it through
a pipe, so the parent never imports this module, and the child can use the formatter the web
process uses (:mod:`.mdx.highlight`, which imports the parent's side).
"""

import contextlib
import json
import math
import os
import signal
import sys

from markdown.extensions.codehilite import CodeHilite
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from .mdx.highlight import HighlightBudget, HighlightOverBudget, budgeted_formatter

__all__ = ["serve"]


def serve():
    """Answer highlighting requests from standard input until end of file (the child's loop).

    Each request is one line of JSON (see :func:`highlight`); the child writes
    ``{"loaded": true}`` once the block's lexer is loaded, then the answer. Standard output
    is kept for the answers: whatever a library prints goes to standard error. An exception
    other than the budget's ends the child, its traceback on standard error; the parent
    shows that block plain.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent; end of file ends us
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)

    def write(message):
        answers.write(json.dumps(message).encode() + b"\n")
        answers.flush()

    # What every request needs, whatever its lexer (the formatter, its style, plain text), is
    # loaded before the child says it is ready, so that no request's time pays for it.
    CodeHilite("", lang="text", pygments_formatter=budgeted_formatter(HighlightBudget())).hilite()
    write({"ready": True})
    for line in sys.stdin.buffer:
        request = json.loads(line)
        signal.alarm(request["alarm"])
        options = request["options"]
        with contextlib.suppress(ClassNotFound):  # codehilite falls back to plain text
            get_lexer_by_name(options.get("lang") or "text")
        write({"loaded": True})
        budget = HighlightBudget(seconds=math.inf, tokens=request["tokens"])
        hiliter = CodeHilite(
            request["src"], pygments_formatter=budgeted_formatter(budget), **options
        )
        try:
            write({"html": hiliter.hilite(shebang=request["shebang"]), "tokens": budget.count})
        except HighlightOverBudget as error:
            write({"over": str(error)})
        signal.alarm(0)
