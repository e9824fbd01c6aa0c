"""Graphviz's diagrams in a book's PDF, placed as SVG images.

A body holds each ```` ```dot ```` diagram as inline SVG (``chapters.markdown.mdx.diagrams``);
the PDF's HTML is written by ElementTree's HTML writer, which gives SVG's elements prefixed
names that WeasyPrint's HTML parser does not read as SVG. So, as formulas are
(:mod:`.formulas`), each diagram becomes an image whose ``src`` is its SVG as a ``data:`` URL,
and whose ``alt`` is its name; WeasyPrint draws it as vector graphics. Its ``currentColor`` is
black on paper. The EPUB keeps the SVG inline, as XHTML allows.
"""

import base64
import xml.etree.ElementTree as ET

from .content import SVG, to_xml

__all__ = ["draw_diagrams"]


def draw_diagrams(body):
    """Replace every SVG diagram in ``body`` (an ElementTree element) with an image of it."""
    parents = {child: parent for parent in body.iter() for child in parent}
    for element in list(body.iter(f"{{{SVG}}}svg")):
        tail, element.tail = element.tail, None
        data = base64.b64encode(to_xml(element).encode()).decode()
        image = ET.Element(
            "img",
            {"src": f"data:image/svg+xml;base64,{data}", "alt": element.get("aria-label", "")},
        )
        image.tail = tail
        parent = parents[element]
        parent[list(parent).index(element)] = image
