"""Ids in a body: never one the page around it uses, never one of a footnote or a heading.

A body sits in a page whose template uses ids of its own (``content`` for the skip link,
``toc`` for the contents, the search box's), and Python-Markdown gives ids to headings (the
toc extension) and to footnotes and their references (the footnotes extension). Two elements
with one id break the link to it, or the script that looks it up. So:

- a heading whose id would be one of the page's (:data:`RESERVED_IDS`) gets another
  (:func:`heading_slug`, the toc extension's ``slugify``);
- the ids Python-Markdown makes are marked while the document is a tree
  (:class:`IdMarkExtension`), before the HTML an author wrote is put back, so that after
  sanitizing (:class:`IdFilter`) the marked ones are kept, unmarked, and an author's own id
  (raw HTML such as ``<h2 id="toc">``) is kept only when no page, heading or footnote id
  has it, and only once.
"""

import secrets

from bleach.html5lib_shim import Filter
from markdown.extensions import Extension
from markdown.extensions.toc import slugify_unicode
from markdown.treeprocessors import Treeprocessor

__all__ = ["RESERVED_IDS", "IdFilter", "IdMarkExtension", "heading_slug"]

# The ids of the page templates that show a body (templates/base.html and the pages of
# templates/chapters/ that include a body). tests/test_markdown_ids.py checks that a page
# uses no other id besides its body's.
RESERVED_IDS = frozenset(
    {
        "content", "toc", "site-search-q", "site-search-results", "linked-from-heading",
        "sidebar", "toc-filter-q", "print-title", "print-toc-heading", "toc-legend",
        # js/keys.js's sheet of shortcuts, made when "?" is pressed.
        "shortcut-sheet", "shortcut-sheet-title",
    }
)  # fmt: skip

# The ids Python-Markdown's footnotes extension writes: "fn:1", "fnref:1", "fnref2:1", ...
FOOTNOTE_ID_PREFIXES = ("fn:", "fnref")

ID = (None, "id")  # an attribute's key in html5lib's token stream


def heading_slug(value, separator):
    """Return a heading's id: ``slugify_unicode``'s, unless the page uses it already.

    The toc extension then makes the id unique among the body's own ("_1", "_2", ...).

    Args:
        value: the heading's text.
        separator: the character between words, as the toc extension passes it.

    Returns:
        The slug, with ``_1`` added when it is one of :data:`RESERVED_IDS`.
    """
    slug = slugify_unicode(value, separator)
    return f"{slug}_1" if slug in RESERVED_IDS else slug


class IdMarkTreeprocessor(Treeprocessor):
    """Prefix every id in the tree with the document's mark, and list the ids found."""

    def run(self, root):
        """Mark the ids; the HTML an author wrote is not in the tree yet (it is stashed)."""
        for element in root.iter():
            if "id" in element.attrib:
                self.md.generated_ids.add(element.attrib["id"])
                element.attrib["id"] = self.md.id_mark + element.attrib["id"]


class IdMarkExtension(Extension):
    """Mark the ids Python-Markdown makes, with a mark an author cannot guess.

    After rendering, ``md.id_mark`` is the mark (new for every document) and
    ``md.generated_ids`` the ids it marked; :class:`IdFilter` takes both.
    """

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        """Register the marking after the toc extension (5) and every other treeprocessor."""
        md.id_mark = f"m{secrets.token_hex(8)}-"
        md.generated_ids = set()
        md.treeprocessors.register(IdMarkTreeprocessor(md), "id_mark", 1)


class IdFilter(Filter):
    """An html5lib filter for bleach's ``Cleaner`` (bleach's documented way to change what it
    outputs, ``bleach.html5lib_shim.Filter``): unmark the ids Python-Markdown made, and
    keep an author's id only where it clashes with none.

    Args:
        source: the token stream (bleach passes it).
        mark: the document's mark (``md.id_mark``).
        generated: the ids Python-Markdown made (``md.generated_ids``).
    """

    def __init__(self, source, mark, generated):
        super().__init__(source)
        self.mark = mark
        self.taken = RESERVED_IDS | generated

    def __iter__(self):
        """Yield the tokens, each id unmarked, kept or dropped."""
        for token in super().__iter__():
            value = (
                token.get("data", {}).get(ID) if token["type"] in ("StartTag", "EmptyTag") else None
            )
            if value is None:
                yield token
                continue
            if value.startswith(self.mark):
                token["data"][ID] = value[len(self.mark) :]
            elif value in self.taken or value.startswith(FOOTNOTE_ID_PREFIXES):
                del token["data"][ID]
            else:
                self.taken = self.taken | {value}
            yield token
