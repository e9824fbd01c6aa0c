"""Graphviz's ``dot``, run on a diagram's source within bounds, and its SVG made safe.

A ```` ```dot ```` fence is drawn on the server (:mod:`.mdx.diagrams`), once per rendering of a
body, so the page, the print page and the books show the same SVG and no reader runs a
script for it. The source is hostile until shown otherwise:

- **Files and network.** Graphviz reads files a graph names (``image``, ``shapefile``,
  ``<IMG SRC>`` in HTML-like labels, ``imagepath``, ``fontpath``, ``fontnames``,
  ``stylesheet``). A source naming one is refused with a clear message
  (:data:`FORBIDDEN_RE`); as DOT can hide a name (``"ima" + "ge"``), ``dot`` also runs in
  Graphviz's own safe mode: with ``SERVER_NAME`` set it loads files only from the
  directories in ``GV_FILE_PATH``, here an empty one made for the run (Graphviz's
  documentation of ``GV_FILE_PATH``; its warning "files are only permitted to be loaded
  from the directories in ... when running in an http server"). Graphviz has no network
  access of its own.
- **Time and memory.** ``dot`` runs under ``prlimit`` (util-linux): at most
  :data:`DOT_CPU_SECONDS` of CPU and :data:`DOT_MEMORY_BYTES` of address space; the web
  process kills it after :data:`DOT_SECONDS_MAX` of wall time, and a body's diagrams share
  :data:`DIAGRAM_SECONDS_MAX` in all (:class:`DiagramBudget`). The source may hold
  :data:`DIAGRAM_SOURCE_MAX` characters, and the SVG read back :data:`SVG_MAX_BYTES`.
- **The SVG.** What ``dot`` writes is parsed as XML (its document type, which a source
  cannot change, dropped first) and written again from an allowlist of elements and
  attributes whose values must match what ``dot`` writes (:mod:`.svg`).

A failure never fails the page: :class:`DiagramError` carries the message the reader sees
above the diagram's source.
"""

import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time

from .svg import clean_svg

__all__ = [
    "DIAGRAMS_MAX",
    "DIAGRAM_SECONDS_MAX",
    "DIAGRAM_SOURCE_MAX",
    "DOT_CPU_SECONDS",
    "DOT_MEMORY_BYTES",
    "DOT_SECONDS_MAX",
    "FORBIDDEN_RE",
    "SVG_MAX_BYTES",
    "DiagramBudget",
    "DiagramError",
    "draw_dot",
]

DIAGRAM_SOURCE_MAX = 20_000  # characters of one diagram's source
DIAGRAMS_MAX = 20  # diagrams drawn in one body; past it, the source is shown
DOT_SECONDS_MAX = 3.0  # wall time of one run of dot
DOT_CPU_SECONDS = 2  # CPU time of one run of dot (prlimit --cpu)
DOT_MEMORY_BYTES = 512 * 1024 * 1024  # address space of one run of dot (prlimit --as)
DIAGRAM_SECONDS_MAX = 6.0  # wall time of one body's diagrams, in all
SVG_MAX_BYTES = 2 * 1024 * 1024  # the SVG dot may write for one diagram

# Attributes (and HTML-like labels' <IMG>) that make Graphviz read a file. A quoted or a
# concatenated name is caught by Graphviz's safe mode instead (see the module's docstring).
FORBIDDEN_RE = re.compile(
    r"""(?ix)
    \b(?P<attribute>image|imagepath|shapefile|fontpath|fontnames|stylesheet)\b["']?\s*=
    | <\s*(?P<tag>img)\b
    """
)


class DiagramError(Exception):
    """A diagram that was not drawn; its message says why, for the reader."""


class DiagramBudget:
    """The diagrams one body may still draw, the time they may still take, and the HTML of
    those drawn (``drawn``: each source's, as :mod:`.mdx.diagrams` writes it).

    Args:
        seconds: the wall time allowed in all; by default :data:`DIAGRAM_SECONDS_MAX`.
        diagrams: how many diagrams may be drawn; by default :data:`DIAGRAMS_MAX`.
    """

    def __init__(self, seconds=None, diagrams=None):
        self.seconds = DIAGRAM_SECONDS_MAX if seconds is None else seconds
        self.diagrams = DIAGRAMS_MAX if diagrams is None else diagrams
        self.spent, self.count, self.drawn = 0.0, 0, {}

    def take(self):
        """Return the seconds the next diagram may take, counting it as drawn.

        Raises:
            DiagramError: the body has drawn ``diagrams`` already, or spent its time.
        """
        if self.count >= self.diagrams:
            raise DiagramError(f"the page has more than {self.diagrams} diagrams.")
        remaining = self.seconds - self.spent
        if remaining <= 0:
            raise DiagramError(f"the page's diagrams took more than {self.seconds:g} s in all.")
        self.count += 1
        return min(DOT_SECONDS_MAX, remaining)


