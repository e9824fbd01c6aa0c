"""Django's own documentation as a folder of Markdown pages: a corpus nobody in the project
wrote, for the search relevance set (issue 26).

Usage, from the repository's root::

    .venv/bin/python bench/django_docs.py SDIST OUT

``SDIST`` is Django's source distribution from the package index, which holds the
documentation's reStructuredText (``docs/**/*.txt``); the relevance set was made from
``django-5.2.19.tar.gz`` (:data:`SDIST_SHA256`), fetched with::

    .venv/bin/pip download django==5.2.19 --no-binary :all: --no-deps -d /tmp/django-sdist

``OUT`` becomes a folder that ``manage.py import_markdown`` reads (``chapters.files``): an
area "Django documentation", a section for each of the documentation's parts
(:data:`PARTS`) and folders, a chapter for each page. The release notes, the contents pages
and the theme are left out: the notes repeat every feature's name release after release, and
what a learner looks for is the page that explains it.

The conversion (:func:`markdown_of`) keeps what search reads, the title, the headings, the
prose, the code and the names of the things documented, and is no general reStructuredText
reader: Sphinx's roles become their text (``:class:`~django.db.models.Model``` is
``Model`` in code), directives that document an object become its signature in code, notes
and warnings become paragraphs, code blocks become fences; tables stay as plain lines.
A page longer than a wiki body may be (100,000 characters) becomes a section whose chapters
are its top-level parts.
"""

import argparse
import hashlib
import os
import re
import sys
import tarfile
import textwrap
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

__all__ = ["PARTS", "SDIST_SHA256", "markdown_of", "pages_of", "write_folder"]

SDIST_SHA256 = "ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1"
# The documentation's parts, in the order of its own contents page, with their titles.
PARTS = {
    "intro": "Getting started",
    "topics": "Using Django",
    "howto": "How-to guides",
    "faq": "FAQ",
    "ref": "API reference",
    "misc": "Meta-documentation and miscellany",
    "internals": "Django internals",
}
AREA = "django-docs"  # the area's slug and folder
BODY_LIMIT = 95_000  # under chapters.markdown.BODY_MAX_LENGTH, with room for the front matter

HEADING_CHARACTERS = set("=-~^\"'`#*+<>:._")
CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "console", "parsed-literal"}
NOTES = {
    "note": "Note",
    "warning": "Warning",
    "seealso": "See also",
    "admonition": "",
    "versionadded": "New in Django",
    "versionchanged": "Changed in Django",
    "deprecated": "Deprecated since Django",
    "tip": "Tip",
    "important": "Important",
    "hint": "Hint",
    "attention": "Attention",
    "caution": "Caution",
    "danger": "Danger",
    "topic": "",
    "sidebar": "",
    "rubric": "",
}
OBJECTS = {
    "class", "function", "method", "attribute", "data", "exception", "decorator",
    "classmethod", "staticmethod", "module", "setting", "django-admin", "django-admin-option",
    "templatetag", "templatefilter", "fieldlookup", "envvar", "option", "describe",
    "lookup", "signal",
}  # fmt: skip
CODE_ROLES = {
    "class", "func", "meth", "attr", "data", "exc", "mod", "obj", "setting", "ttag",
    "tfilter", "lookup", "djadmin", "djadminopt", "envvar", "option", "file", "program",
    "samp", "kbd", "command",
}  # fmt: skip
DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$")
ROLE = re.compile(r":(?:[\w-]+:)?([\w-]+):`([^`]+)`")
LINK = re.compile(r"`([^`<]+?)\s*<([^`>]+)>`__?")
PLAIN_REFERENCE = re.compile(r"`([^`]+)`__?(?!\w)")
LITERAL = re.compile(r"``(.+?)``")


