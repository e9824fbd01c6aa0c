"""A node's body and what is derived from it: its HTML, text, headings, links and media uses.

:class:`NodeBody` is the part of ``Node`` (:mod:`.node`) that renders the body
(:mod:`.rendering`), resolves its links and stores them: under the tree's lock as a save
asks, or later, when what the body links to changed (:meth:`NodeBody.refresh_body`).
"""

from django.db import transaction

from chapters.markdown import MarkdownError
from chapters.reading_time import count_words
from chapters.words import identifier_parts, spaceless_grams

from .links import Link, PathRedirect
from .media import MediaUse
from .placement import RESERVED_ROOT_SLUGS
from .rendering import render_unresolved, resolve

__all__ = ["NodeBody"]


class NodeBody:
    """Rendering a node's body and storing its links; a mixin of ``Node``.

    It reads and writes nodes through the node's own model (``type(self).objects``).
    """

    def _rendering(self, write, stored):
        """Set the derived fields of the body under the write's lock; return its links.

        A body the node has stored keeps its stored rendering (a move, a rename, a change of
        status renders nothing; pages whose links a move changes are rendered again by a
        task). A body the write rendered before its lock (``tree_write(bodies=...)``) only
        has its wiki links resolved (:func:`~.rendering.resolve`). Any other body is
        rendered here with its code plain, running no lexer under the lock, and the write
        has a task render it again, highlighted, once it commits.

        Args:
            write: the open :class:`~.tree.TreeWrite`.
            stored: the node's :data:`STORED_FIELDS` as stored, or ``{}`` for a new node.

        Returns:
            ``(links, plain)``: the body's links, unsaved, or None when the stored ones are
            kept; and whether the body was rendered plain.

        Raises:
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        if stored and stored["body"] == self.body:
            for name in ("body_html", "body_text", "headings", "sections", "words", "text_parts"):
                setattr(self, name, stored[name])
            return None, False
        rendered = write.rendered.get(self.body)
        plain = rendered is None
        if plain:
            rendered = render_unresolved(self.body, highlight=False)
        return self._resolve(rendered), plain and "<pre" in rendered.html

    def _resolve(self, rendered):
        """Set the derived fields from ``rendered``, its wiki links resolved; return the
        body's links, unsaved (see :meth:`render_body`)."""
        if rendered.error is not None:
            raise rendered.error
        self.body_html, links = resolve(rendered, self, self.path_links)
        self.body_text, self.headings = rendered.text, rendered.headings
        self.sections = rendered.sections
        self.words = count_words(rendered.text)
        self.text_parts = identifier_parts(rendered.text)
        self.rendered_media = rendered.media
        return links

    def render_body(self, *, highlight=True):
        """Render the body into ``body_html``, ``body_text``, ``headings``, ``sections``,
        ``words`` and ``text_parts``; return its links, unsaved.

        Its references to the media library are kept, unsaved, in ``rendered_media``
        (:class:`~chapters.models.media.MediaUse`); :meth:`store_references` stores both.

        Args:
            highlight: False to show code plain, running no lexer (under the tree's lock).

        Raises:
            chapters.markdown.MarkdownError: the body cannot be rendered.
        """
        return self._resolve(render_unresolved(self.body, highlight=highlight))

    def store_references(self, links):
        """Store ``links`` and the media references :meth:`render_body` found as this
        node's."""
        Link.replace(self, links)
        MediaUse.replace(self, self.rendered_media)

    def refresh_body(self):
        """Render the body again and store it with its links, without a new revision.

        For when what the body links to changed, not the body: it is no edit of this node.
        The body is rendered outside any lock, then stored only if the node was not saved
        since it was read (its ``updated`` is the same): a save meanwhile rendered the body
        it stored, and is left as it is. A body stored before the current limits that they
        refuse keeps its stored HTML and links, so a change elsewhere never fails because
        of it.

        Returns:
            True if the rendering was stored.
        """
        try:
            links = self.render_body()
        except MarkdownError:
            return False
        with transaction.atomic():
            stored = (
                type(self)
                .objects.filter(pk=self.pk, updated=self.updated)
                .update(
                    body_html=self.body_html,
                    body_text=self.body_text,
                    headings=self.headings,
                    sections=self.sections,
                    words=self.words,
                    text_parts=self.text_parts,
                    grams=spaceless_grams(self.title, self.body_text),
                )
            )
            if stored:
                self.store_references(links)
        return bool(stored)

    @classmethod
    def path_links(cls, paths):
        """Return unsaved links for Markdown links to ``paths`` (stored-path strings).

        A path resolves to the node stored there, or to the node an old path redirects to;
        paths under the site's own first segments (``/static/``, ``/search/``, ...) are not
        links to nodes and are left out.

        Args:
            paths: stored-path strings, as ``chapters.markdown.internal_paths`` returns them.

        Returns:
            A list of unsaved :class:`~chapters.models.links.Link` of kind ``path``.
        """
        paths = [p for p in paths if p.split("/", 1)[0] not in RESERVED_ROOT_SLUGS]
        if not paths:
            return []
        nodes = dict(cls.objects.filter(path__in=paths).values_list("path", "pk"))
        moved = dict(
            PathRedirect.objects.filter(old_path__in=paths).values_list("old_path", "node")
        )
        links = []
        for path in paths:
            target = nodes.get(path, moved.get(path))
            problem = "" if target else f"There is no page at “/{path}/”."
            links.append(
                Link(kind=Link.Kind.PATH, text=f"/{path}/", target_id=target, problem=problem)
            )
        return links