def draw_dot(source, budget):
    """Return the sanitized SVG of a Graphviz diagram, drawn by ``dot`` within bounds.

    Args:
        source: the diagram's DOT source (a fence's content).
        budget: the body's :class:`DiagramBudget`, charged the time taken.

    Returns:
        The SVG as HTML (:func:`.svg.clean_svg`), ready to be placed in the page.

    Raises:
        DiagramError: the source is too long or names a file, the body's budget is spent,
            ``dot`` is not installed, could not read the source, took too long, ran out of
            memory or wrote too much; the message says which.
    """
    if len(source) > DIAGRAM_SOURCE_MAX:
        raise DiagramError(
            f"its source has {len(source):,} characters; at most {DIAGRAM_SOURCE_MAX:,} "
            "are allowed."
        )
    forbidden = FORBIDDEN_RE.search(source.replace("\\\n", ""))
    if forbidden:
        name = forbidden["attribute"] or "<IMG>"
        raise DiagramError(f"diagrams may not read files (“{name}” is not allowed).")
    seconds = budget.take()
    started = time.monotonic()
    try:
        output = _run_dot(source, seconds)
    finally:
        budget.spent += time.monotonic() - started
    try:
        return clean_svg(output)
    except ValueError as error:
        raise DiagramError("Graphviz wrote an SVG that could not be read.") from error


def _dot_command():
    """Return the command that runs ``dot`` under its CPU and memory limits.

    Without ``prlimit`` (util-linux, in every Debian system) ``dot`` runs without them, still
    killed at its wall time (:func:`_read`).

    Raises:
        DiagramError: ``dot`` (Debian's ``graphviz``) is not installed.
    """
    dot = shutil.which("dot")
    if dot is None:
        raise DiagramError("Graphviz is not installed on the server.")
    limits = [f"--cpu={DOT_CPU_SECONDS}", f"--as={DOT_MEMORY_BYTES}"]
    prlimit = shutil.which("prlimit")
    return [*([prlimit, *limits, "--"] if prlimit else []), dot, "-Tsvg"]


def _run_dot(source, seconds):
    """Run ``dot`` on ``source`` in Graphviz's safe mode; return the SVG it wrote, as bytes.

    The source is given on standard input from an unnamed temporary file (so no pipe can
    fill while ``dot`` is not reading it), and what ``dot`` writes is read as it comes, up to
    ``SVG_MAX_BYTES``, until it ends or ``seconds`` have passed; past either, it is killed.

    Raises:
        DiagramError: as :func:`draw_dot`.
    """
    command = _dot_command()
    with tempfile.TemporaryDirectory(prefix="wiki-dot-") as empty, tempfile.TemporaryFile() as src:
        src.write(source.encode())
        src.seek(0)
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "SERVER_NAME": "wiki",  # Graphviz's safe mode: files only from GV_FILE_PATH
            "GV_FILE_PATH": empty,
        }
        try:
            process = subprocess.Popen(
                command,
                stdin=src,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=empty,
                env=environment,
            )
        except OSError as error:
            raise DiagramError("Graphviz could not be started on the server.") from error
        try:
            output, errors = _read(process, seconds)
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()
            process.stderr.close()
    if process.returncode != 0 or not output:
        raise DiagramError(_failure(process.returncode, errors.decode(errors="replace")))
    return output


def _read(process, seconds):
    """Return what ``process`` writes to its standard output and error until it closes them.

    Raises:
        DiagramError: ``seconds`` passed first, or the output passed ``SVG_MAX_BYTES``.
    """
    deadline = time.monotonic() + seconds
    read = {process.stdout: bytearray(), process.stderr: bytearray()}
    with selectors.DefaultSelector() as selector:
        for pipe in read:
            selector.register(pipe, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DiagramError(f"the layout took longer than {seconds:g} s.")
            for key, _events in selector.select(remaining):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                read[key.fileobj] += chunk
                if len(read[process.stdout]) > SVG_MAX_BYTES:
                    raise DiagramError(
                        f"the drawing has more than {SVG_MAX_BYTES:,} bytes; draw fewer nodes."
                    )
    return bytes(read[process.stdout]), bytes(read[process.stderr][:10_000])


def _failure(returncode, errors):
    """Return the reader's message for a run of ``dot`` that drew nothing.

    Args:
        returncode: dot's exit status (negative: the signal that ended it).
        errors: what it wrote to standard error.
    """
    if returncode in (-9, -24):  # SIGKILL (or SIGXCPU) at the CPU limit
        return f"the layout took more than {DOT_CPU_SECONDS:g} s of processor time."
    lines = [line.strip() for line in errors.splitlines() if line.startswith("Error")]
    if lines:
        message = lines[0].removeprefix("Error:").replace("<stdin>:", "").strip()
        return f"Graphviz could not read it: {message[:200]}."
    if returncode < 0:  # at the memory limit dot crashes (SIGSEGV, SIGTRAP, SIGABRT)
        return "Graphviz stopped without drawing it (out of memory, or it crashed)."
    return "Graphviz stopped without drawing it."