def role_text(match):
    """Return the text of a Sphinx role: its title, or its target's last name for ``~``."""
    role, content = match.group(1), match.group(2)
    titled = re.fullmatch(r"(.*?)\s*<([^>]*)>", content, re.DOTALL)
    if titled:
        text = titled.group(1)
    else:
        text = content.lstrip("!")
        if text.startswith("~"):
            text = text[1:].rsplit(".", 1)[-1]
    if role in ("rfc", "pep"):
        return f"{role.upper()} {text}"
    if role == "ticket":
        return f"ticket #{text}"
    return f"`{text}`" if role in CODE_ROLES and not titled else text


def inline(text):
    """Return a line of reStructuredText's inline markup as Markdown's."""
    pieces = re.split(r"(``.+?``)", text)
    out = []
    for piece in pieces:
        if piece.startswith("``") and piece.endswith("``") and len(piece) > 4:
            out.append(f"`{piece[2:-2]}`")
            continue
        piece = ROLE.sub(role_text, piece)
        piece = LINK.sub(lambda m: f"[{m.group(1)}]({m.group(2)})", piece)
        piece = PLAIN_REFERENCE.sub(lambda m: m.group(1), piece)
        piece = re.sub(r"(?<!\\)\|([\w -]+)\|", r"\1", piece)
        piece = re.sub(r"\\([a-z ])", lambda m: m.group(1).strip(), piece)  # `Model`\s
        out.append(piece)
    return "".join(out)


def indented_block(lines, start, indent):
    """Return the lines from ``start`` that are blank or indented more than ``indent``, and
    the index after them (trailing blank lines are left for the caller)."""
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = start
    while end < len(lines) and (not lines[end].strip() or leading(lines[end]) > indent):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end], end


def leading(line):
    """Return the number of spaces a line starts with."""
    return len(line) - len(line.lstrip(" "))


def dedent(lines):
    """Return the lines without the indentation they share."""
    return textwrap.dedent("\n".join(lines)).split("\n")


def is_underline(line, title):
    """Return True when ``line`` underlines ``title`` as a reStructuredText heading."""
    stripped = line.rstrip()
    return (
        len(stripped) >= 3
        and len(set(stripped)) == 1
        and stripped[0] in HEADING_CHARACTERS
        and not line.startswith(" ")
        and bool(title.strip())
        and not title.startswith(" ")
        and len(stripped) >= len(title.rstrip()) - 2
    )


def convert(lines, styles):
    """Return Markdown lines for reStructuredText lines (see :func:`markdown_of`).

    Args:
        lines: the lines, without the indentation of the block they are in.
        styles: the heading styles seen so far, in order (the first is the title's), shared
            by the whole page.
    """
    out, paragraph, index = [], [], 0

    def flush():
        """Add the paragraph read so far, its inline markup converted as one text."""
        if paragraph:
            out.extend(inline("\n".join(paragraph)).split("\n"))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if (
            line.strip()
            and not line.startswith((" ", "..", "__ "))
            and not (
                line.rstrip().endswith("::")
                or is_underline(lines[index + 1] if index + 1 < len(lines) else "", line)
                or is_underline(line, lines[index + 1] if index + 1 < len(lines) else "")
                or re.fullmatch(r"[=\s]+|\+[-=+]+\+", line.strip())
            )
        ):
            numbered = re.match(r"^#\.\s", line)
            paragraph.append("1. " + line[3:] if numbered else line.rstrip())
            index += 1
            continue
        flush()
        following = lines[index + 1] if index + 1 < len(lines) else ""
        # An overlined heading: a rule, the title, the same rule.
        if (
            index + 2 < len(lines)
            and is_underline(line, lines[index + 1])
            and lines[index + 2].rstrip() == line.rstrip()
        ):
            out += heading(lines[index + 1].strip(), ("over", line.strip()[0]), styles)
            index += 3
            continue
        if line.strip() and is_underline(following, line) and not DIRECTIVE.match(line):
            out += heading(line.strip(), ("under", following.strip()[0]), styles)
            index += 2
            continue
        directive = DIRECTIVE.match(line)
        if directive:
            body, index = indented_block(lines, index + 1, leading(line))
            out += directive_lines(directive.group(2), directive.group(3), dedent(body), styles)
            continue
        if line.startswith(".."):  # a label, a substitution or a comment, with its block
            _, index = indented_block(lines, index + 1, leading(line))
            continue
        if line.startswith(" ") and line.strip():  # a block quote or a definition's text
            body, index = indented_block(lines, index, 0)
            out += convert(dedent(body), styles)
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            text = line.rstrip()[:-2].rstrip()
            if text:
                out.append(inline(text + (":" if not line.rstrip().endswith(" ::") else "")))
            body_start = index + 1
            while body_start < len(lines) and not lines[body_start].strip():
                body_start += 1
            if body_start < len(lines) and leading(lines[body_start]) > leading(line):
                body, index = indented_block(lines, body_start, leading(line))
                out += ["", "```", *dedent(body), "```", ""]
            else:
                index += 1
            continue
        if re.fullmatch(r"[=\s]+", line) and "=" in line and " " in line.strip():
            index += 1  # a simple table's rule
            continue
        if re.fullmatch(r"\+[-=+]+\+", line.strip()):
            index += 1  # a grid table's rule
            continue
        if line.startswith("__ "):  # an anonymous link's target
            index += 1
            continue
        out.append(line.rstrip())
        index += 1
    flush()
    return out


