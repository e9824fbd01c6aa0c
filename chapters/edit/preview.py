"""A body rendered as its page would show it, for the editors' live previews."""

from ..markdown import MarkdownError, external_images
from ..models import Node

__all__ = ["EXTERNAL_IMAGE", "preview", "preview_or_error"]

EXTERNAL_IMAGE = (
    "readers' browsers will not show this image: pages load images from this site only "
    "(its Content-Security-Policy). Upload it to the media library instead."
)


def preview(body, node_id=""):
    """Render ``body`` with the site's own pipeline, as saving it would, with its broken links.

    ``Node.render_body()``: Python-Markdown, the sanitizer, and wiki links resolved as they
    would be on save (for a page being edited, its stored links count, as they do on save).
    The site's editor and the admin's change form both show this.

    Args:
        body: Markdown.
        node_id: the primary key of the page being edited, as text; empty for a new page.

    Returns:
        ``{"html": <sanitized HTML>, "broken": [{"text", "problem"}, ...]}``, ``broken``
        listing the broken links, the media references that find nothing, and the images
        from other sites, which readers' browsers will not load.

    Raises:
        chapters.markdown.MarkdownError: the body cannot be rendered.
    """
    node = Node.objects.filter(pk=node_id).first() if str(node_id).isdecimal() else None
    node = node or Node(title="Preview")
    node.body = body
    links = node.render_body()
    broken = [{"text": link.text, "problem": link.problem} for link in links if not link.target_id]
    broken += [
        {"text": use.text, "problem": use.problem} for use in node.rendered_media if use.problem
    ]
    broken += [{"text": src, "problem": EXTERNAL_IMAGE} for src in external_images(node.body_html)]
    return {"html": node.body_html, "broken": broken}


def preview_or_error(body, node_id=""):
    """Return :func:`preview`'s result, or ``{"error": <message>}`` for a body that cannot be
    rendered."""
    try:
        return preview(body, node_id)
    except MarkdownError as error:
        return {"error": str(error)}
