"""The thread's page and its forms, and the count a chapter's page shows.

Short function views. Every form is a plain POST answered by a redirect to the comment, so
the thread works without JavaScript; a refusal is a message on the thread, or 403.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_POST, require_safe

from ..models import Comment, Node
from ..views import moved_from
from . import threads
from .forms import CommentForm

__all__ = ["comment_count", "delete", "edit", "hide", "thread"]


def _chapter(path):
    """Return the chapter at ``path``, or raise Http404 (sections have no thread)."""
    return get_object_or_404(Node, path=path, kind=Node.Kind.CHAPTER)


def thread(request, path):
    """Show the chapter's thread; a signed-in reader posts a comment or a reply (POST).

    A post beyond the rate limit (``threads.over_rate``) is refused with 429 and the form
    kept as typed. A path the chapter had before answers 301 to its thread, as its page
    does (``views.moved_from``).
    """
    node = Node.objects.filter(path=path).first()
    if node is None:
        return moved_from(path, "chapters:discussion")
    if not node.is_chapter:
        raise Http404("Only chapters have a discussion.")
    form = CommentForm()
    status = 200
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.path)
        form = CommentForm(request.POST)
        parent, parent_id = None, request.POST.get("parent", "")
        if parent_id:
            if not parent_id.isdecimal():
                raise Http404("No such comment.")
            parent = get_object_or_404(Comment, pk=parent_id, node=node)
        if form.is_valid():
            if threads.over_rate(request.user):
                messages.error(request, _rate_message())
                status = 429
            else:
                comment = threads.post(
                    node,
                    request.user,
                    form.cleaned_data["body"],
                    form.cleaned_data["html"],
                    parent,
                    request.build_absolute_uri("/"),
                )
                return redirect(comment.get_absolute_url())
    return _show(request, node, form, status)


def _rate_message():
    """Return what a reader beyond the rate limit is told."""
    limit = settings.DISCUSSION_COMMENTS_PER_MINUTE
    return (
        f"You have posted {limit} comments in the last minute, as many as one may: "
        "wait a minute, then post again."
    )


def _show(request, node, form, status=200, editing=None):
    """Render the thread of ``node`` with the comment form ``form``."""
    comments = list(Comment.objects.thread(node))
    tops = {}
    for comment in comments:
        if comment.parent_id is None:
            tops[comment.pk] = {"comment": comment, "replies": []}
        else:
            tops[comment.parent_id]["replies"].append(comment)
    context = {
        "node": node,
        "threads": list(tops.values()),
        "count": sum(1 for c in comments if c.deleted is None and c.hidden_at is None),
        "form": form,
        "editing": editing,
        "can_moderate": threads.can_moderate(request.user),
    }
    return render(request, "chapters/discussion/thread.html", context, status=status)


def _own(request, comment_id):
    """Return the signed-in user's own comment ``comment_id`` (403 for another's)."""
    comment = get_object_or_404(Comment.objects.select_related("node"), pk=comment_id)
    if comment.author_id != request.user.pk or comment.deleted:
        raise PermissionDenied("Only its author may change a comment.")
    return comment


@login_required
def edit(request, comment_id):
    """Edit one's own comment: its form on the thread (GET), saved (POST); 403 once a
    moderator hid it (an edit would show it again under the moderator's decision)."""
    comment = _own(request, comment_id)
    if comment.is_hidden:
        raise PermissionDenied("A comment hidden by a moderator cannot be edited.")
    form = CommentForm(initial={"body": comment.body})
    if request.method == "POST":
        form = CommentForm(request.POST)
        if form.is_valid():
            threads.edit(comment, form.cleaned_data["body"], form.cleaned_data["html"])
            return redirect(comment.get_absolute_url())
    return _show(request, comment.node, CommentForm(), editing={"comment": comment, "form": form})


@login_required
@require_POST
def delete(request, comment_id):
    """Delete one's own comment, then show the thread."""
    comment = _own(request, comment_id)
    threads.delete(comment)
    messages.success(request, "Your comment was deleted.")
    return redirect("chapters:discussion", comment.node.path)


@login_required
@require_POST
def hide(request, comment_id):
    """Hide a comment from readers, or show it again (``hidden=0``): moderators only."""
    if not threads.can_moderate(request.user):
        raise PermissionDenied("Only moderators hide comments.")
    comment = get_object_or_404(Comment.objects.select_related("node"), pk=comment_id)
    threads.hide(comment, request.user, request.POST.get("hidden") != "0")
    return redirect(comment.get_absolute_url())


@require_safe
def comment_count(request, path):
    """Answer the number of comments readers see on the chapter, as ``{"count": N}``.

    The chapter's page is the same for every reader and is not re-rendered when someone
    comments; ``static/js/discussion.js`` reads this to show the count beside its link.
    Caches may keep it but must ask again each time (``no-cache``), so a new comment
    counts at once.
    """
    node = _chapter(path)
    response = JsonResponse({"count": Comment.objects.filter(node=node).shown().count()})
    patch_cache_control(response, public=True, no_cache=True)
    return response
