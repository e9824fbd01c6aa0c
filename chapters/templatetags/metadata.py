"""``{% load metadata %}``: what a page tells search engines and link previews about itself.

``{% node_head node ancestors %}`` and ``{% home_head %}`` write a page's canonical link, its
meta description and its Open Graph tags (https://ogp.me/) into the ``<head>``
(``chapters/_head_meta.html``). URLs are absolute, built from the request's scheme and host,
which ``ALLOWED_HOSTS`` restricts; readers' kept pages are kept per scheme and host for that
reason (``chapters.caching.pages.page_key``).
"""

import textwrap

from django import template
from django.conf import settings
from django.urls import reverse

__all__ = ["DESCRIPTION_LENGTH", "describe", "home_head", "node_head", "register"]

register = template.Library()

# Search engines show about this many characters of a description in their results.
DESCRIPTION_LENGTH = 155


def describe(node, ancestors):
    """Return the meta description of ``node``'s page.

    Args:
        node: a ``Node``.
        ancestors: its ancestors from the top (the breadcrumb's nodes).

    Returns:
        The start of the body's text (``body_text``: the text a reader reads, on one line),
        at most ``DESCRIPTION_LENGTH`` characters, cut after a whole word and ended with "…"
        when it is longer; for a node without text, where it stands: "<title>: a section of
        <parent> in <wiki>" (or "a chapter of"), "<title>: an area of <wiki>" at the top.
    """
    if node.body_text.strip():
        return textwrap.shorten(node.body_text, DESCRIPTION_LENGTH, placeholder="…")
    if not ancestors:
        return f"{node.title}: an area of {settings.WIKI_NAME}"
    kind = node.get_kind_display().lower()
    return f"{node.title}: a {kind} of {ancestors[-1].title} in {settings.WIKI_NAME}"


@register.inclusion_tag("chapters/_head_meta.html", takes_context=True)
def node_head(context, node, ancestors):
    """Write the head tags of ``node``'s page: an article at the node's current path."""
    return _head_tags(
        context["request"],
        node.title,
        "article",
        node.get_absolute_url(),
        describe(node, ancestors),
    )


@register.inclusion_tag("chapters/_head_meta.html", takes_context=True)
def home_head(context):
    """Write the head tags of the home page: the wiki itself, a "website" in Open Graph."""
    return _head_tags(
        context["request"],
        settings.WIKI_NAME,
        "website",
        reverse("chapters:home"),
        settings.WIKI_DESCRIPTION,
    )


def _head_tags(request, title, kind, path, description):
    """Return the context of ``chapters/_head_meta.html``."""
    return {
        "title": title,
        "kind": kind,
        "url": request.build_absolute_uri(path),
        "description": description,
        "site_name": settings.WIKI_NAME,
    }
