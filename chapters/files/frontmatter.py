"""A Markdown file's YAML front matter and body: written with PyYAML's ``safe_dump``, read
back with ``safe_load``.

A file starts with a line ``---``, then YAML (a mapping of names to values), then a line
``---``, a blank line and the body. ``safe_load`` builds only plain values (strings,
numbers, dates), never Python objects. Every problem names the line of the file it is on.
"""

import sys
from dataclasses import dataclass, field

import yaml

__all__ = ["Document", "normalize_body", "read_document", "write_document"]

FENCE = "---"


@dataclass
class Document:
    """A file's front matter and body, as read.

    Attributes:
        fields: the front matter's names and values (empty without front matter).
        lines: the line of each name in the file, counting from 1.
        body: the body, with LF line ends and no trailing newline.
        body_line: the line the body starts on.
        problems: what is wrong, each "line N: ..." (the caller adds the file's name).
    """

    fields: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)
    body: str = ""
    body_line: int = 1
    problems: list = field(default_factory=list)


def normalize_body(body):
    """Return a body as a file holds it: LF line ends, no trailing newlines.

    Bodies typed in a browser's text area have CRLF line ends, and a file always ends with
    one newline, so two bodies that differ only there render alike and count as the same.
    """
    return body.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")


def write_document(fields, body):
    """Return the text of a file: ``fields`` as YAML front matter, then the body.

    Args:
        fields: a dict of names to strings, numbers and datetimes, written in its order.
        body: Markdown; written after a blank line, with LF line ends and one final newline.

    Returns:
        The text; the same for the same arguments.
    """
    head = yaml.safe_dump(
        fields, allow_unicode=True, sort_keys=False, default_flow_style=False, width=sys.maxsize
    )
    text = f"{FENCE}\n{head}{FENCE}\n"
    body = normalize_body(body)
    return f"{text}\n{body}\n" if body else text


def read_document(data):
    """Read a file's bytes into a :class:`Document`.

    A file that does not start with a ``---`` line has no front matter: all of it is the
    body. YAML's errors are reported at their line in the file; a name given twice, which
    ``safe_load`` would silently take the last of, is a problem too.

    Args:
        data: the file's bytes, UTF-8 (a byte order mark is dropped).

    Returns:
        A :class:`Document`; its ``problems`` are empty when all is well.
    """
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        return Document(
            problems=[f"line 1: is not UTF-8 text ({error.reason} at byte {error.start})."]
        )
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[0].rstrip() != FENCE:
        return Document(body=normalize_body("\n".join(lines)))
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (FENCE, "...")), None)
    if end is None:
        return Document(problems=["line 1: the front matter has no closing “---” line."])
    document = Document(body_line=end + 2)
    body = lines[end + 1 :]
    if body and not body[0].strip():
        body, document.body_line = body[1:], end + 3
    document.body = normalize_body("\n".join(body))
    source = "\n".join(lines[1:end])
    try:
        values = yaml.safe_load(source)
        mapping = yaml.compose(source, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error)
        document.problems.append(f"line {line}: the front matter is not valid YAML: {problem}.")
        return document
    if values is None:
        return document
    if not isinstance(values, dict):
        document.problems.append("line 2: the front matter is not a list of “name: value” lines.")
        return document
    for key, _value in mapping.value:
        name, line = str(key.value), key.start_mark.line + 2
        if name in document.lines:
            document.problems.append(
                f"line {line}: “{name}” is given twice (first on line {document.lines[name]})."
            )
        document.lines.setdefault(name, line)
    document.fields = {str(name): value for name, value in values.items()}
    return document
