"""Diagrams in fenced code: ```` ```dot ```` drawn on the server, ```` ```mermaid ```` in browsers.

A ```` ```dot ```` fence is drawn by Graphviz as the body renders (:mod:`..graphviz`), once per
rendering and never per request: its sanitized SVG is stored in ``body_html`` and shown as it
is by the page, the print page and the books. One that cannot be drawn shows a short message
and its source as code; the rest of the body renders as usual.

A ```` ```mermaid ```` fence becomes its source, escaped, in ``<pre class="mermaid">``: the
chapter page loads the bundled Mermaid only when its body holds one (:data:`MERMAID_MARK`),
and ``static/js/diagrams.js`` draws it; where no script runs (a feed, a book, a browser
without JavaScript) the source is what the reader sees.

Both kinds of block are kept apart from bleach, as the code blocks are
(:class:`.highlight.CodeBlocks`): their HTML is written here, every text escaped, and the
SVG allowlisted by :mod:`..svg`.
"""

from html import escape

from markdown.extensions import Extension, fenced_code
from markdown.preprocessors import Preprocessor

from ..graphviz import DiagramError, draw_dot

__all__ = ["MERMAID_MARK", "DiagramExtension", "DiagramPreprocessor"]

# What a body's HTML holds when it has a Mermaid diagram (chapters.models.Node.has_mermaid).
MERMAID_MARK = '<pre class="mermaid">'


class DiagramPreprocessor(Preprocessor):
    """Replace each ```` ```dot ```` and ```` ```mermaid ```` fence with its diagram's HTML.

    Args:
        md: the Markdown instance, whose ``code_blocks`` keeps the HTML
            (:class:`.highlight.HighlightExtension` makes it).
        budget: the body's :class:`..graphviz.DiagramBudget`, shared by its renderings
            (one that highlighting gave up on is rendered again, and draws nothing twice);
            None to leave ```` ```dot ```` fences to fenced code, shown as code, running no
            ``dot`` (a check of a text, or a save under the tree's lock, which is followed by
            a full rendering).
    """

    FENCED_BLOCK_RE = fenced_code.FencedBlockPreprocessor.FENCED_BLOCK_RE

    def __init__(self, md, budget):
        super().__init__(md)
        self.budget = budget

    def run(self, lines):
        """Return ``lines`` with each diagram's fence replaced by a placeholder of its HTML."""
        text = "\n".join(lines)
        start = 0
        while match := self.FENCED_BLOCK_RE.search(text, start):
            html = self.diagram(match["lang"], match["code"])
            if html is None:
                start = match.end()
                continue
            placeholder = self.md.htmlStash.store(self.md.code_blocks.keep(html))
            text = f"{text[: match.start()]}\n{placeholder}\n{text[match.end() :]}"
            start = match.start() + len(placeholder) + 2
        return text.split("\n")

    def diagram(self, language, source):
        """Return the HTML of a fence in ``language`` holding ``source``, or None for a fence
        that is not a diagram's (left to fenced code)."""
        if language == "mermaid":
            return (
                f'<div class="diagram diagram-mermaid">{MERMAID_MARK}{escape(source)}</pre></div>'
            )
        if language != "dot" or self.budget is None:
            return None
        if source not in self.budget.drawn:
            self.budget.drawn[source] = self.dot(source)
        return self.budget.drawn[source]

    def dot(self, source):
        """Return the HTML of a ```` ```dot ```` fence: its SVG, or its source and why not."""
        try:
            svg = draw_dot(source, self.budget)
        except DiagramError as error:
            return (
                '<div class="diagram-failed">'
                f'<p class="diagram-message">Diagram not drawn: {escape(str(error))}</p>'
                f'<pre><code class="language-dot">{escape(source)}</code></pre></div>'
            )
        return f'<div class="diagram diagram-dot">{svg}</div>'


class DiagramExtension(Extension):
    """Draw diagrams' fences before fenced code reads them (:class:`DiagramPreprocessor`).

    Registered after :class:`.highlight.HighlightExtension`, whose ``code_blocks`` it uses;
    runs before fenced code (priority 25).

    Args:
        budget: as :class:`DiagramPreprocessor`'s.
    """

    def __init__(self, budget=None):
        super().__init__()
        self.budget = budget

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        md.preprocessors.register(DiagramPreprocessor(md, self.budget), "diagrams", 27)