def heading(title, style, styles):
    """Return the Markdown lines of a heading, its level from the order styles appear in."""
    if style not in styles:
        styles.append(style)
    level = min(styles.index(style) + 1, 6)
    return ["", "#" * level + " " + inline(title), ""]


def directive_lines(name, argument, body, styles):
    """Return the Markdown lines of a directive with its argument and (dedented) body."""
    options = 0
    while options < len(body) and re.match(r"^:[\w -]+:", body[options]):
        options += 1
    content = body[options:]
    if name in CODE_DIRECTIVES:
        language = argument.split()[0] if argument else ("console" if name == "console" else "")
        return ["", f"```{language}", *content, "```", ""]
    if name in NOTES:
        label = NOTES[name]
        lead = f"{label} {argument}".strip() if label else inline(argument)
        paragraph = convert(content, styles)
        return ["", f"**{lead}:**" if lead else "", *paragraph, ""]
    if name in OBJECTS:
        signature = argument.strip()
        return ["", f"`{signature}`" if signature else "", "", *convert(content, styles), ""]
    return []  # toctree, image, index, module, currentmodule, highlight, contents, ...


def markdown_of(text):
    """Return ``(title, markdown)`` of a page of the documentation.

    Args:
        text: the page's reStructuredText.

    Returns:
        The page's title (its first heading) and its body in Markdown, the title's heading
        left out (the wiki shows a page's title itself): the page's own sections are ``##``.
    """
    styles = []
    lines = convert(text.expandtabs(4).split("\n"), styles)
    title, body = "", []
    for line in lines:
        if not title and line.startswith("# "):
            title = line[2:].strip()
            continue
        body.append(line)
    markdown = re.sub(r"\n{3,}", "\n\n", "\n".join(body)).strip() + "\n"
    return title, markdown


def pages_of(sdist):
    """Read the documentation's pages in ``sdist``.

    Returns:
        ``(pages, folders)``: ``pages`` maps each page's path under ``docs/`` without
        ``.txt`` (``topics/cache``) to its ``(title, markdown)``, for the parts in
        :data:`PARTS`, the folders' ``index`` pages left out; ``folders`` maps a folder's path
        (``ref/models``) to its ``index`` page's ``(title, markdown)`` (the parts' titles are
        :data:`PARTS`').
    """
    pages, folders = {}, {}
    with tarfile.open(sdist) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            match = re.fullmatch(r"[^/]+/docs/((\w+)(?:/[\w-]+)*)/([\w-]+)\.txt", member.name)
            if not match or match.group(2) not in PARTS:
                continue
            title, markdown = markdown_of(archive.extractfile(member).read().decode("utf-8"))
            title = title.replace("`", "")
            if match.group(3) == "index":
                folders[match.group(1)] = (PARTS.get(match.group(1), title), markdown)
            else:
                pages[f"{match.group(1)}/{match.group(3)}"] = (title, markdown)
    return pages, folders


