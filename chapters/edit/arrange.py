"""Arranging the tree on the site's outline (``chapters.edit.outline``): moving a page up,
down, into the section above it or out of its section, or beside or into another page by
drag and drop; giving it another slug; adding a section or a chapter.

Every change is made in a write to the tree (``tree_write``) that the caller opens, and
goes by the one move rule, ``permissions.can_move``: a page that is published, or a section
with published pages under it, moves at once only for someone who may publish; anyone else
proposes the move (or the new slug) for review, as the site's editor proposes a move to
another section (``chapters.edit.workflow``), and readers see it once a reviewer approves.
The tree's own rules (``NodeManager.move_node``, ``Node.save()``) refuse what would break
it, with the same messages as everywhere else.
"""

from django.core.exceptions import ValidationError
from django.utils import timezone
from mptt.exceptions import InvalidMove

from ..models import Node, PendingChange
from ..permissions import can_move
from ..webhooks import events
from . import notify

__all__ = ["ACTIONS", "POSITIONS", "Refused", "add", "move", "placement", "rename"]

# The keyboard's and the buttons' moves: Alt+↑, Alt+↓, Alt+→ (into the section above),
# Alt+← (out of its section, after it).
ACTIONS = ("up", "down", "in", "out")
# A drop: before or after the page dropped on, or last in the section dropped on.
POSITIONS = ("left", "right", "last-child")


class Refused(Exception):
    """The outline's change cannot be made; the message says why, for the editor."""


def placement(node, action):
    """Return where ``action`` (one of :data:`ACTIONS`) moves ``node``: ``(target,
    position)``, as ``NodeManager.move_node`` takes them.

    Raises:
        Refused: there is nowhere to go (first already, nothing above to go into, at the top
            level already).
    """
    if action == "up":
        target, position = node.get_previous_sibling(), "left"
        nowhere = f"“{node.title}” is first in its section already."
    elif action == "down":
        target, position = node.get_next_sibling(), "right"
        nowhere = f"“{node.title}” is last in its section already."
    elif action == "in":
        target, position = node.get_previous_sibling(), "last-child"
        if target is not None and target.is_chapter:
            raise Refused(f"The page above “{node.title}” is a chapter: only a section takes it.")
        nowhere = f"Nothing above “{node.title}” to move it into."
    else:
        target, position = node.parent, "right"
        nowhere = f"“{node.title}” is at the top level already."
    if target is None:
        raise Refused(nowhere)
    return target, position


def move(node, target, position, user, base_url):
    """Move ``node`` beside or into ``target``, or propose the move for review.

    Call in a write to the tree, with both nodes loaded after its lock.

    Args:
        node, target: the page moved and the page it goes beside (``left``, ``right``) or
            into (``last-child``).
        position: one of :data:`POSITIONS`.
        user: the editor.
        base_url: the site's address, for the e-mails' links.

    Returns:
        The :class:`~chapters.models.PendingChange` proposing the move, or None when the
        page was moved.

    Raises:
        Refused: the tree refuses the move (under itself, a chapter at the top level,
            anything under a chapter, a slug the new section's pages already have).
    """
    section = target if position == "last-child" else target.parent
    if can_move(user, node):
        try:
            Node.objects.move_node(node, target, position)
        except InvalidMove as error:
            raise Refused(str(error)) from None
        return None
    try:
        node.validate_placement(section)
    except ValidationError as error:
        raise Refused(" ".join(error.messages)) from None
    summary = f"Move to “{section.title}”" if section else "Move to the top level"
    return _propose(node, user, base_url, parent=section, target=target, position=position,
                    summary=summary)  # fmt: skip


def rename(node, slug, user, base_url):
    """Give ``node`` the slug ``slug`` (its old addresses redirect to the new one), or
    propose it for review.

    Returns:
        The :class:`~chapters.models.PendingChange` proposing it, or None when it was saved.

    Raises:
        Refused: the slug is empty, not a slug, too long, a sibling's already, or a top-level
            address the site's own pages use.
    """
    if not slug:
        raise Refused("Give the page an address: letters, digits, hyphens.")
    stored = Node.objects.get(pk=node.pk)
    try:
        node.slug = Node._meta.get_field("slug").clean(slug, node)
        node.validate_placement(node.parent)
    except ValidationError as error:
        raise Refused(" ".join(error.messages)) from None
    if can_move(user, stored):
        node._history_user, node._change_reason = user, f"Address changed to “{slug}”"
        node.save()
        return None
    return _propose(stored, user, base_url, slug=slug, summary=f"Address “{slug}”")


def add(section, title, kind, user):
    """Add a draft section or chapter, ``title``, last in ``section`` (None: a new area at
    the top level, which only a section may be).

    Returns:
        The new :class:`~chapters.models.Node`.

    Raises:
        Refused: the title is empty or too long, or the tree refuses the page there.
    """
    node = Node(title=title.strip(), kind=kind, parent=section, status=Node.Status.DRAFT)
    try:
        node.clean()
        node.fill_slug()
        node._history_user, node._change_reason = user, "Added on the outline"
        node.save()
    except ValidationError as error:
        raise Refused(" ".join(error.messages)) from None
    return node


def _propose(node, user, base_url, *, summary, **place):
    """Propose ``place`` (``parent``, ``target``, ``position``, or ``slug``) for ``node`` in
    the user's pending change to it, made from the page as it is if they have none; tell
    the reviewers.

    A pending change of theirs keeps its own title, status and text: the move joins it.
    """
    change = node.pending_changes.waiting().filter(author=user).first()
    if change is None:
        latest = Node.history.filter(id=node.pk).values_list("history_id", flat=True).first()
        change = PendingChange(
            node=node,
            author=user,
            base_revision=latest,
            title=node.title,
            status=node.status,
            parent_id=node.parent_id,
            body=node.body,
            requires=node.requires,
            summary=summary,
        )
    for name, value in place.items():
        setattr(change, name, value)
    change.updated = timezone.now()
    change.save()
    notify.change_proposed(change, base_url)
    events.review_requested(change, base_url)
    return change
