"""Template filters of the review's pages."""

from django import template

register = template.Library()


@register.filter
def thread(threads, line):
    """Return the review comments on ``line`` of a diff (``chapters.diff.Line``).

    Args:
        threads: ``{line key: [ReviewComment]}``, as the change's page gathers them.
        line: a line of the diff.

    Returns:
        The comments on that line, oldest first; an empty tuple when there are none.
    """
    return threads.get(line.key, ())
