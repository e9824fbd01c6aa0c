"""A reader's progress: the chapters they have marked done, as a small private JSON.

Readers' pages stay the same for every reader (``chapters.caching``): ``static/js/progress.js``
applies progress in the browser. A reader who is not signed in keeps it in the browser's
``localStorage``; a signed-in reader's is stored (:class:`~chapters.models.ChapterDone`) and
read from ``/progress/``, which no cache keeps (``Cache-Control: private, no-store``). When
a reader signs in, the script sends what the browser kept to ``/progress/join/`` and then
forgets it: the chapters join the account, however often it is sent.

The answer, for every request here (:func:`progress_of`)::

    {"signed_in": true,
     "done": [{"id": 12, "path": "/area/section/chapter/", "title": "Chapter"}, ...],
     "last": {"id": 12, "path": "/area/section/chapter/", "title": "Chapter",
              "done": "2026-12-04T16:30:00+00:00"}}

``done`` in the order marked; ``last`` the chapter marked last, or null.
"""

from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from .models import ChapterDone, Node

__all__ = [
    "JOIN_MAX_CHAPTERS",
    "join",
    "mark",
    "progress",
    "progress_join",
    "progress_of",
    "read_ids",
]

# The most chapters one join takes: more than a curriculum of this size has, few enough
# that a request cannot make the database read an unbounded list.
JOIN_MAX_CHAPTERS = 2000


def progress_of(user):
    """Return what ``/progress/`` answers for ``user`` (one query when signed in).

    Args:
        user: the request's user, signed in or not.

    Returns:
        A dict as the module's docstring shows; for a reader not signed in, no chapter.
    """
    if not user.is_authenticated:
        return {"signed_in": False, "done": [], "last": None}
    marks = list(ChapterDone.objects.filter(user=user).select_related("node"))
    done = [
        {"id": mark.node_id, "path": mark.node.get_absolute_url(), "title": mark.node.title}
        for mark in marks
    ]
    last = max(marks, key=lambda mark: (mark.done, mark.pk), default=None)
    if last is not None:
        last = {**done[marks.index(last)], "done": last.done.isoformat()}
    return {"signed_in": True, "done": done, "last": last}


def read_ids(text, limit=JOIN_MAX_CHAPTERS):
    """Return the chapter ids in ``text``, a comma-separated list, as a set of integers.

    What is not a positive whole number is left out, so a list a browser kept from an
    older page never makes an error.

    Args:
        text: e.g. ``"12,40,7"``.
        limit: the most ids read; those after it are left out.
    """
    ids = []
    for part in text.split(",")[:limit]:
        part = part.strip()
        if part.isascii() and part.isdigit():
            ids.append(int(part))
    return set(ids)


def join(user, ids):
    """Mark the chapters of ``ids`` done for ``user``; leave those already marked as they are.

    Ids of no chapter (a section, a deleted page, a made-up number) are left out.

    Args:
        user: a signed-in user.
        ids: chapter ids, at most :data:`JOIN_MAX_CHAPTERS`.

    Returns:
        How many chapters were newly marked.
    """
    chapters = Node.objects.filter(pk__in=ids, kind=Node.Kind.CHAPTER).values_list("pk", flat=True)
    known = set(ChapterDone.objects.filter(user=user).values_list("node_id", flat=True))
    new = [ChapterDone(user=user, node_id=pk) for pk in sorted(set(chapters) - known)]
    ChapterDone.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def mark(user, node_id, done):
    """Mark the chapter ``node_id`` done for ``user``, or not done.

    Returns:
        False when ``node_id`` is no chapter's id.
    """
    node = Node.objects.filter(pk=node_id, kind=Node.Kind.CHAPTER).first()
    if node is None:
        return False
    if done:
        ChapterDone.objects.get_or_create(user=user, node=node)
    else:
        ChapterDone.objects.filter(user=user, node=node).delete()
    return True


def _answer(request, status=200):
    """Return the reader's progress as JSON; ``never_cache`` makes it private and no-store."""
    return JsonResponse(progress_of(request.user), status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def progress(request):
    """Answer the reader's progress (GET), or mark one chapter (POST ``chapter``, ``done``).

    ``done`` is ``"true"`` or ``"false"``. A POST needs a signed-in user and the CSRF token
    (the ``X-CSRFToken`` header); it answers 403 for anyone else, 400 for a ``chapter`` that
    is not a number and 404 for one that is no chapter, each with the progress as it is.
    """
    if request.method != "POST":
        return _answer(request)
    if not request.user.is_authenticated:
        return _answer(request, status=403)
    node_id = request.POST.get("chapter", "")
    if not (node_id.isascii() and node_id.isdigit()):
        return _answer(request, status=400)
    if not mark(request.user, int(node_id), request.POST.get("done") == "true"):
        return _answer(request, status=404)
    return _answer(request)


@never_cache
@require_POST
def progress_join(request):
    """Join the chapters a browser kept (POST ``chapters``: ids, comma-separated) to the
    signed-in reader's progress; answer it. 403 for a reader not signed in."""
    if not request.user.is_authenticated:
        return _answer(request, status=403)
    join(request.user, read_ids(request.POST.get("chapters", "")))
    return _answer(request)
