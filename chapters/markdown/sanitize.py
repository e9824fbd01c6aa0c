"""What HTML a rendered body may hold: bleach's allowlists, and the one function applying them.

The allowlists keep exactly what the wiki's Markdown extensions produce and drop everything
else, so raw HTML in a body can add nothing that Markdown could not have written. They are
passed to bleach's ``Cleaner`` on every call; bleach's own module-level defaults are never
changed.
"""

import re

from bleach.sanitizer import Cleaner

from .mdx.media import MEDIA_SIZES, MEDIA_SRCSET

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_PROTOCOLS",
    "ALLOWED_TAGS",
    "HEADING_ATTRIBUTES",
    "MATHML_ATTRIBUTES",
    "MATHML_TAGS",
    "sanitize",
]

# The MathML that latex2mathml writes (see chapters/markdown/mdx/math.py), and no more. Left
# out on purpose: href (Firefox follows it on any MathML element), style, class and
# xlink:href, which latex2mathml writes for \href, \style and \class; maction; and semantics
# and annotation-xml, whose HTML content is the usual way into mutation XSS.
MATHML_TAGS = frozenset(
    {
        "math", "menclose", "mfrac", "mi", "mn", "mo", "mover", "mpadded", "mphantom",
        "mroot", "mrow", "mspace", "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable",
        "mtd", "mtext", "mtr", "munder", "munderover",
    }
)  # fmt: skip

MATHML_ATTRIBUTES = {
    "math": ["alttext", "display"],
    "menclose": ["notation"],
    "mfrac": ["linethickness"],
    "mi": ["mathvariant"],
    "mn": ["mathvariant"],
    "mo": [
        "accent", "fence", "form", "largeop", "lspace", "maxsize", "minsize",
        "movablelimits", "rspace", "separator", "stretchy",
    ],
    "mover": ["accent"],
    "mpadded": ["depth", "height", "lspace", "mathbackground", "voffset", "width"],
    "mspace": ["depth", "height", "linebreak", "mathbackground", "width"],
    "mstyle": ["displaystyle", "mathcolor", "mathsize", "scriptlevel"],
    "mtable": ["columnlines", "columnspacing", "displaystyle", "rowlines", "rowspacing"],
    "mtd": ["columnalign"],
    "mtext": ["mathvariant"],
}  # fmt: skip

ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4",
        "h5", "h6", "hr", "img", "li", "ol", "p", "pre", "span", "strong", "sup", "table",
        "tbody", "td", "th", "thead", "tr", "ul",
    }
) | {"dd", "dl", "dt", "input"} | MATHML_TAGS  # fmt: skip

HEADING_ATTRIBUTES = ["id"]


def _only(values):
    """Return a bleach attribute filter that keeps the attributes named in ``values``.

    Args:
        values: a mapping of attribute name to the set of values allowed, or None for any.

    Returns:
        A function ``(tag, name, value) -> bool``, as bleach takes in ``attributes``.
    """

    def allow(tag, name, value):
        return name in values and (values[name] is None or value in values[name])

    return allow


def _image_attribute(tag, name, value):
    """Keep what Markdown writes on an image and what the media extension adds, no more.

    ``srcset`` and ``sizes`` only as :mod:`.mdx.media` writes them (bleach checks the
    scheme of ``src`` but not the URLs in a ``srcset``, so a raw ``<img srcset>`` could
    otherwise name any host); ``width`` and ``height`` only as numbers; ``loading`` only
    lazy.
    """
    if name in {"src", "alt", "title"}:
        return True
    if name in {"width", "height"}:
        return value.isdecimal()
    if name == "loading":
        return value == "lazy"
    if name == "sizes":
        return value == MEDIA_SIZES
    if name == "srcset":
        return re.fullmatch(MEDIA_SRCSET, value) is not None
    return False


ALLOWED_ATTRIBUTES = {
    # footnote-ref, footnote-backref, headerlink, wikilink, media-image, media-file
    "a": ["href", "title", "class"],
    "abbr": ["title"],
    "code": ["class"],  # language-* from fenced code without highlighting
    "div": ["class"],  # highlight, footnote, admonition
    "img": _image_attribute,
    # A task list's checkbox, disabled by pymdownx.tasklist; no other kind of input.
    "input": _only({"type": {"checkbox"}, "checked": None, "disabled": None}),
    "li": _only({"id": None, "class": {"task-list-item"}}),  # footnote targets, tasks
    "ol": ["start"],
    "p": _only({"class": {"admonition-title"}}),
    "span": ["class", "title"],  # Pygments token classes; broken wiki links; missing media
    "sup": ["id"],  # footnote references
    "td": ["align"],
    "th": ["align"],
    "ul": _only({"class": {"task-list"}}),
    **{f"h{level}": HEADING_ATTRIBUTES for level in range(1, 7)},
    **MATHML_ATTRIBUTES,
}

# bleach checks href and src against this list after decoding entities and dropping case and
# whitespace, so "JaVa&#x09;script:" is caught as well; relative URLs are always allowed.
ALLOWED_PROTOCOLS = frozenset({"http", "https", "mailto"})


def sanitize(html, filters=(), *, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES):
    """Return ``html`` with every tag, attribute and URL scheme not allowed removed.

    Disallowed tags are stripped and their text kept as text; comments are dropped. A new
    ``Cleaner`` is made for every call, as ``bleach.clean`` does, because bleach documents
    that a cleaner is not thread-safe (its HTML parser keeps state).

    Args:
        html: the HTML Python-Markdown made.
        filters: html5lib filters run on the sanitized tokens (bleach's ``filters``), each
            a callable taking ``source``.
        tags: the tags kept (by default a body's, above; a comment keeps fewer,
            :mod:`.comments`).
        attributes: the attributes kept, as bleach takes them (by default a body's).

    Returns:
        The sanitized HTML, as a string.
    """
    cleaner = Cleaner(
        tags=tags,
        attributes=attributes,
        protocols=ALLOWED_PROTOCOLS,
        strip=True,
        strip_comments=True,
        filters=list(filters),
    )
    return cleaner.clean(html)
