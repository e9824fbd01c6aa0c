"""A body rendered as its page would show it, for the editors' live previews."""

from ..markdown import MarkdownError
from ..models import Node

__all__ = ["preview", "preview_or_error"]


def preview(body, node_id=""):
    """Render ``body`` with the site's own pipeline, as saving it would, with its broken links.

    ``Node.render_body()``: Python-Markdown, the sanitizer, and wiki links resolved as they
    would be on save (for a page being edited, its stored links count, as they do on save).
    The site's editor and the admin's change form both show this.

    Args:
        body: Markdown.
        node_id: the primary key of the page being edited, as text; empty for a new page.

    Returns:
        ``{"html": <sanitized HTML>, "broken": [{"text", "problem"}, ...]}``.

    Raises:
        chapters.markdown.MarkdownError: the body cannot be rendered.
    """
    node = Node.objects.filter(pk=node_id).first() if str(node_id).isdecimal() else None
    node = node or Node(title="Preview")
    node.body = body
    links = node.render_body()
    broken = [{"text": link.text, "problem": link.problem} for link in links if not link.target_id]
    return {"html": node.body_html, "broken": broken}


def preview_or_error(body, node_id=""):
    """Return :func:`preview`'s result, or ``{"error": <message>}`` for a body that cannot be
    rendered."""
    try:
        return preview(body, node_id)
    except MarkdownError as error:
        return {"error": str(error)}
