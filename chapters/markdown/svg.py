"""The SVG Graphviz writes, written again from an allowlist: safe to place in a page, in the
page's colours, and named for screen readers.

``dot -Tsvg`` writes a small part of SVG (Graphviz's SVG renderer, ``plugin/core/
gvrender_core_svg.c``): groups with a ``title`` per graph, node, edge and cluster, and
``polygon``, ``polyline``, ``path``, ``ellipse`` and ``text`` with presentation attributes.
:func:`clean_svg` keeps exactly that: each element in :data:`ELEMENTS` with the attributes
listed for it, each value matched against what Graphviz writes (numbers, points, path data,
colours, a ``transform`` of scale, rotate and translate). Everything else goes: ``script``,
``foreignObject``, ``image``, ``style``, event handlers, ids (two diagrams on a page would
share ``node1``), and links (an ``a`` is unwrapped, its content kept: a diagram links
nowhere). The XML is parsed by the standard library after its document type is removed;
one holding an entity declaration is refused (a source cannot write one: Graphviz escapes
its text).

Colours follow the theme: Graphviz's default black becomes ``currentColor`` (the text's
colour, light in dark mode) and its white becomes ``none``; the page's background shows
through. Colours an author chose are kept, gradients are not (their shapes are unfilled), and
of the classes only Graphviz's own (``graph``, ``node``, ``edge``, ``cluster``). The root
``svg`` gets ``role="img"`` and an ``aria-label``: the graph's label if it has one, else
"Diagram".
"""

import re
import xml.etree.ElementTree as ElementTree
from html import escape

__all__ = ["ATTRIBUTES", "ELEMENTS", "clean_svg"]

SVG = "{http://www.w3.org/2000/svg}"

NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?"
_NUMBER = re.compile(NUMBER)
_LENGTH = re.compile(rf"{NUMBER}(?:pt|px)?")
_POINTS = re.compile(rf"(?:{NUMBER}[ ,]?)+")
_PATH = re.compile(rf"(?:[MCLZmclz]|{NUMBER}|[ ,])+")
_VIEWBOX = re.compile(rf"{NUMBER}(?: {NUMBER}){{3}}")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30}")
_TRANSFORM = re.compile(rf"(?:(?:scale|rotate|translate)\({NUMBER}(?: {NUMBER})?\) ?)+")
# Graphviz's own classes; an author's ("class" in DOT) are dropped, as they could name the page's.
GRAPHVIZ_CLASSES = ("graph", "node", "edge", "cluster")
_CLASS = re.compile(rf"(?:{'|'.join(GRAPHVIZ_CLASSES)})(?: .*)?", re.S)
_FONT = re.compile(r"[A-Za-z][A-Za-z0-9 ,-]{0,60}")
_DASHES = re.compile(rf"{NUMBER}(?:,{NUMBER})*")

PAINT = {"fill": _COLOUR, "stroke": _COLOUR, "stroke-width": _NUMBER}
SHAPE = {**PAINT, "stroke-dasharray": _DASHES, "fill-opacity": _NUMBER, "stroke-opacity": _NUMBER}

# Each element Graphviz writes that a diagram keeps, and its attributes' allowed values.
ATTRIBUTES = {
    "g": {"class": _CLASS, "transform": _TRANSFORM},
    "title": {},
    "polygon": {**SHAPE, "points": _POINTS},
    "polyline": {**SHAPE, "points": _POINTS},
    "path": {**SHAPE, "d": _PATH},
    "ellipse": {**SHAPE, "cx": _NUMBER, "cy": _NUMBER, "rx": _NUMBER, "ry": _NUMBER},
    "text": {
        **PAINT,
        "x": _NUMBER,
        "y": _NUMBER,
        "text-anchor": re.compile("start|middle|end"),
        "font-family": _FONT,
        "font-size": _NUMBER,
        "font-weight": re.compile(r"bold|normal|\d{3}"),
        "font-style": re.compile("italic|normal"),
        "text-decoration": re.compile("underline|overline|line-through"),
        "baseline-shift": re.compile("sub|super"),
    },
    "tspan": {"font-weight": re.compile(r"bold|normal"), "font-style": re.compile("italic")},
}
ELEMENTS = frozenset(ATTRIBUTES)
# The elements whose text is shown (the others' is the whitespace between tags).
TEXTS = frozenset({"title", "text", "tspan"})
# Unwrapped: the element goes, its content stays.
UNWRAPPED = frozenset({"a"})
# Graphviz's colours for "the text's" and "the paper's".
BLACK = frozenset({"black", "#000000", "#000"})
WHITE = frozenset({"white", "#ffffff", "#fff"})


