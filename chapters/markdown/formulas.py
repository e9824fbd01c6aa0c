"""A formula as a line of text a reader can read: the MathML of a rendered body, linearized.

Search quotes the text readers see (docs/search.md, "Snippets"): its snippets must show
``e^(z_i)/(∑_j e^(z_j))``, not the TeX source ``\\frac{e^{z_i}}{\\sum_j e^{z_j}}`` nor the
MathML's bare text ``ezi∑jezj``. The notation is the one people type formulas in plain text
with (as in Unicode's UnicodeMath, Unicode Technical Note 28, much simplified): a fraction is
``a/b``, a script ``x^n`` or ``t_launch`` (``x²`` where Unicode has the characters), a root
``√(x + 1)``, an accent a combining mark (``x̂``), a matrix ``(a, b; c, d)``; a part of more
than one symbol is put in parentheses.

:func:`formula_text` reads the tree :class:`FormulaTree` builds from the MathML that
latex2mathml writes and the sanitizer keeps (:data:`.sanitize.MATHML_TAGS`).
"""

import re

__all__ = ["FormulaTree", "formula_text"]

# Deeper formulas (latex2mathml converts some hundreds of levels) are read flat, as their
# symbols in a row: reading one level takes a few calls, and Python's stack is bounded.
MAX_DEPTH = 64

