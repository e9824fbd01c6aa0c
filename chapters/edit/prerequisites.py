"""The editors' field for a chapter's prerequisites: one page path a line, in reading order.

The site's editor and the admin's change form both use :class:`PrerequisitesField`. A
chapter stores its prerequisites as ids (``Node.requires``,
``chapters.models.prerequisites``); the field shows them as the pages' paths, as their
addresses read (``ml-systems/ml-compilers/graph-optimization-and-kernel-fusion``), and reads
them back, a leading or trailing slash or the site's own address allowed, so that a path
copied from the browser works.
"""

from urllib.parse import urlsplit

from django import forms

from ..models import Node

__all__ = ["PrerequisitesField", "requires_text"]


def requires_text(requires, missing=None):
    """Return the paths of the pages with ids ``requires``, one a line, in order (one query).

    An id that names no page any more (a deleted prerequisite) is left out: saving the form
    drops it, as the broken-links report suggests. With ``missing`` (a format string, as
    ``"#{}"``), it is written so instead, for the form to refuse ("no page is at “#12”": the
    API's edit, which names prerequisites by id).
    """
    paths = dict(Node.objects.filter(pk__in=requires).values_list("pk", "path"))
    if missing is not None:
        return "\n".join(paths.get(pk, missing.format(pk)) for pk in requires)
    return "\n".join(paths[pk] for pk in requires if pk in paths)


class PrerequisitesField(forms.CharField):
    """The chapters a chapter builds on, as page paths, one a line; cleaned to their ids.

    Raises on clean:
        ValidationError: one message per line naming no page, "Line 2: no page is at
            “x”.", in the order of the lines.
    """

    def __init__(self, **kwargs):
        super().__init__(
            required=False,
            strip=False,
            label="Prerequisites",
            widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
            help_text="The chapters to read before this one, in order: the path of each "
            "page (its address without the site's), one a line.",
            **kwargs,
        )

    def prepare_value(self, value):
        """Return the text shown: the paths of a list of ids, else the text as posted."""
        if isinstance(value, list):
            return requires_text(value)
        return super().prepare_value(value)

    def to_python(self, value):
        """Return the ids of the pages the lines name, in order, each once."""
        if isinstance(value, list):
            return value
        lines = [(number, path_of(line)) for number, line in enumerate(lines_of(value), 1)]
        wanted = [(number, path) for number, path in lines if path]
        found = dict(
            Node.objects.filter(path__in=[path for _, path in wanted]).values_list("path", "pk")
        )
        errors = [
            f"Line {number}: no page is at “{path}”."
            for number, path in wanted
            if path not in found
        ]
        if errors:
            raise forms.ValidationError(errors)
        return list(dict.fromkeys(found[path] for _, path in wanted))


def lines_of(value):
    """Return the lines of a posted text (browsers send ``\\r\\n``)."""
    return (value or "").splitlines()


def path_of(line):
    """Return the page path a line names: without the site's address and the slashes."""
    line = line.strip()
    if "://" in line:
        line = urlsplit(line).path
    return line.strip("/")