def split_page(title, markdown):
    """Return a page too long for one body as ``(intro, [(title, markdown), ...])``: the text
    before its first ``##`` heading, and a chapter for each ``##`` part, whose own headings
    move one level up."""
    parts = re.split(r"^## (.+)$", markdown, flags=re.MULTILINE)
    chapters = []
    for heading, text in zip(parts[1::2], parts[2::2], strict=True):
        body = re.sub(r"^#(##+ )", r"\1", text, flags=re.MULTILINE).strip() + "\n"
        chapters.append((heading.replace("`", "").strip(), body[:BODY_LIMIT]))
    return parts[0].strip() + "\n", chapters


def write_folder(sdist, out):
    """Write the Markdown folder of the documentation in ``sdist`` to ``out`` (see the
    module's docstring).

    Returns:
        The number of chapters written.
    """
    from django.utils.text import slugify

    from chapters.files.frontmatter import write_document
    from chapters.files.summary import SUMMARY, write_summary

    pages, folders = pages_of(sdist)
    items, files = [], {}

    def add(level, title, file, body):
        items.append((level, title, file))
        files[file] = write_document({"title": title, "status": "published"}, body)

    def add_page(level, title, folder, slug, markdown):
        """Add a page as a chapter, or as a section of chapters when it is too long; a
        folder's own page (``slug`` None) is always its section."""
        if len(markdown) <= BODY_LIMIT:
            add(level, title, f"{AREA}/{folder}/{slug or 'index'}.md", markdown)
            return
        below = f"{folder}/{slug}" if slug else folder
        intro, chapters = split_page(title, markdown)
        add(level, title, f"{AREA}/{below}/index.md", intro)
        for chapter_title, body in chapters:
            add(level + 1, chapter_title, f"{AREA}/{below}/{slugify(chapter_title)}.md", body)

    add(0, "Django documentation", f"{AREA}/index.md", "")
    written_folders = set()
    for path in sorted(pages, key=lambda p: (list(PARTS).index(p.split("/")[0]), p)):
        folders_above = path.split("/")[:-1]
        for depth in range(1, len(folders_above) + 1):
            folder = "/".join(folders_above[:depth])
            if folder not in written_folders:
                written_folders.add(folder)
                name = folders_above[depth - 1].replace("-", " ").title()
                folder_title, folder_markdown = folders.get(folder, (name, ""))
                add_page(depth, folder_title, folder, None, folder_markdown)
        title, markdown = pages[path]
        add_page(
            len(folders_above) + 1, title, "/".join(folders_above), path.split("/")[-1], markdown
        )
    out.mkdir(parents=True, exist_ok=False)
    for file, text in files.items():
        (out / file).parent.mkdir(parents=True, exist_ok=True)
        (out / file).write_text(text, encoding="utf-8")
    (out / SUMMARY).write_text(write_summary(items), encoding="utf-8")
    return sum(not file.endswith("index.md") for file in files)


def main():
    """Read the arguments and write the folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sdist", type=Path)
    parser.add_argument("out", type=Path)
    arguments = parser.parse_args()
    digest = hashlib.sha256(arguments.sdist.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        sys.exit(f"{arguments.sdist}: sha256 {digest}, not the relevance set's {SDIST_SHA256}.")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wiki.settings")
    django.setup()
    print(f"{write_folder(arguments.sdist, arguments.out)} chapters written to {arguments.out}")


if __name__ == "__main__":
    main()
