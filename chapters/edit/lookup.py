"""What the editing pages share: who may open them, the page a path names (or named before a
move), and an id posted in a form."""

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404

from ..models import Node, PathRedirect
from .forms import EditForm

__all__ = ["allowed", "find", "posted_id"]


def allowed(request, rule):
    """Return a redirect to sign in for an anonymous user; raise 403 when ``rule`` refuses.

    Raises:
        PermissionDenied: a signed-in user whom ``rule`` refuses.
    """
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not rule(request.user):
        raise PermissionDenied("You may not edit pages.")
    return None


def find(path, **kind):
    """Return the node at ``path``, or the node that was at ``path`` before a move or rename.

    An editor who opened the editor before someone moved the page, or a section above it,
    posts the form and its drafts to the old path: they reach the page, as a reader following
    the old path does (``PathRedirect``), and no work is lost.

    Args:
        path: the path in the URL.
        kind: ``kind=Node.Kind.SECTION`` to find only a section.

    Raises:
        Http404: no node of that kind is, or was, at ``path``.
    """
    node = Node.objects.filter(path=path, **kind).first()
    if node is None:
        moved = PathRedirect.objects.select_related("node").filter(old_path=path).first()
        if moved is None or moved.node.kind != kind.get("kind", moved.node.kind):
            raise Http404("No page is, or was, at this path.")
        node = moved.node
    return node


def posted_id(request, name):
    """Return the id posted as ``name``, or None where it is missing or cannot be an id (the
    range of the editor form's ``base_revision``: what every database's 64-bit keys hold)."""
    try:
        return EditForm.base_fields["base_revision"].clean(request.POST.get(name, ""))
    except ValidationError:
        return None