def clean_svg(data):
    """Return the SVG ``dot`` wrote as HTML, allowlisted (see the module's docstring).

    Args:
        data: the SVG document, as bytes.

    Returns:
        One ``<svg>`` element as a string: ``role="img"``, an ``aria-label``, the
        drawing's ``width``, ``height`` and ``viewBox``, ``fill="currentColor"`` (so text
        without a colour of its own takes the page's), and the allowlisted content.

    Raises:
        ValueError: the SVG cannot be parsed, or holds an entity declaration.
    """
    text = data.decode("utf-8", errors="replace")
    if "<!ENTITY" in text:
        raise ValueError("The SVG declares an entity.")
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, count=1)
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise ValueError(f"The SVG could not be parsed: {error}") from error
    graph = root.find(f"{SVG}g")
    label = _graph_label(graph) if graph is not None else ""
    attributes = {
        "role": "img",
        "aria-label": label or "Diagram",
        "width": _kept(root.get("width"), _LENGTH),
        "height": _kept(root.get("height"), _LENGTH),
        "viewBox": _kept(root.get("viewBox"), _VIEWBOX),
        "fill": "currentColor",
    }
    inner = "".join(_element(child, top=True) for child in root)
    return f"<svg{_attributes(attributes)}>{inner}</svg>"


def _graph_label(graph):
    """Return the graph's label: the text of the ``text`` elements directly in its group."""
    words = (" ".join("".join(text.itertext()).split()) for text in graph.iterfind(f"{SVG}text"))
    return " ".join(word for word in words if word)


def _kept(value, pattern):
    """Return ``value`` if it fully matches ``pattern``, else None."""
    return value if value is not None and pattern.fullmatch(value) else None


def _attributes(attributes):
    """Return ``attributes`` (a dict; None values left out) as HTML, each value escaped."""
    return "".join(
        f' {name}="{escape(value, quote=True)}"'
        for name, value in attributes.items()
        if value is not None
    )


def _element(element, top=False):
    """Return ``element`` and its content as allowlisted HTML, its tail's text after it.

    Args:
        element: an ElementTree element of the SVG.
        top: whether it is the graph's own group (whose ``title``, the graph's name, and
            background polygon go).
    """
    tail = escape(element.tail) if element.tail and element.tail.strip() else ""
    if not isinstance(element.tag, str) or not element.tag.startswith(SVG):
        return tail  # comments, processing instructions, other namespaces
    name = element.tag.removeprefix(SVG)
    children = list(element)
    if name in UNWRAPPED:
        return "".join(_element(child) for child in children) + tail
    if name not in ELEMENTS:
        return tail
    allowed = ATTRIBUTES[name]
    attributes = {}
    for key, value in element.attrib.items():
        pattern = allowed.get(key)
        if pattern is not None and pattern.fullmatch(value):
            attributes[key] = _themed(key, value)
        elif key == "fill" and name not in TEXTS:
            attributes[key] = "none"  # a gradient's url(#...): not the root's currentColor
    if "class" in attributes:
        attributes["class"] = attributes["class"].split(" ", 1)[0]
    text = escape(element.text) if element.text and name in TEXTS else ""
    if top:
        children = _without_name_and_paper(children)
    content = "".join(_element(child) for child in children)
    return f"<{name}{_attributes(attributes)}>{text}{content}</{name}>{tail}"


def _without_name_and_paper(children):
    """Drop the graph group's ``title`` (the graph's name, "%3" when it has none) and its
    first ``polygon``, the white paper Graphviz lays under the drawing."""
    kept, paper = [], False
    for child in children:
        if child.tag == f"{SVG}title":
            continue
        if child.tag == f"{SVG}polygon" and not paper:
            paper = True
            continue
        kept.append(child)
    return kept


def _themed(key, value):
    """Return a colour attribute's value in the page's colours (see the module's docstring)."""
    if key in {"fill", "stroke"}:
        lowered = value.lower()
        if lowered in BLACK:
            return "currentColor"
        if lowered in WHITE:
            return "none"
    return value