SUPERSCRIPTS = str.maketrans("0123456789+−=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾")
SUBSCRIPTS = str.maketrans("0123456789+−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
SCRIPTABLE = frozenset("0123456789+−=()")

# Operators written without spaces around them: fences and punctuation; a comma or a
# semicolon takes a space after it. The invisible ones (function application, invisible
# times, separator, plus) are left out.
TIGHT = frozenset("()[]{}|‖⟨⟩⌈⌉⌊⌋./!'′″")
SEPARATORS = frozenset(",;")
INVISIBLE = frozenset("\u2061\u2062\u2063\u2064")

# An accent over a symbol, as a combining mark after each of its characters.
ACCENTS = {
    "^": "\u0302", "ˆ": "\u0302", "~": "\u0303", "˜": "\u0303", "¯": "\u0304",
    "―": "\u0305", "‾": "\u0305", "_": "\u0332", "˙": "\u0307", "¨": "\u0308",
    "ˇ": "\u030c", "→": "\u20d7", "⃗": "\u20d7",
}  # fmt: skip

# A part shown without (more) parentheses: one symbol with its accents, a number or a word,
# or a part in parentheses already, each with scripts of the same ("x²", "e^(z_i)").
BASE = r"(?:(?:[^\W_]|\.)+|[^\s_^][\u0300-\u036f\u20d0-\u20ff]*|\([^()]*\))"
ATOM = re.compile(rf"{BASE}(?:[_^]{BASE})*")
SIMPLE = re.compile(BASE)  # a script itself has no scripts outside parentheses: "e^(z_i)"
SCRIPT_MARKS = re.compile("[_^]")

TOKENS = frozenset({"mi", "mn", "mo", "mtext", "ms"})
SCRIPTS = {"msup": 2, "msub": 2, "msubsup": 3, "munder": 2, "mover": 2, "munderover": 3}


class FormulaTree:
    """A formula's MathML as a tree, built from the events of an HTML parser.

    Feed it the start tags, end tags and text inside one ``<math>`` element; :attr:`root` is
    then the tree: each element a ``(tag, attributes, children)`` tuple, each text a string.
    """

    def __init__(self, attributes):
        self.root = ("math", attributes, [])
        self.depth = 1  # the most elements open at once
        self._open = [self.root]

    def start(self, tag, attributes):
        """Open an element inside the element open last."""
        element = (tag, attributes, [])
        self._open[-1][2].append(element)
        self._open.append(element)
        self.depth = max(self.depth, len(self._open))

    def end(self, tag):
        """Close the element open last, when it is a ``tag`` (a stray end tag is ignored)."""
        if len(self._open) > 1 and self._open[-1][0] == tag:
            self._open.pop()

    def text(self, data):
        """Add text to the element open last."""
        self._open[-1][2].append(data)


def formula_text(tree):
    """Return a formula as a line of text (see the module's docstring).

    Args:
        tree: the :class:`FormulaTree` of its ``math`` element.

    Returns:
        The text; for a formula nested deeper than :data:`MAX_DEPTH`, its symbols in a row.
    """
    if tree.depth > MAX_DEPTH:
        return " ".join(_flat(tree.root).split())
    return readable(tree.root)


def _flat(root):
    """Return the text of every token under ``root``, in order, without recursion."""
    texts, stack = [], [root]
    while stack:
        element = stack.pop()
        if isinstance(element, str):
            texts.append(element)
        else:
            stack.extend(reversed(element[2]))
    return "".join(texts)


def readable(element):
    """Return a MathML element as a line of text (see the module's docstring).

    Args:
        element: a ``(tag, attributes, children)`` tuple, as :class:`FormulaTree` builds it.

    Returns:
        The text, with runs of whitespace as one space, stripped.
    """
    return " ".join(_text(element).split())


def _text(element):
    """Return the text of ``element``, unnormalized."""
    if isinstance(element, str):
        return element
    tag, attributes, children = element
    if tag in TOKENS:
        text = "".join(child for child in children if isinstance(child, str))
        return _operator(text) if tag == "mo" else text
    parts = [child for child in children if not isinstance(child, str) or child.strip()]
    if tag in SCRIPTS and len(parts) == SCRIPTS[tag]:
        return _scripted(tag, attributes, parts)
    if tag == "mfrac" and len(parts) == 2:
        return f"{_part(parts[0])}/{_part(parts[1])}"
    if tag == "msqrt":
        return f"√{_part(('mrow', {}, parts))}"
    if tag == "mroot" and len(parts) == 2:
        return f"{_script(parts[1], '', SUPERSCRIPTS)}√{_part(parts[0])}"
    if tag == "mtable":
        return "; ".join(", ".join(_text(cell).strip() for cell in _children(row)) for row in parts)
    if tag == "mphantom":
        return ""
    if tag == "mspace":
        return " "
    return _row(parts)


def _children(element):
    """Return the elements among ``element``'s children."""
    return [child for child in element[2] if not isinstance(child, str)]


def _operator(text):
    """Return an operator with the spaces it is written with."""
    if not text or text in INVISIBLE:
        return ""
    if text in TIGHT:
        return text
    if text in SEPARATORS:
        return f"{text} "
    return f" {text} "


def _row(parts):
    """Return the parts of a row one after another.

    An operator that opens a row is a sign ("−x"), without its spaces. A space parts two
    letters or digits where they would read as one: after or before a word set as one
    identifier ("sin x", "n log n"), around a script written with ``^`` or ``_`` ("k t_launch
    x", "lim_(n → ∞) a_n") and after a large operator ("∫₀¹ f").
    """
    texts = []
    for index, part in enumerate(parts):
        text = _text(part)
        if index == 0 and _tag(part) == "mo":
            text = text.strip()
        if texts and text[:1].isalnum():
            before, previous = parts[index - 1], texts[-1]
            if (
                (_tag(before) == "mi" and len(previous) > 1)
                or (_tag(part) == "mi" and len(text) > 1 and previous[-1:].isalnum())
                or SCRIPT_MARKS.search(previous)
                or (SCRIPT_MARKS.search(text) and previous[-1:].isalnum())
                or (_tag(before) in SCRIPTS and _tag(_children(before)[0]) == "mo")
            ):
                text = f" {text}"
        texts.append(text)
    return "".join(texts)


def _tag(element):
    """Return an element's tag ("" for a text)."""
    return "" if isinstance(element, str) else element[0]


def _scripted(tag, attributes, parts):
    """Return a base with its scripts: ``x²``, ``t_launch``, ``∑_(i = 1)^n``, ``x̂``."""
    base = _part(parts[0])
    if tag == "mover" and _accent(parts[1]) is not None:
        mark = _accent(parts[1])
        return "".join(f"{character}{mark}" for character in base)
    under = parts[1] if tag in ("msub", "msubsup", "munder", "munderover") else None
    over = parts[-1] if tag in ("msup", "msubsup", "mover", "munderover") else None
    text = base
    if under is not None:
        text += _script(under, "_", SUBSCRIPTS)
    if over is not None:
        text += _script(over, "^", SUPERSCRIPTS)
    return text


def _accent(element):
    """Return the combining mark of an accent (``\\hat``, ``\\vec``, ...), or None."""
    if isinstance(element, str) or element[0] != "mo":
        return None
    return ACCENTS.get(_text(element).strip())


def _script(element, mark, characters):
    """Return a script as Unicode's script characters when it has them all, else as
    ``mark`` and the part (``^n``, ``_(i = 1)``, ``^(z_i)``)."""
    text = readable(element)
    if text and set(text.replace(" ", "")) <= SCRIPTABLE:
        return text.replace(" ", "").translate(characters)
    return f"{mark}{text if SIMPLE.fullmatch(text) else f'({text})'}"


def _part(element):
    """Return an element's text, in parentheses unless it is one symbol, number or word."""
    text = readable(element)
    return text if ATOM.fullmatch(text) else f"({text})"
