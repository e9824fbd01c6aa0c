"""The download of a book: the file when it is built, otherwise a page saying it is being
built, which refreshes until it is (see :mod:`.builds`)."""

from django.http import FileResponse, Http404
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

from ..caching import version
from ..models import Node
from .builds import FORMATS, BookKey, ready, start

__all__ = ["RETRY_SECONDS", "book"]

RETRY_SECONDS = 5


def book(request, format, path=None):
    """Send the book of the section at ``path`` (or of the whole curriculum) as ``format``.

    Answers the file as a download when it is built for the wiki's current version;
    otherwise starts building it and answers 202 with ``Retry-After`` and a page that
    refreshes itself, so the download starts once the book is ready.

    Raises:
        Http404: an unknown format, or no section at ``path``.
    """
    if format not in FORMATS:
        raise Http404(f"No book format “{format}”.")
    root = None
    if path is not None:
        root = Node.objects.filter(path=path, kind=Node.Kind.SECTION).first()
        if root is None:
            raise Http404(f"No section at “{path}”.")
    key = BookKey(root.pk if root is not None else None, format, version(request))
    name = f"{root.slug if root is not None else 'curriculum'}.{format}"
    file = ready(key)
    if file is not None:
        try:
            return FileResponse(
                open(file, "rb"), as_attachment=True, filename=name, content_type=FORMATS[format]
            )
        except FileNotFoundError:  # replaced by a build for a newer version meanwhile
            pass
    start(key)
    context = {
        "title": root.title if root is not None else "The Curriculum",
        "label": format.upper(),
        "retry": RETRY_SECONDS,
    }
    response = render(request, "books/building.html", context, status=202)
    response["Retry-After"] = str(RETRY_SECONDS)
    add_never_cache_headers(response)
    return response
