"""A body rendered in two steps: the slow rendering before the tree's lock, the wiki links
resolved under it.

Rendering a body (Python-Markdown, highlighting, math, the sanitizer) takes time that grows
with the body, up to seconds for a long one, but depends on the tree only through its
``[[wiki links]]``: which page each names, and so its ``href``, is the tree's as the write
finds it. So :func:`render_unresolved` renders a body with each wiki link's target as a
placeholder, before a write takes the tree's lock (``tree_write(bodies=...)``), and
:func:`resolve` resolves the targets under the lock (two queries, :class:`~.links.
LinkResolver`) and puts each link in its placeholder's place: what runs under the lock is
those queries and one substitution, never Markdown nor a lexer. The result is the HTML that
rendering with the resolver at once gives, byte for byte (tests/test_render_before_lock.py).

Each placeholder is an ``<a>`` whose ``href`` holds a number drawn anew for each rendering,
so a body cannot write one of its own.
"""

import re
import secrets
from dataclasses import dataclass, field

from chapters.markdown import (
    MarkdownError,
    html_to_text_and_sections,
    internal_paths,
    render_markdown_with_headings,
    wiki_link_tags,
)

from .links import Link, LinkResolver
from .media import MediaResolver

__all__ = ["RenderedBody", "render_unresolved", "resolve"]


@dataclass
class RenderedBody:
    """A body rendered with its wiki links as placeholders (:func:`render_unresolved`).

    Attributes:
        body: the Markdown source rendered.
        html: the sanitized HTML, each wiki link an ``<a>`` placeholder.
        text: the text a reader reads (for search); the same whatever the links resolve to.
        headings: the body's headings, as ``render_markdown_with_headings`` lists them.
        sections: the text by heading, for search's quotes (``html_to_text_and_sections``).
        targets: the wiki links' targets, in the order of their placeholders' numbers.
        paths: the wiki's own paths its Markdown links point at (``internal_paths``).
        media: its references to the media library, as unsaved ``MediaUse`` rows.
        nonce: the number in its placeholders.
        error: the :class:`~chapters.markdown.MarkdownError` that refuses the body, if any
            (then the other fields are empty).
    """

    body: str
    html: str = ""
    text: str = ""
    headings: list = field(default_factory=list)
    sections: list = field(default_factory=list)
    targets: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    media: list = field(default_factory=list)
    nonce: str = ""
    error: MarkdownError | None = None


def render_unresolved(body, *, highlight=True):
    """Render ``body`` with every wiki link as a placeholder: the slow part of a save, which
    reads nothing of the tree and so runs before the tree's lock.

    The media library's references are resolved here (one query): the library is not the
    tree, and an item added meanwhile mends the page by a task (``chapters.media``).

    Args:
        body: the Markdown source.
        highlight: False to show code plain, without running a lexer.

    Returns:
        A :class:`RenderedBody`; one whose ``error`` is set for a body that cannot be
        rendered (``chapters.markdown.MarkdownError``), which the write then refuses.
    """
    nonce = secrets.token_hex(8)
    numbers = {}

    def placeholder(target):
        number = numbers.setdefault(target, len(numbers))
        return f"/.wikilink/{nonce}/{number}/", None

    media = MediaResolver()
    media.prepare(body)
    try:
        html, headings = render_markdown_with_headings(
            body, placeholder, media, highlight=highlight
        )
    except MarkdownError as error:
        return RenderedBody(body=body, error=error)
    text, sections = html_to_text_and_sections(html)
    return RenderedBody(
        body=body,
        html=html,
        text=text,
        headings=headings,
        sections=sections,
        targets=list(numbers),
        paths=internal_paths(html),
        media=media.uses(),
        nonce=nonce,
    )


def resolve(rendered, node, path_links):
    """Resolve ``rendered``'s wiki links for ``node`` against the tree as it is now.

    Called under the tree's lock by ``Node.save()``; also right after rendering, where no
    lock is needed (``Node.render_body``).

    Args:
        rendered: a :class:`RenderedBody` without an error.
        node: the node whose body it is (a wiki link it resolved before keeps following
            the node it meant, :class:`~.links.LinkResolver`).
        path_links: ``Node.path_links(paths) -> [Link]`` (:class:`~.body.NodeBody`).

    Returns:
        ``(html, links)``: the HTML with each placeholder replaced by its link, or by the
        broken link's ``<span>`` (as ``chapters.markdown.mdx.wikilinks`` makes them), and the
        body's links as unsaved :class:`~.links.Link` rows.
    """
    resolver = LinkResolver(node)
    if rendered.targets:
        resolver.prepare(rendered.body)
    tags = [wiki_link_tags(*resolver(target)) for target in rendered.targets]
    pattern = re.compile(
        rf'<a class="wikilink" href="/\.wikilink/{rendered.nonce}/(\d+)/">(.*?)</a>', re.S
    )

    def link(match):
        opening, closing = tags[int(match.group(1))]
        return f"{opening}{match.group(2)}{closing}"

    html = pattern.sub(link, rendered.html) if rendered.targets else rendered.html
    links = [
        Link(kind=Link.Kind.WIKI, text=text, target=target, problem=problem)
        for text, (target, problem) in resolver.resolved.items()
    ]
    return html, links + path_links(rendered.paths)
