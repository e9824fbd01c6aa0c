"""The review's pages, and watching: the queue of pending changes, one change with its diff,
its comments and the reviewer's decision, and the Watch button.

Short function views; what a decision does is :mod:`chapters.edit.workflow`'s.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from ..diff import choice_label, diff_text, field_changes
from ..models import Node, PendingChange, ReviewComment, Watch
from ..navigation import title_paths
from ..permissions import can_edit, can_review, can_watch
from . import notify, workflow
from .forms import CommentForm, DecisionForm

__all__ = ["change_detail", "comment", "queue", "watch"]


@login_required
def queue(request):
    """List the changes waiting for review, oldest first, each with its author, page, age,
    size (lines added and removed) and diff (reviewers; anonymous users are sent to sign in
    first, as on the editor's pages)."""
    if not can_review(request.user):
        raise PermissionDenied("Only reviewers see the review queue.")
    changes = PendingChange.objects.waiting().select_related("node", "author", "parent")
    paths = title_paths()
    rows = [{"change": change, **_diff(change, paths)} for change in changes]
    for row in rows:
        kinds = [line.kind for hunk in row["body"] for line in hunk]
        row["added"], row["removed"] = kinds.count("insert"), kinds.count("delete")
    return render(request, "chapters/edit/queue.html", {"rows": rows})


@login_required
def change_detail(request, change_id):
    """Show a pending change with its diff (editors; anonymous users are sent to sign in
    first); a reviewer decides on it (POST)."""
    if not can_edit(request.user):
        raise PermissionDenied("Only editors see proposed changes.")
    change = _pending_change(change_id)
    form = DecisionForm(initial={"version": change.version})
    if request.method == "POST":
        if not can_review(request.user):
            raise PermissionDenied("Only reviewers approve or send back changes.")
        form = DecisionForm(request.POST)
        if change.state != PendingChange.State.PENDING:
            messages.error(request, workflow.DECIDED_ALREADY)
            return redirect(change)
        if request.POST.get("version") != change.version:
            messages.error(request, workflow.EDITED_SINCE)
            return redirect(change)
        if form.is_valid():
            return _decide(request, change, form.cleaned_data)
    return _show_change(request, change, form)


def _show_change(request, change, form, comment_form=None):
    """Render the page of ``change``: its diff, its comments, the decision's form."""
    shown = _diff(change, title_paths())
    lines = [line.key for hunk in shown["body"] for line in hunk]
    if comment_form is None:
        comment_form = CommentForm(initial={"line": request.GET.get("line", "")}, lines=lines)
    threads = {}
    for comment in change.comments.select_related("author"):
        threads.setdefault(comment.line, []).append(comment)
    context = {
        "change": change,
        "form": form,
        "comment_form": comment_form,
        "commenting_on": comment_form["line"].value() or "",
        "general": threads.pop("", []),
        "threads": threads,
        **shown,
    }
    return render(request, "chapters/edit/change.html", context)


@login_required
@require_POST
def comment(request, change_id):
    """Add a comment to a pending change, on the whole of it or on a line of its diff
    (editors, who see changes); its author and those who commented before are told."""
    if not can_edit(request.user):
        raise PermissionDenied("Only editors comment on proposed changes.")
    change = _pending_change(change_id)
    lines = [line.key for hunk in _diff(change, title_paths())["body"] for line in hunk]
    form = CommentForm(request.POST, lines=lines)
    if not form.is_valid():
        decision = DecisionForm(initial={"version": change.version})
        return _show_change(request, change, decision, comment_form=form)
    posted = ReviewComment.objects.create(
        change=change,
        author=request.user,
        line=form.cleaned_data["line"],
        text=form.cleaned_data["text"].strip(),
    )
    notify.change_commented(posted, request.build_absolute_uri("/"))
    messages.success(request, "Your comment was added.")
    return redirect(f"{change.get_absolute_url()}#comment-{posted.pk}")


def _pending_change(change_id):
    """Return the pending change ``change_id`` with what its page shows of it, or raise 404."""
    related = PendingChange.objects.select_related("node", "author", "reviewer", "parent")
    return get_object_or_404(related, pk=change_id)


def _decide(request, change, decision):
    """Approve or send back ``change`` as the reviewer decided, if it is still as they saw
    it; say what happened."""
    base_url = request.build_absolute_uri("/")
    seen = decision["version"]
    try:
        if decision["decision"] == "approve":
            reason = workflow.approve(
                change, request.user, base_url, seen=seen, comment=decision["comment"]
            )
        else:
            workflow.send_back(change, request.user, decision["comment"], base_url, seen=seen)
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
        return redirect(change)
    if decision["decision"] == "approve":
        if reason is None:
            messages.success(request, f"The change to “{change.node.title}” is live.")
            return redirect(Node.objects.get(pk=change.node_id))
        messages.warning(request, f"The change could not be approved and went back: {reason}")
        return redirect(change)
    messages.success(request, f"The change went back to {change.author}.")
    return redirect("chapters:review")


def _diff(change, paths):
    """Return what ``change`` proposes: its fields and body against the revision it was made
    from (the page as it is now, if that revision is unknown).

    Args:
        change: a pending change.
        paths: every node's titles by primary key (``navigation.title_paths``).

    Returns:
        ``{"fields": [FieldChange], "body": [hunks], "overtaken": bool}``: the changes as
        ``history.compare`` gives them, and whether the page was saved since the proposal.
    """
    revisions = Node.history.filter(id=change.node_id)
    base = revisions.filter(history_id=change.base_revision).first() or change.node
    latest = revisions.values_list("history_id", flat=True).first()

    def parent(item):
        if item.parent_id is None:
            return "(top level)"
        return " / ".join(paths.get(item.parent_id, ["(a deleted section)"]))

    def requires(item):
        titles = [paths.get(pk, ["(a deleted page)"])[-1] for pk in item.requires]
        return ", ".join(titles) or "(none)"

    labels = [
        ("Title", lambda item: item.title),
        ("Status", lambda item: choice_label(Node.Status, item.status)),
        ("Section", parent),
        ("Prerequisites", requires),
    ]
    return {
        "fields": field_changes(base, change, labels),
        "body": diff_text(base.body, change.body),
        "overtaken": latest != change.base_revision,
    }


@require_POST
def watch(request, path):
    """Watch the page at ``path``, or stop watching it (``unwatch``), then go back to it."""
    if not can_watch(request.user):
        raise PermissionDenied("Sign in to watch pages.")
    node = get_object_or_404(Node, path=path)
    if "unwatch" in request.POST:
        Watch.objects.filter(user=request.user, node=node).delete()
        messages.success(request, f"You no longer watch “{node.title}”.")
    else:
        Watch.objects.get_or_create(user=request.user, node=node)
        covered = " and every page under it" if not node.is_chapter else ""
        messages.success(
            request, f"You watch “{node.title}”{covered}: changes to it are e-mailed to you."
        )
    return redirect(node)
