"""Highlight code in a kept child process that is killed when a body's budget runs out.

Pygments' lexers are regular expressions, and Python's ``re`` cannot be interrupted while it
matches: some lexers spend seconds on one match, before their first token, on text they were
not written for (bench/README.md, "Code highlighting"). So a block of code is highlighted in
another process, which the web process can stop. Each process that renders Markdown (a
gunicorn worker, the development server, ``manage.py worker``, pytest) starts its own child
the first time it highlights (:func:`highlight`), and keeps it: the child stays idle between
requests, with the lexers it has loaded. A thread that finds no idle child starts one more,
so threads never wait on each other.

A request sends a block's code, its language and codehilite's options, as one line of JSON;
the child loads the lexer, says so, then answers with the highlighted HTML (codehilite's own
``hilite()`` run with :func:`..mdx.highlight.budgeted_formatter`, so the HTML is what
codehilite writes in the web process) or with the budget it overran (too many tokens). When
the lexer does not load within the body's load allowance, or the highlighting does not end
within the body's remaining time, the child is killed (``SIGKILL``) and reaped, and
:class:`..mdx.highlight.HighlightOverBudget` shows the body's code plain; the next block starts
a new child. A child's start is not counted: it does not depend on the text.

A child ends on its own when its parent does: it reads requests from a pipe only the parent
writes to, and exits at end of file. A child busy lexing when its parent dies reads that end
of file once it is done, and an alarm it sets for each request (the request's time plus
``ALARM_SLACK_SECONDS``, the default action of ``SIGALRM`` ending the process even inside
``re``) bounds that.
"""

import atexit
import contextlib
import json
import logging
import math
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

__all__ = ["ALARM_SLACK_SECONDS", "START_SECONDS_MAX", "highlight"]

logger = logging.getLogger(__name__)

# How long a new child may take to start (Python, Markdown, Pygments) before highlighting is
# given up for that block; a loaded machine takes a few times a quiet one's tenth of a second.
START_SECONDS_MAX = 10.0
# The child's own bound past its request's time, in case its parent died and cannot kill it.
ALARM_SLACK_SECONDS = 5

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHILD_COMMAND = [sys.executable, "-c", "from chapters.markdown.lexing_child import serve; serve()"]


class ChildFailed(Exception):
    """The child did not answer in time, or died: it has been killed and reaped."""


class ChildDied(ChildFailed):
    """The child's pipe closed: it died (killed from outside, out of memory)."""


class Child:
    """One child process and the pipes to it, started as it is made; it is ready once it
    has said so (:meth:`wait_ready`), having imported what every request needs.

    Raises:
        ChildFailed: the child could not start.
    """

    def __init__(self):
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(_python_path())}
        try:
            self.process = subprocess.Popen(
                CHILD_COMMAND,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=environment,
                cwd=PROJECT_ROOT,
            )
        except OSError as error:
            raise ChildFailed(f"The highlighting process could not start: {error}") from error
        self.buffer = b""
        self.ready = False

    def wait_ready(self):
        """Wait until the child has said it is ready, if it has not yet.

        Raises:
            ChildFailed: it did not within ``START_SECONDS_MAX`` (:class:`ChildDied`: it
                died); it has been killed and reaped.
        """
        if not self.ready:
            self.receive(START_SECONDS_MAX)
            self.ready = True

    def alive(self):
        """Return whether the child is still running."""
        return self.process.poll() is None

    def send(self, message):
        """Write ``message`` (a dict) as one line of JSON.

        Raises:
            ChildFailed: the child has died (its pipe is closed).
        """
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            self.kill()
            raise ChildDied("The highlighting process has died.") from error

    def receive(self, seconds):
        """Return the child's next message (a dict), waiting at most ``seconds``.

        Raises:
            ChildFailed: no whole message came within ``seconds`` (:class:`ChildDied`: the
                child died); it has been killed and reaped.
        """
        deadline = time.monotonic() + seconds
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            readable = remaining > 0 and select.select([descriptor], [], [], remaining)[0]
            chunk = os.read(descriptor, 1 << 16) if readable else b""
            if not chunk:
                self.kill()
                if readable:
                    raise ChildDied("The highlighting process died.")
                raise ChildFailed(f"No answer in {seconds:.2f} s.")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def kill(self):
        """Kill the child (``SIGKILL``) and reap it, so that no zombie is left."""
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.close()

    def close(self):
        """Close the pipes: an idle child reads end of file and exits."""
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(BrokenPipeError):
                pipe.close()


