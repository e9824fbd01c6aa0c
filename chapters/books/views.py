"""The download of a book: the file when it is built, sent from the books' storage,
otherwise a page with the build's progress, which refreshes until the book is ready, or says
that the build failed (see :mod:`.builds`)."""

from django.http import FileResponse, Http404
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers

from ..caching import version
from ..models import BookBuild, Node
from .builds import FORMATS, BookKey, book_storage, start

__all__ = ["RETRY_SECONDS", "book", "progress_text"]

RETRY_SECONDS = 5


def book(request, format, path=None):
    """Send the book of the section or chapter at ``path`` (or of the whole curriculum) as
    ``format``.

    Answers the file as a download, read from the books' storage as it is sent, when its
    build for the wiki's current version is done (its row says built: a file whose row does
    not may be half a book) and the storage holds it. Otherwise starts its build, unless it
    is started (:func:`.builds.start`), and answers 202 with ``Retry-After`` and a page
    showing the build's progress that refreshes itself (a ``<meta>`` refresh: no script), so
    the download starts once the book is ready; or 500 with a page saying the build failed,
    whose link (``?again``) starts it again and redirects here.

    Raises:
        Http404: an unknown format, or no page at ``path``.
    """
    if format not in FORMATS:
        raise Http404(f"No book format “{format}”.")
    root = None
    if path is not None:
        root = Node.objects.filter(path=path).first()
        if root is None:
            raise Http404(f"No page at “{path}”.")
    key = BookKey(root.pk if root is not None else None, format, version(request))
    name = f"{root.slug if root is not None else 'curriculum'}.{format}"
    build = key.builds.first()
    if build is not None and build.status == BookBuild.Status.BUILT:
        try:
            handle = book_storage().open(key.name, "rb")
        except FileNotFoundError:  # deleted by a build for a newer version meanwhile
            pass
        else:
            return FileResponse(
                handle, as_attachment=True, filename=name, content_type=FORMATS[format]
            )
    again = "again" in request.GET
    build = start(key, again=again, build=build)
    if again:
        return redirect(request.path)
    failed = build.status == BookBuild.Status.FAILED
    context = {
        "title": root.title if root is not None else "The Curriculum",
        "label": format.upper(),
        "retry": RETRY_SECONDS,
        "build": build,
        "failed": failed,
        "progress": progress_text(build),
    }
    response = render(request, "books/building.html", context, status=500 if failed else 202)
    if not failed:
        response["Retry-After"] = str(RETRY_SECONDS)
    add_never_cache_headers(response)
    return response


def progress_text(build):
    """Return the words for a ``BookBuild``'s progress, as the waiting page shows them."""
    if not build.total:
        return "Waiting for the build to start"
    if build.done < build.total:
        return f"{build.done} of {build.total} chapters done"
    return f"All {build.total} chapters done; putting the book together"
