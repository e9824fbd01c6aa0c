"""Formulas in a book's PDF, drawn as SVG images.

WeasyPrint draws no MathML, so each formula is drawn as SVG by ziamath (from the MathML the
site shows, in the STIX Two Math font it carries) and placed as an image on the text's
baseline, its SVG a ``data:`` URL: vector graphics, sharp at any zoom.
"""

import base64
import xml.etree.ElementTree as ET
from functools import lru_cache

import ziamath

from .content import MATHML, to_xml

__all__ = ["draw_math"]

# The size ziamath draws formulas at, in its units; the images are scaled to the text.
MATH_SIZE = 20
# STIX Two Math's letters are smaller than the body font's at one size: drawn a little larger.
MATH_SCALE = 1.1

# ziamath's SVG 1.1 output draws each glyph as a path where its SVG 2 output reuses glyphs
# with <use>, which WeasyPrint draws several times slower (bench/README.md). The setting is
# ziamath's global one; nothing else in the project draws with ziamath.
ziamath.config.svg2 = False


def draw_math(body):
    """Replace every MathML formula in ``body`` (an ElementTree element) with an image of it
    (or its text, in the rare formula ziamath cannot draw)."""
    parents = {child: parent for parent in body.iter() for child in parent}
    for element in list(body.iter(f"{{{MATHML}}}math")):
        tail, element.tail = element.tail, None
        mathml = to_xml(element)
        display = element.get("display", "inline")
        attributes = _formula_image(mathml)
        if attributes is None:
            image = ET.Element("span", {"class": f"math-text math-{display}"})
            image.text = "".join(element.itertext())
        else:
            image = ET.Element("img", {**attributes, "class": f"math math-{display}"})
            image.set("alt", "".join(element.itertext()))
        image.tail = tail
        parent = parents[element]
        parent[list(parent).index(element)] = image


@lru_cache(maxsize=1024)
def _formula_image(mathml):
    """Return the ``src`` and ``style`` of an image of a formula, or None when ziamath
    cannot draw it.

    The SVG is a ``data:`` URL; the image is sized in ems, so it scales with the text, and
    lowered by the formula's depth below its baseline (``getyofst()``, negative).
    """
    try:
        formula = ziamath.Math(mathml, size=MATH_SIZE)
        svg = formula.svg()
        width, height = formula.getsize()
        baseline = formula.getyofst()
    except Exception:  # ziamath raises many kinds of errors for what it cannot lay out
        return None
    scale = MATH_SCALE / MATH_SIZE
    style = (
        f"width: {width * scale:.3f}em; height: {height * scale:.3f}em; "
        f"vertical-align: {baseline * scale:.3f}em"
    )
    return {
        "src": "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode(),
        "style": style,
    }
