"""What a book holds: its nodes in tree order, and each body's HTML made fit for a book.

A body's HTML is the stored, sanitized ``body_html``, parsed again (tinyhtml5, the HTML5
parser WeasyPrint itself uses) and changed so that it works away from the site: its ids
carry the node's id, so they are unique in the book; links to pages in the book point into
the book; links to other pages of the site become text, as a book has no site around it;
the wiki's own images are given to the renderer, which places the copy :mod:`.images`
chooses, read from storage; images from elsewhere, and the wiki's own still processing or
failed, become their alt text (and the address of those from elsewhere), as a book fetches
nothing; short blocks of code are marked (``chapters.markdown.printing``), to be kept on one
page; the headings' permalinks go; table cells' ``align`` becomes a style, as in HTML5.
"""

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit
from xml.sax.saxutils import escape, quoteattr

import tinyhtml5

from ..markdown.printing import mark_short_code
from ..models import Node
from .images import BookImages

__all__ = ["MATHML", "SVG", "XHTML", "Book", "book_of", "body_element", "local_name", "to_xml"]

XHTML = "http://www.w3.org/1999/xhtml"
MATHML = "http://www.w3.org/1998/Math/MathML"
SVG = "http://www.w3.org/2000/svg"

# A node's texts, left out of a book's nodes: a book reads its bodies' HTML a few at a time
# (:meth:`Book.bodies`), so that the whole curriculum's are never in memory at once.
TEXT_FIELDS = ("body", "body_html", "body_text", "sections", "text_parts", "grams")


@dataclass
class Book:
    """A book: its title, the node it is of (a section or a chapter; None for the whole
    curriculum), and its nodes in tree order, each with ``depth`` (0 for the book's top
    nodes)."""

    title: str
    root: Node | None
    nodes: list

    def __post_init__(self):
        self.by_path = {node.path: node for node in self.nodes}
        self.images = BookImages(self.nodes)

    def bodies(self, nodes):
        """Return the stored ``body_html`` of ``nodes`` (some of the book's), by primary key,
        in one query."""
        return dict(
            Node.objects.filter(pk__in=[node.pk for node in nodes]).values_list("pk", "body_html")
        )

    @property
    def chapter_count(self):
        """Return the number of chapters in the book."""
        return sum(node.is_chapter for node in self.nodes)


def book_of(root):
    """Return the :class:`Book` of a section and everything under it, of a chapter alone, or
    of the whole curriculum for None."""
    nodes = Node.objects.defer(*TEXT_FIELDS)
    if root is not None:
        nodes = nodes.filter(tree_id=root.tree_id, lft__gte=root.lft, rght__lte=root.rght)
    nodes = list(nodes)
    top = root.level if root is not None else 0
    for node in nodes:
        node.depth = node.level - top
    return Book(title=root.title if root is not None else "The Curriculum", root=root, nodes=nodes)


def local_name(tag):
    """Return an element's tag without its namespace."""
    return tag.rpartition("}")[2]


def body_element(node, book, link, namespaced, image=None, html=None):
    """Parse a node's ``body_html`` into a ``body`` element made fit for the book.

    Args:
        node: the node.
        book: the :class:`Book`.
        link: ``link(target, fragment)`` returns the ``href`` of a node of the book (and an
            id in it, already given the target's prefix, or None).
        namespaced: put HTML elements in the XHTML namespace (for XHTML) or not (for HTML).
        image: ``image(copy)`` returns the ``src`` of an image of the wiki's own in the
            book, given the :class:`~.images.Copy` it takes; None makes them alt text too.
        html: the node's ``body_html`` (:meth:`Book.bodies`), or None to read the node's.

    Returns:
        The ``body`` element of an ElementTree; MathML elements are in MathML's namespace.
    """
    html = mark_short_code(node.body_html if html is None else html)
    document = tinyhtml5.parse(f"<body>{html}</body>", namespace_html_elements=namespaced)
    body = next(element for element in document if local_name(element.tag) == "body")
    parents = {child: parent for parent in body.iter() for child in parent}
    prefix = f"n{node.pk}-"
    for element in list(body.iter()):
        name = local_name(element.tag)
        if element.get("id"):
            element.set("id", prefix + element.get("id"))
        if name == "a" and "headerlink" in element.get("class", "").split():
            _remove(element, parents)
        elif name == "a" and element.get("href") is not None:
            _relink(element, node, book, link)
        elif name == "img" and not element.get("src", "").startswith("data:"):
            _place_image(element, book, image)
        if element.get("align") and name in ("td", "th"):
            element.set("style", f"text-align: {element.attrib.pop('align')}")
    return body


def to_xml(element, namespace=None):
    """Return an element and what it holds as XML, its tail included.

    Each element is written with its local name; one whose namespace differs from its
    parent's (``namespace``) declares it as the default (``<math xmlns="...">``), as XHTML
    and EPUB readers expect, which ElementTree's own writer does only with prefixes.
    """
    own, _, name = (
        element.tag[1:].partition("}") if element.tag[:1] == "{" else ("", "", element.tag)
    )
    attributes = "".join(
        f" {local_name(key)}={quoteattr(value)}" for key, value in element.attrib.items()
    )
    if own and own != namespace:
        attributes = f" xmlns={quoteattr(own)}{attributes}"
    inner = escape(element.text or "") + "".join(to_xml(child, own) for child in element)
    markup = f"<{name}{attributes}>{inner}</{name}>" if inner else f"<{name}{attributes}/>"
    return markup + escape(element.tail or "")


def _relink(element, node, book, link):
    """Point a link at the book, or make it text when it leads to the site outside it."""
    href = element.get("href")
    if href.startswith("#"):
        element.set("href", link(node, f"n{node.pk}-{unquote(href[1:])}"))
        return
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return
    target = book.by_path.get(unquote(parts.path).strip("/"))
    if target is None:
        element.tag = element.tag.replace("}a", "}span") if "}" in element.tag else "span"
        element.attrib.clear()
        return
    fragment = f"n{target.pk}-{unquote(parts.fragment)}" if parts.fragment else None
    element.set("href", link(target, fragment))


def _place_image(element, book, image):
    """Point an image of the wiki's own at the copy the book takes, or make an image text:
    its alt text, and the address of an image from elsewhere."""
    src = element.get("src", "")
    copy = book.images.find(src)
    if copy is not None and image is not None:
        for attribute in ("srcset", "sizes", "loading"):
            element.attrib.pop(attribute, None)
        element.set("src", image(copy))
        return
    alt = element.get("alt", "")
    own = urlsplit(src).path.startswith("/media/") and not urlsplit(src).netloc
    if own or not src:
        _replace_with_text(element, alt)
    else:
        _replace_with_text(element, f"{alt} ({src})" if alt else src)


def _remove(element, parents):
    """Remove an element, keeping the text after it."""
    parent = parents[element]
    _keep_tail(element, parent)
    parent.remove(element)


def _replace_with_text(element, text):
    """Make an element a ``span`` holding only ``text``."""
    namespace = element.tag.rpartition("}")[0]
    element.tag = f"{namespace}}}span" if namespace else "span"
    element.attrib.clear()
    element.text = text
    for child in list(element):
        element.remove(child)


def _keep_tail(element, parent):
    """Move an element's tail to its previous sibling or its parent, before removing it."""
    if not element.tail:
        return
    index = list(parent).index(element)
    if index:
        before = parent[index - 1]
        before.tail = (before.tail or "") + element.tail
    else:
        parent.text = (parent.text or "") + element.tail
