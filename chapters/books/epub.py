"""A book as an EPUB 3, packaged by EbookLib: one XHTML document per node, a navigation
document nested as the tree, formulas as MathML (which EPUB 3 reading systems show).

EbookLib's own ``EpubHtml`` documents are re-serialized by it with ``pretty_print``, which
adds white space inside ``<pre>`` and so changes code; each node's document is written here
(:func:`~.content.to_xml`) and added as a plain item, which EbookLib writes as it is. The
manifest marks documents holding MathML with the ``mathml`` property, as EPUB 3 requires.
"""

import io
import uuid
from xml.sax.saxutils import escape

from django.contrib.staticfiles import finders
from django.utils import timezone
from ebooklib import epub

from .content import MATHML, XHTML, body_element, to_xml

__all__ = ["render_epub"]

STYLESHEETS = {"style/pygments.css": "css/pygments.css", "style/book.css": "css/book-epub.css"}

PAGE = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="{xhtml}" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en">
<head>
<meta charset="utf-8"/>
<title>{title}</title>
{links}
</head>
{body}
</html>
"""


def render_epub(book):
    """Return the EPUB 3 of a :class:`~.content.Book`, as bytes."""
    package = epub.EpubBook()
    scope = book.root.path if book.root is not None else ""
    built = timezone.now()
    package.set_identifier(f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{scope}@{built}')}")
    package.set_title(book.title)
    package.set_language("en")
    package.add_author("Curriculum Wiki")
    links = []
    for name, static in STYLESHEETS.items():
        with open(finders.find(static), "rb") as stylesheet:
            package.add_item(
                epub.EpubItem(
                    uid=name.replace("/", "-").replace(".", "-"),
                    file_name=name,
                    media_type="text/css",
                    content=stylesheet.read(),
                )
            )
        links.append(f'<link rel="stylesheet" type="text/css" href="{name}"/>')
    documents = {}
    for node in book.nodes:
        document = epub.EpubItem(
            uid=f"n{node.pk}",
            file_name=_file(node),
            media_type="application/xhtml+xml",
            content=_page(node, book, "\n".join(links)).encode("utf-8"),
        )
        document.properties = ["mathml"] if f'xmlns="{MATHML}"'.encode() in document.content else []
        package.add_item(document)
        documents[node.pk] = document
    package.toc = _contents(book.nodes)
    package.add_item(epub.EpubNcx())
    package.add_item(epub.EpubNav())
    package.spine = ["nav", *documents.values()]
    buffer = io.BytesIO()
    epub.write_epub(buffer, package)
    return buffer.getvalue()


def _file(node):
    return f"n{node.pk}.xhtml"


def _link(target, fragment):
    """Return the ``href`` of a node of the book, or of an id in it: its document."""
    return f"{_file(target)}#{fragment}" if fragment else _file(target)


def _page(node, book, links):
    """Return the XHTML document of one node: its title as a heading, then its body."""
    body = body_element(node, book, _link, namespaced=True)
    section = body.makeelement(f"{{{XHTML}}}section", {"id": f"n{node.pk}"})
    heading = section.makeelement(f"{{{XHTML}}}h1", {"class": "node-title"})
    heading.text = node.title
    section.append(heading)
    section.text = None
    content = section.makeelement(f"{{{XHTML}}}div", {"class": "body"})
    content.text, body.text = body.text, None
    content.extend(list(body))
    for child in list(body):
        body.remove(child)
    section.append(content)
    body.append(section)
    return PAGE.format(xhtml=XHTML, title=escape(node.title), links=links, body=to_xml(body, XHTML))


def _contents(nodes):
    """Return EbookLib's table of contents for nodes in tree order, nested as the tree: a
    node with nodes under it is a section of the contents, any other a link."""
    top, stack = [], []
    for node in nodes:
        while stack and stack[-1][0] >= node.depth:
            stack.pop()
        entries = []
        (stack[-1][1] if stack else top).append((node, entries))
        stack.append((node.depth, entries))

    def convert(items):
        return [
            (epub.Section(node.title, href=_file(node)), convert(entries))
            if entries
            else epub.Link(_file(node), node.title, f"toc-{node.pk}")
            for node, entries in items
        ]

    return convert(top)