_idle = []
_idle_lock = threading.Lock()


def _python_path():
    """Return the directories the child imports from: the project's, then the parent's."""
    return [str(PROJECT_ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]


def _take():
    """Return an idle child of this process (None if there is none), reaping dead ones."""
    with _idle_lock:
        while _idle:
            child = _idle.pop()
            if child.alive():
                return child
            child.kill()
    return None


def _give_back(child):
    """Keep ``child`` for the next request."""
    with _idle_lock:
        _idle.append(child)


def _forget_after_fork():
    """Drop the parent's children in a forked process (a gunicorn worker), closing the pipes.

    The children belong to the process that started them; closing this copy of their pipes
    leaves them to it, and keeps them from outliving it through us. The lock is new: another
    thread of the parent may have held it when it forked.
    """
    global _idle_lock
    _idle_lock = threading.Lock()
    for child in _idle:
        child.close()
    _idle.clear()


def _end_children():
    """At exit, close the idle children's pipes and reap them (each exits at end of file)."""
    with _idle_lock:
        children = list(_idle)
        _idle.clear()
    for child in children:
        child.close()
        try:
            child.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            child.kill()


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(_end_children)


def highlight(request, load_seconds, seconds):
    """Highlight one block of code in a child process, within the times given.

    Args:
        request: a dict for :func:`.lexing_child.serve`: ``src``, ``shebang``, ``options``
            (codehilite's keyword arguments, JSON-serializable) and ``tokens`` (the tokens allowed).
        load_seconds: how long loading the lexer may take.
        seconds: how long the highlighting may take once the lexer is loaded.

    Returns:
        A tuple ``(answer, loaded_in, highlighted_in)``: the child's answer, a dict with
        ``html`` and ``tokens`` (the tokens formatted) or with ``over`` (the budget overrun,
        as a message), and the seconds the load and the highlighting took.

    Raises:
        ChildFailed: the child did not load the lexer within ``load_seconds`` or did not
            answer within ``seconds`` (it has been killed), or could not be started, or a
            new child died.
    """
    request = {**request, "alarm": math.ceil(load_seconds + seconds) + ALARM_SLACK_SECONDS}
    child = _take()
    try:
        loaded_in = _load(child, request, load_seconds) if child else None
    except ChildDied:
        loaded_in = None  # an idle child that died, even as it was taken: ask a new one
    try:
        if loaded_in is None:
            child = Child()
            loaded_in = _load(child, request, load_seconds)
        started = time.monotonic()
        answer = child.receive(seconds)
    except ChildFailed:
        _start_spare()
        raise
    _give_back(child)
    return answer, loaded_in, time.monotonic() - started


def _start_spare():
    """Start a child in place of one just killed, kept idle: it imports what it needs while
    this render goes on, and the next block finds it ready. A child that cannot start is
    left to the next block to try again."""
    with contextlib.suppress(ChildFailed):
        _give_back(Child())


def _load(child, request, seconds):
    """Send ``request`` to ``child``, once it is ready (its start is not counted); return the
    seconds it took to load the lexer.

    Raises:
        ChildFailed: not ready within ``START_SECONDS_MAX`` or not loaded within
            ``seconds``, or the child died (:class:`ChildDied`).
    """
    child.wait_ready()
    child.send(request)
    started = time.monotonic()
    child.receive(seconds)
    return time.monotonic() - started
