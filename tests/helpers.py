"""Helpers for reading the tree and pages back in tests."""

from bs4 import BeautifulSoup

from chapters.models import Node

SMALL_TREE = """\
Area A
  Section A1
    Chapter One
    Chapter Two
    Chapter Three
  Section A2
    Chapter Four
Area B
  Section B1
    Chapter Five
    Chapter Six
"""


def node(title):
    """Return the node titled ``title``, fetched fresh from the database."""
    return Node.objects.get(title=title)


def tree_table():
    """Return the tree as text, one row per node in tree order: indent, title, kind, path."""
    return "\n".join(f"{'  ' * n.level}{n.title} [{n.kind}] {n.path}" for n in Node.objects.all())


def soup(response):
    """Parse a response's HTML."""
    return BeautifulSoup(response.content.decode(), "html.parser")


def page_scripts(page):
    """Return the ``src`` of each ``<script>`` of a parsed page; None for an inline script.

    Every page loads the site's own scripts from /static/js/; anything else in the list is a
    script that got into the page.
    """
    return [script.get("src") for script in page.find_all("script")]


SITE_SCRIPTS = ["/static/js/theme.js", "/static/js/keys.js", "/static/js/toc.js"]


def toc_outline(page):
    """Return the "All chapters" navigation of a parsed page as outline text.

    One title per line, indented two spaces per level, in document order: the format of
    fixtures/curriculum-outline.txt. A section's entries are in a ``<details>`` of its item.
    """
    nav = page.find("nav", attrs={"aria-label": "All chapters"})
    lines = []

    def walk(ol, depth):
        for item in ol.find_all("li", recursive=False):
            lines.append("  " * depth + item.find("a", recursive=False).get_text())
            details = item.find("details", recursive=False)
            if details:
                walk(details.find("ol", recursive=False), depth + 1)

    walk(nav.find("ol"), 0)
    return "\n".join(lines) + "\n"
