"""The lexer scan: every Pygments lexer, fed text it was not written for up to the body limit,
highlights within the body's budget (issue 24).

Slow (every lexer, five inputs of 100,000 characters), so marked ``lexer_scan``: ``bin/test``
leaves it out unless given ``--lexer-scan``, and ``.ci/run`` runs it as a step of its own
(docs/testing.md). It runs the scan of ``bench/lexers.py``, which prints the times.
"""

import time

import pytest

from bench.lexers import INPUTS, code, fence, highlight_block, languages, scan
from chapters.markdown import render_markdown
from chapters.markdown.mdx.highlight import HIGHLIGHT_SECONDS_MAX, LEXER_LOAD_SECONDS_MAX

pytestmark = pytest.mark.lexer_scan

# Beyond the budget: a new child's start after a kill (a tenth of a second on a quiet machine)
# and the scheduling of a loaded two-core machine.
SLACK_SECONDS = 2.0
BOUND_SECONDS = HIGHLIGHT_SECONDS_MAX + LEXER_LOAD_SECONDS_MAX + SLACK_SECONDS


@pytest.fixture(scope="module")
def scans():
    """Return each input's scan of every lexer, slowest first, scanned once for the module."""
    names = languages()
    return {name: scan(make, names) for name, make in INPUTS.items()}


@pytest.mark.parametrize("name", INPUTS)
def test_lexer_scan_every_lexer_ends_within_the_bound(scans, name):
    over = [
        (language, round(seconds, 2))
        for seconds, language, _ in scans[name]
        if seconds > BOUND_SECONDS
    ]
    assert over == []
    assert len(scans[name]) == len(languages())


@pytest.mark.parametrize("name", INPUTS)
def test_lexer_scan_bodies_of_the_slowest_lexers_render_within_the_bound(scans, name, monkeypatch):
    # A body renders in at most the budget and a child's start more than with highlighting
    # off (no time to highlight at all), which sanitizing 100,000 escaped quotes makes slow.
    for _, language, ended in scans[name][:2]:
        body = fence(language, code(language, INPUTS[name]))
        started = time.monotonic()
        html = render_markdown(body)
        seconds = time.monotonic() - started
        with monkeypatch.context() as patch:
            patch.setattr("chapters.markdown.mdx.highlight.HIGHLIGHT_SECONDS_MAX", 0.0)
            started = time.monotonic()
            plain = render_markdown(body)
            plain_seconds = time.monotonic() - started
        assert seconds <= plain_seconds + BOUND_SECONDS, (language, seconds, plain_seconds)
        # A lexer near the budget ends either way from one run to the next on a loaded
        # machine (the scan may have killed it where this render finished, or the reverse):
        # the block is on the page either way, highlighted or as plain code.
        assert html == plain or html.startswith('<div class="highlight">'), (language, ended)
        assert plain.startswith(f'<pre><code class="language-{language}">')


def test_lexer_scan_lilypond_block_of_the_issue_is_killed_at_the_budget():
    seconds, ended = highlight_block("lilypond", "a" * 20_000)
    assert ended == "killed"
    assert seconds <= BOUND_SECONDS
