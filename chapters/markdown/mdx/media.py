"""Images and files of the media library in bodies: a Markdown extension.

``![alt](image:fusion-diagram.png)`` shows the library's image ``fusion-diagram.png``, and
``[text](file:notes.pdf)`` links to its file ``notes.pdf``: Markdown's own image and link
syntax, with the item's name after a scheme of the wiki's own, so a body stays plain
Markdown and never holds a URL that changes. An image becomes::

    <a href="/media/fusion-diagram.png?v=1" class="media-image"><img src="..." alt="..."
     width="1200" height="800" loading="lazy" srcset="... 480w, ... 960w, ... 1200w"
     sizes="..."></a>

its size given so the page does not shift as it loads (CLS), its smaller WebP copies offered
to narrow screens (``srcset``/``sizes``), loaded only when scrolled near, and opening the
full image when clicked. An image still being processed (``chapters.media.processing``)
becomes a placeholder of its size, so the page does not shift when the image comes, with its
alt text::

    <span class="media-processing" title="..."><img src="/media/fusion-diagram.png?v=1"
     alt="..." width="1200" height="800" loading="lazy"></span>

whose file the wiki serves as a plain grey picture until the image is ready
(``chapters.media.views``), when the page is rendered again. A name that finds nothing
becomes a visible placeholder, a ``<span class="media-missing">`` with the reason as its
title, like a broken wiki link.

This module only finds the references and asks a resolver for each; which item a name means
is decided by the resolver the caller passes (``chapters.models.media.MediaResolver`` when a
node is rendered).
"""

import re
import xml.etree.ElementTree as etree

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

__all__ = [
    "MEDIA_REFERENCE",
    "MEDIA_SIZES",
    "MEDIA_SRCSET",
    "MediaExtension",
    "MediaProcessor",
    "PROCESSING_TITLE",
    "no_media",
]

# A reference as written in a body's Markdown: the scheme and the name, for resolvers to
# look every name up at once before rendering.
MEDIA_REFERENCE = r"\b(image|file):([^\s()<>\"']+)"

# How wide an image is shown: the content column (static/css/wiki.css: 48rem beside the
# table of contents; below 50rem, the window less 1rem of padding on each side).
MEDIA_SIZES = "(max-width: 50rem) calc(100vw - 2rem), 48rem"

# The title of an image's placeholder while it is being processed.
PROCESSING_TITLE = "This image is being prepared: it shows here in a moment."

# What a srcset this extension writes looks like, for the sanitizer to let through only that.
_CANDIDATE = r"/media/[a-z0-9.-]+(?:/[0-9]+\.webp)?\?v=[0-9]+ [0-9]+w"
MEDIA_SRCSET = rf"{_CANDIDATE}(?:, {_CANDIDATE})*"


def no_media(kind, name):
    """Resolve no media: the default when a caller gives no resolver.

    Returns:
        ``(None, problem)``, the problem a sentence naming the reference.
    """
    return None, f"No media is looked up for “{kind}:{name}”."


class MediaProcessor(Treeprocessor):
    """Turn ``<img src="image:...">`` and ``<a href="file:...">`` into the library's files,
    or into visible placeholders, via ``resolve``.

    Either scheme may be written in either place; what counts is the place.
    ``resolve(kind, name)`` is asked with kind "image" for an ``<img>`` (which needs an
    image) and "file" for a link (to any item), and returns ``(item, problem)``: an item
    (with ``versioned_url(width=None)``, ``variants``, ``width``, ``height`` and
    ``is_processing``), or None and a sentence saying why there is none.
    """

    def __init__(self, md, resolve):
        super().__init__(md)
        self.resolve = resolve

    def run(self, root):
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                replacement = None
                if child.tag == "img":
                    replacement = self.image(child, inside_link=parent.tag == "a")
                elif child.tag == "a":
                    replacement = self.link(child)
                if replacement is not None:
                    replacement.tail = child.tail
                    parent[index] = replacement

    def _name(self, url):
        """Return the item's name in a URL of the wiki's schemes, or None for another URL."""
        match = re.fullmatch(r"(?:image|file):(.+)", url.strip())
        return match.group(1) if match else None

    def image(self, element, inside_link):
        """Return what replaces an ``<img>`` of the wiki's scheme, or None for another."""
        name = self._name(element.get("src", ""))
        if name is None:
            return None
        alt = element.get("alt", "")
        item, problem = self.resolve("image", name)
        if item is None:
            return placeholder(f"Image not available: {alt or name}", problem)
        attributes = {
            "src": item.versioned_url(),
            "alt": alt,
            "width": str(item.width),
            "height": str(item.height),
            "loading": "lazy",
        }
        if item.variants:
            candidates = [f"{item.versioned_url(w)} {w}w" for w in item.variants]
            attributes["srcset"] = ", ".join([*candidates, f"{item.versioned_url()} {item.width}w"])
            attributes["sizes"] = MEDIA_SIZES
        if element.get("title"):
            attributes["title"] = element.get("title")
        if item.is_processing:
            wrapper = etree.Element(
                "span", {"class": "media-processing", "title": PROCESSING_TITLE}
            )
            etree.SubElement(wrapper, "img", attributes)
            return wrapper
        image = etree.Element("img", attributes)
        if inside_link:
            return image
        link = etree.Element("a", {"href": item.versioned_url(), "class": "media-image"})
        link.append(image)
        return link

    def link(self, element):
        """Return what replaces an ``<a>`` of the wiki's schemes, or None for another."""
        name = self._name(element.get("href", ""))
        if name is None:
            return None
        item, problem = self.resolve("file", name)
        if item is None:
            replacement = placeholder("", problem)
        else:
            replacement = etree.Element("a", {"href": item.versioned_url(), "class": "media-file"})
            if element.get("title"):
                replacement.set("title", element.get("title"))
        replacement.text = element.text
        replacement.extend(list(element))
        return replacement


def placeholder(text, problem):
    """Return a visible placeholder for a reference that finds nothing, its reason as title."""
    span = etree.Element("span", {"class": "media-missing", "title": problem})
    span.text = text
    return span


class MediaExtension(Extension):
    """Register :class:`MediaProcessor` after the inline patterns have made links and images."""

    def __init__(self, resolve):
        super().__init__()
        self.resolve = resolve

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        # 19: right after "inline" (20), which makes the <img> and <a> elements, and before
        # the footnotes' and toc's tree processors, which only read what this leaves.
        md.treeprocessors.register(MediaProcessor(md, self.resolve), "media", 19)
