"""A signed-in user's notifications: the list, opening one, marking all read.

What the wiki tells a user (``chapters.edit.notify``) is listed here as well as e-mailed;
every page's header counts the unread ones (``chapters.context_processors.Account``).
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

__all__ = ["NOTIFICATIONS_PER_PAGE", "mark_all_read", "notification", "notifications"]

NOTIFICATIONS_PER_PAGE = 50


@login_required
def notifications(request):
    """List the user's notifications, newest first, the unread ones marked, a page of
    :data:`NOTIFICATIONS_PER_PAGE` at a time (``?page=N``)."""
    found = request.user.notifications.order_by("-created", "-pk")
    page = Paginator(found, NOTIFICATIONS_PER_PAGE).get_page(request.GET.get("page"))
    unread = request.user.notifications.unread().exists()
    return render(request, "chapters/edit/notifications.html", {"page": page, "any_unread": unread})


@login_required
def notification(request, notification_id):
    """Mark one of the user's notifications read and go to the page it is about (404 for
    another user's), as a mail client marks a message read when it is opened."""
    note = get_object_or_404(request.user.notifications, pk=notification_id)
    if note.read is None:
        request.user.notifications.filter(pk=note.pk).update(read=timezone.now())
    safe = url_has_allowed_host_and_scheme(note.url, allowed_hosts={request.get_host()})
    return redirect(note.url if safe else "chapters:notifications")


@login_required
@require_POST
def mark_all_read(request):
    """Mark every unread notification of the user read, then list them again."""
    count = request.user.notifications.unread().update(read=timezone.now())
    if count:
        messages.success(request, f"Marked {count} notification{'s' * (count != 1)} read.")
    return redirect("chapters:notifications")
