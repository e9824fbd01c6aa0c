"""Highlighting in a kept child process (chapters.markdown.lexing): killed at the budget, never
left a zombie, ended with its parent; the web process loads no lexer."""

import os
import signal
import sys
import threading
import time

import pytest

from chapters.markdown import lexing, render_markdown
from chapters.markdown.mdx import highlight
from tests.helpers import run_with_environment

PYTHON_BLOCK = "```python\nreturn 1\n```"
PYTHON_HTML = (
    '<div class="highlight"><span class="filename">Python</span><pre><span></span><code>'
    '<span class="k">return</span> <span class="mi">1</span>\n'
    "</code></pre></div>"
)


@pytest.fixture(autouse=True)
def no_idle_children():
    """Start each test with no idle child: other tests' renders leave this process theirs
    (a spare started for each one killed among them)."""
    lexing._end_children()


def idle_pids():
    """Return the process ids of this process's idle children."""
    return [child.process.pid for child in lexing._idle]


def ended(pid):
    """Return whether process ``pid`` has ended: gone, or a zombie its new parent left."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_highlighting_loads_no_lexer_in_the_web_process():
    html = render_markdown("```lilypond\n\\relative c' { a4 }\n```")
    assert html.startswith('<div class="highlight"><span class="filename">LilyPond</span><pre>')
    assert "pygments.lexers.lilypond" not in sys.modules


def test_the_child_is_kept_between_renders():
    assert render_markdown(PYTHON_BLOCK) == PYTHON_HTML
    kept = idle_pids()
    assert render_markdown(PYTHON_BLOCK) == PYTHON_HTML
    assert idle_pids() == kept
    assert len(kept) == 1


def test_a_block_past_the_budget_is_shown_plain_and_its_child_killed_and_reaped():
    # Pygments' LilyPond lexer spends seconds in one match before its first token (issue 24).
    render_markdown(PYTHON_BLOCK)
    [busy] = idle_pids()
    html = render_markdown(f"{PYTHON_BLOCK}\n\n```lilypond\n{'a' * 20_000}\n```")
    assert html == (
        '<pre><code class="language-python">return 1\n</code></pre>\n'
        '<pre><code class="language-lilypond">' + "a" * 20_000 + "\n</code></pre>"
    )
    [spare] = idle_pids()  # started as the busy one was killed, to be ready for the next
    assert spare != busy
    assert not os.path.exists(f"/proc/{busy}")  # killed and reaped: not even a zombie
    assert render_markdown(PYTHON_BLOCK) == PYTHON_HTML
    assert idle_pids() == [spare]


def test_a_child_that_died_idle_is_replaced():
    render_markdown(PYTHON_BLOCK)
    [dead] = idle_pids()
    os.kill(dead, signal.SIGKILL)
    assert render_markdown(PYTHON_BLOCK) == PYTHON_HTML
    assert dead not in idle_pids()
    assert not os.path.exists(f"/proc/{dead}")


def test_threads_each_have_a_child_and_do_not_wait_on_a_slow_block(monkeypatch):
    # The development server and gunicorn's threads render at once: one thread's slow block
    # holds up no other. The slow block's child is stopped, and its budget raised, so that it
    # answers nothing until the test kills it: on a loaded machine the other thread's new
    # child took longer to start than the budget, which ended the slow block first (CI at
    # ae7da91). Its spare, started once its child is killed, waits until the other thread has
    # rendered, so that it cannot join that thread's child among the idle.
    rendered = threading.Event()
    start_spare = lexing._start_spare

    def spare_once_rendered():
        rendered.wait(timeout=60)
        start_spare()

    monkeypatch.setattr(lexing, "_start_spare", spare_once_rendered)
    monkeypatch.setattr(highlight, "HIGHLIGHT_SECONDS_MAX", 120.0)
    monkeypatch.setattr(highlight, "LEXER_LOAD_SECONDS_MAX", 120.0)
    render_markdown(PYTHON_BLOCK)
    [taken] = idle_pids()
    slow = threading.Thread(target=render_markdown, args=(f"```lilypond\n{'a' * 20_000}\n```",))
    slow.start()
    while lexing._idle and slow.is_alive():
        time.sleep(0.01)  # until the slow thread has taken the idle child
    os.kill(taken, signal.SIGSTOP)
    assert render_markdown(PYTHON_BLOCK) == PYTHON_HTML
    assert slow.is_alive()  # this render did not wait for the slow one to end
    [fast] = idle_pids()  # this thread's new child
    assert fast != taken
    rendered.set()
    os.kill(taken, signal.SIGKILL)
    slow.join()
    assert ended(taken)
    # The slow one's child was reaped, and a spare started in its place.
    assert len(idle_pids()) == 2 and fast in idle_pids()


def test_the_lexer_load_allowance_is_kept(monkeypatch):
    monkeypatch.setattr("chapters.markdown.mdx.highlight.LEXER_LOAD_SECONDS_MAX", 0.0)
    assert render_markdown(PYTHON_BLOCK) == (
        '<pre><code class="language-python">return 1\n</code></pre>'
    )


def test_a_forked_process_leaves_its_parent_s_children_alone():
    # A gunicorn worker is forked from the master: it starts children of its own.
    render_markdown(PYTHON_BLOCK)
    kept = idle_pids()
    pid = os.fork()
    if pid == 0:
        os._exit(0 if lexing._idle == [] and render_markdown(PYTHON_BLOCK) == PYTHON_HTML else 1)
    assert os.waitpid(pid, 0)[1] == 0
    assert render_markdown(PYTHON_BLOCK) == PYTHON_HTML
    assert idle_pids() == kept


def test_the_child_ends_when_its_parent_does():
    pid = int(
        run_with_environment(
            "import django; django.setup()\n"
            "from chapters.markdown import lexing, render_markdown\n"
            f"render_markdown({PYTHON_BLOCK!r})\n"
            "print(lexing._idle[0].process.pid)",
            DJANGO_SETTINGS_MODULE="tests.settings",
        )
    )
    deadline = time.monotonic() + 10
    while not ended(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ended(pid)
