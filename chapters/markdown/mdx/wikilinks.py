"""Links between pages, ``[[Target]]`` or ``[[Target|shown text]]``: a Markdown extension.

This module only finds the links and asks a resolver for each target; which node a target
means is decided by the resolver the caller passes (``chapters.links.LinkResolver`` when a
node is saved).
"""

import xml.etree.ElementTree as etree

from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

__all__ = ["WIKI_LINK", "WikiLinkExtension", "WikiLinkProcessor", "link_element", "unresolved"]

# [[Target]] or [[Target|shown text]]; the target is a title or a path of titles
# ("ML Compilers/Graph Optimization and Kernel Fusion"), as in MediaWiki's internal links.
WIKI_LINK = r"\[\[([^\[\]|\n]+)(?:\|([^\[\]\n]+))?\]\]"


class WikiLinkProcessor(InlineProcessor):
    """Turn ``[[Target|text]]`` into a link, or into a marked broken link, via ``resolve``.

    ``resolve(target)`` returns ``(href, problem)``: an ``href`` for a link, or None and a
    sentence saying why there is none (shown as the broken link's tooltip). A broken link is
    a ``<span>``, so a reader never follows it to a 404.
    """

    def __init__(self, pattern, md, resolve):
        super().__init__(pattern, md)
        self.resolve = resolve

    def handleMatch(self, match, data):  # noqa: N802 (Python-Markdown's name)
        target = " ".join(match.group(1).split())
        text = (match.group(2) or target.rsplit("/", 1)[-1]).strip()
        element = link_element(*self.resolve(target))
        element.text = text
        return element, match.start(0), match.end(0)


def link_element(href, problem):
    """Return a wiki link's element, without its text: an ``<a>`` to ``href``, or for a
    broken link (``href`` None) a ``<span>`` whose tooltip is ``problem``."""
    if href:
        return etree.Element("a", {"href": href, "class": "wikilink"})
    return etree.Element("span", {"class": "wikilink-broken", "title": problem})


class WikiLinkExtension(Extension):
    """Register :class:`WikiLinkProcessor` before Markdown's own ``[text](url)`` links."""

    def __init__(self, resolve):
        super().__init__()
        self.resolve = resolve

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        # 175: after code spans and escapes (190, 180), before links and references (160, 170).
        md.inlinePatterns.register(WikiLinkProcessor(WIKI_LINK, md, self.resolve), "wikilink", 175)


def unresolved(target):
    """Resolve no wiki link: the default when a caller gives no resolver.

    Args:
        target: the link's target, as written between ``[[`` and ``|`` or ``]]``.

    Returns:
        ``(None, problem)``, the problem a sentence naming the target.
    """
    return None, f"No page is linked for “{target}”."
