"""The review workflow: what saving an edit does, and what a review decides.

- An edit of a page by someone who may publish it (``permissions.can_publish``), or of a
  page that is not published, is saved at once: a revision, live for readers.
- An edit of a published page by someone who may not publish becomes a
  :class:`~chapters.models.PendingChange` (one per author and page: editing again updates
  it); readers keep seeing the published revision. So does their move of a section with
  published pages under it to another section (``permissions.can_move``, the rule by which
  the admin refuses the same move): :func:`needs_review`.
- A reviewer approves a pending change, which saves it at once through ``Node.save()``
  under the tree's lock, merged three ways (:mod:`chapters.edit.merge`) with whatever was
  saved since it was proposed; a conflict, or a change the tree refuses, goes back to its
  author. Or they send it back with a comment. Either decision is on the change as the
  reviewer saw it (``PendingChange.version``), and only while it is still pending.
- A revert by someone who may not publish follows the same rules (:func:`revert`), and
  never replaces their own pending change.
- A restore (``chapters.recovery``) by someone who may not publish brings a page that was
  published back as a draft, and proposes publishing it again as a pending change
  (:func:`propose_restored`), so nothing deleted comes back live without a reviewer.
- Statuses follow ``permissions.statuses_for``: the forms offer only those.

Every function here that writes is one write to the tree
(:func:`~chapters.models.tree_write`), whose revisions the watchers hear of once it commits
(:mod:`chapters.edit.notify`) and webhooks of once it commits (:mod:`chapters.webhooks`);
proposals and decisions are told in their own transaction.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from mptt.exceptions import InvalidMove

from .. import history
from ..markdown import MarkdownError
from ..models import Node, PendingChange, one_line, tree_write
from ..permissions import PUBLISHED, can_edit, can_move, can_publish
from ..webhooks import events
from . import notify
from .conflicts import revision_fields
from .merge import merge_fields, merge_text

__all__ = [
    "DECIDED_ALREADY",
    "EDITED_SINCE",
    "approve",
    "decidable",
    "needs_review",
    "page_tools",
    "propose_restored",
    "revert",
    "revert_plan",
    "save_edit",
    "send_back",
]

DECIDED_ALREADY = "This change has been decided already."
# The summary of the change proposing to publish a restored page again.
PUBLISH_RESTORED = "Publish again after the restore"
EDITED_SINCE = "The change was edited since you opened it: look again."


def save_edit(node, user, *, summary, base_revision, base_url):
    """Save an editor's form for ``node``, or propose it for review (see the module).

    Call in the write to the tree (``tree_write``) of the form's checks, with the form's
    values set on ``node`` (unsaved).

    Args:
        node: the page, loaded after the lock, with the form's values; or a new one.
        user: the editor.
        summary: the edit summary (stored on one line, ``chapters.models.one_line``).
        base_revision: the revision id the form was made from (merged up to the latest).
        base_url: the site's address, for the e-mail's links.

    Returns:
        The :class:`~chapters.models.PendingChange` made or updated, or None when the edit
        was saved.

    Raises:
        ValidationError: the tree refuses the page where it is now (``Node.save()``).
    """
    if needs_review(node, user):
        change, _ = PendingChange.objects.update_or_create(
            node=node,
            author=user,
            state=PendingChange.State.PENDING,
            defaults={
                "base_revision": base_revision,
                "title": node.title,
                "status": node.status,
                "parent": node.parent,
                "body": node.body,
                "requires": node.requires,
                "summary": one_line(summary),
                "updated": timezone.now(),
            },
        )
        notify.change_proposed(change, base_url)
        events.review_requested(change, base_url)
        return change
    node._history_user, node._change_reason = user, summary or None
    node.save()
    return None


def needs_review(node, user):
    """Return True when ``user``'s edit of ``node`` must wait for review (see the module).

    It must when the page is published and the user may not publish, or when the edit
    moves it to another section and the user may not move it at once
    (``permissions.can_move``: a section with published pages under it), the rule the
    admin's form and drag refuse such a move by.

    Args:
        node: the page with the edit's values set (unsaved), loaded after the lock; or a new
            one, which never waits.
    """
    stored = Node.objects.filter(pk=node.pk).values("status", "parent_id").first()
    if stored is None or can_publish(user):
        return False
    moves = stored["parent_id"] != node.parent_id
    return stored["status"] == PUBLISHED or (moves and not can_move(user, node))


def propose_restored(node, user, base_url):
    """Propose publishing ``node`` again, just restored as a draft by ``user``, who may not
    publish: a pending change of the restored revision with the status Published, summary
    :data:`PUBLISH_RESTORED`, which a reviewer approves or sends back as any other.

    Their own change to the page that came back with it, waiting for review, becomes that
    proposal instead (one pending change per author and page): merged three ways with the
    restored revision, its status Published, its base the restored revision. Where it
    conflicts with what was saved after it was proposed, it stays as it was, and its
    approval sends it back saying so, as it would have before the delete.

    Call in the restore's write to the tree, once the page and its pending changes are
    back (``chapters.recovery.restore``).

    Args:
        node: the restored page.
        user: who restored it.
        base_url: the site's address, for the e-mail's links.

    Returns:
        The :class:`~chapters.models.PendingChange` proposing to publish the page, or the
        user's own change that conflicts.
    """
    latest = Node.history.filter(id=node.pk).first()
    own = node.pending_changes.waiting().filter(author=user).first()
    fields = {**revision_fields(latest), "status": PUBLISHED}
    if own is None:
        change = PendingChange.objects.create(
            node=node,
            author=user,
            base_revision=latest.history_id,
            title=fields["title"],
            status=PUBLISHED,
            parent_id=fields["parent_id"],
            body=fields["body"],
            requires=fields["requires"],
            summary=PUBLISH_RESTORED,
        )
    else:
        base = Node.history.filter(id=node.pk, history_id=own.base_revision).first()
        ours = {name: value for name, value in own.fields().items() if name != "body"}
        values, conflicts = merge_fields(revision_fields(base) if base else {}, fields, ours)
        text = merge_text(base.body if base else "", latest.body, own.body)
        if conflicts or text.conflicts:
            return own
        own.title, own.parent_id, own.body = values["title"], values["parent_id"], text.text
        own.requires = values["requires"]
        own.status, own.base_revision, own.updated = PUBLISHED, latest.history_id, timezone.now()
        own.save()
        change = own
    notify.change_proposed(change, base_url)
    events.review_requested(change, base_url)
    return change


def approve(change, reviewer, base_url, *, seen=None, comment=""):
    """Approve a pending change: save it as the page's next revision, at once.

    Its author is the revision's author, and its summary reads "Approved by <reviewer>:
    <summary>". If the page was saved since the change was proposed, the two are merged
    three ways; a conflict, or a refusal by the tree's rules, sends the change back to its
    author instead, saying why. The change is read again under the tree's lock, so of two
    reviewers deciding at once only the first decides (:func:`decidable`).

    Args:
        change: a pending change.
        reviewer: who approves it.
        base_url: the site's address, for the e-mail's links.
        seen: the change's ``version`` the reviewer saw, or None not to check it.
        comment: the reviewer's word for the author, kept with the decision.

    Returns:
        None when the change is live; otherwise the reason it was sent back.

    Raises:
        ValidationError: the change was decided already, or edited since ``seen``.
    """
    with tree_write(user=reviewer, base_url=base_url, bodies=[change.body]) as write:
        # The decision tells the watchers (notify.change_decided), not the revision.
        write.tell_watchers = False
        return _approve(decidable(change, seen), reviewer, base_url, comment)


def _approve(change, reviewer, base_url, comment):
    """Approve ``change`` in the write open (see :func:`approve`)."""
    node = Node.objects.get(pk=change.node_id)
    latest = Node.history.filter(id=node.pk).first()
    fields = change.fields()
    if latest.history_id != change.base_revision:
        base = Node.history.filter(id=node.pk, history_id=change.base_revision).first()
        old = revision_fields(base) if base else {}
        ours = {name: value for name, value in fields.items() if name != "body"}
        values, conflicts = merge_fields(old, revision_fields(latest), ours)
        text = merge_text(base.body if base else "", latest.body, change.body)
        if conflicts or text.conflicts:
            who = latest.history_user or "a script"
            return _send_back(
                change,
                reviewer,
                f"It conflicts with revision {latest.history_id}, saved by {who} since it was "
                "proposed: edit the page again to merge the two, then propose it again.",
                base_url,
            )
        fields = {**values, "body": text.text}
    node.title, node.status, node.body = fields["title"], fields["status"], fields["body"]
    node.parent_id, node.requires = fields["parent_id"], fields["requires"]
    node.slug = change.slug or node.slug
    node._history_user = change.author
    node._change_reason = f"Approved by {reviewer}: {change.summary}".rstrip(": ")
    try:
        with transaction.atomic():
            node.clean()
            node.save()
            _place(node, change)
    except (ValidationError, InvalidMove) as error:
        refusal = error.messages if isinstance(error, ValidationError) else [str(error)]
        return _send_back(change, reviewer, " ".join(refusal), base_url)
    except MarkdownError as error:
        return _send_back(change, reviewer, str(error), base_url)
    _decide(change, reviewer, PendingChange.State.APPROVED, comment.strip())
    notify.change_decided(change, base_url)
    events.review_decided(change, base_url)
    return None


def _place(node, change):
    """Put ``node`` where the outline's move ``change`` proposed, beside or into its
    ``target``, if that page is still in the section the node is now in.

    Raises:
        InvalidMove: the tree refuses the place (``NodeManager.move_node``).
    """
    target = change.target_id and Node.objects.filter(pk=change.target_id).first()
    if not change.position or not target:
        return
    section = target.pk if change.position == "last-child" else target.parent_id
    if section == node.parent_id:
        Node.objects.move_node(node, target, change.position)


def send_back(change, reviewer, comment, base_url, *, seen=None):
    """Send a pending change back to its author with ``comment``; the page stays as it is.

    Args:
        change: a pending change.
        reviewer: who sends it back.
        comment: why, for its author.
        base_url: the site's address, for the e-mail's links.
        seen: the change's ``version`` the reviewer saw, or None not to check it.

    Returns:
        ``comment``.

    Raises:
        ValidationError: the change was decided already, or edited since ``seen``
            (:func:`decidable`).
    """
    with tree_write(user=reviewer, base_url=base_url):
        return _send_back(decidable(change, seen), reviewer, comment, base_url)


def decidable(change, seen=None):
    """Return ``change`` read again, if a reviewer may still decide on it as they saw it.

    Call in a write to the tree (``tree_write``), which every write of a pending change
    opens (saving an edit, reverting, deciding): the change read here stays as it is until
    the decision commits, so two reviewers deciding at once cannot both decide.

    Args:
        change: a pending change, as the reviewer's request read it.
        seen: the ``version`` the reviewer saw, or None not to check it.

    Raises:
        ValidationError: the change was decided already (:data:`DECIDED_ALREADY`), or edited
            since the reviewer saw it (:data:`EDITED_SINCE`).
    """
    current = PendingChange.objects.select_related("node", "author").filter(pk=change.pk).first()
    if current is None or current.state != PendingChange.State.PENDING:
        raise ValidationError(DECIDED_ALREADY)
    if seen is not None and current.version != seen:
        raise ValidationError(EDITED_SINCE)
    return current


def _send_back(change, reviewer, comment, base_url):
    """Send ``change`` back under the lock taken by the caller, who checked it is pending."""
    _decide(change, reviewer, PendingChange.State.SENT_BACK, comment)
    notify.change_decided(change, base_url)
    events.review_decided(change, base_url)
    return comment


def _decide(change, reviewer, state, comment):
    """Record a review's decision on ``change``."""
    now = timezone.now()
    change.state, change.reviewer, change.comment = state, reviewer, comment
    change.decided = change.updated = now
    change.save(update_fields=["state", "reviewer", "comment", "decided", "updated"])


def revert_plan(node, revision, user):
    """Return what reverting ``node`` to ``revision`` would do, as ``user`` may (see
    :func:`revert`), changing nothing: what the revert's confirmation page shows.

    Args:
        node: the page.
        revision: one of its revisions.
        user: who would revert.

    Returns:
        A dict: ``after``, an unsaved copy of the page as the revert would leave it (or as
        the pending change would propose it); ``notes``, what would not be restored;
        ``pending``, whether the revert would wait for review; ``refused``, why it would be
        refused (:func:`revert` raises it), or "".
    """
    after = Node.objects.get(pk=node.pk)
    if _reverts_at_once(after, revision, user):
        keep = not can_publish(user) and revision.status == PUBLISHED
        notes = history.restore_fields(after, revision, keep_status=keep)
        if keep and revision.status != after.status:
            notes.append(f"It stays {after.get_status_display()}: only a reviewer may publish.")
        return {"after": after, "notes": notes, "pending": False, "refused": ""}
    notes = _propose_revert(after, revision)
    pending = needs_review(after, user)
    if pending:
        notes.append(f"It stays {after.get_status_display()}, and waits for a reviewer's approval.")
    refused = _refusal(after, user) if pending else ""
    return {"after": after, "notes": notes, "pending": pending, "refused": refused}


def revert(node, revision, user, base_url):
    """Revert ``node`` to ``revision`` as ``user`` may, by the workflow.

    Someone who may publish reverts as ``chapters.history.revert`` does. Someone who may not
    keeps the page's status where the revision would publish or unpublish it, and proposes
    the revert of a published page, or one moving a section with published pages under it
    (``permissions.can_move``), as a pending change instead of saving it: its title,
    body, prerequisites (those still pages) and section (where that section still
    exists), never its slug or kind, which a pending change does not hold. That is refused
    while they have a change to the page waiting for review already, which the revert would
    otherwise replace unseen.

    Args:
        node: the page.
        revision: one of its revisions.
        user: who reverts.
        base_url: the site's address, for the e-mail's links.

    Returns:
        ``(notes, change)``: what ``history.revert`` says (its ``NOTHING_TO_REVERT`` when
        the page is as the revision left it already), and the pending change made, or None.

    Raises:
        ValidationError: the user's own pending change to the page waits for review.
    """
    with tree_write(user=user, base_url=base_url, bodies=[revision.body]):
        return _revert(node, revision, user, base_url)


def _revert(node, revision, user, base_url):
    """Revert ``node`` in the write open (see :func:`revert`)."""
    node.refresh_from_db()
    if _reverts_at_once(node, revision, user):
        keep = not can_publish(user) and revision.status == PUBLISHED
        notes = history.revert(node, revision, user, keep_status=keep)
        if keep and history.NOTHING_TO_REVERT not in notes:
            notes.append(f"It stays {node.get_status_display()}: only a reviewer may publish.")
        return notes, None
    stored = (node.title, node.body, node.parent_id, node.requires)
    _propose_revert(node, revision)
    if (node.title, node.body, node.parent_id, node.requires) == stored:
        return [history.NOTHING_TO_REVERT], None
    refusal = _refusal(node, user) if needs_review(node, user) else ""
    if refusal:
        raise ValidationError(refusal)
    latest = Node.history.filter(id=node.pk).values_list("history_id", flat=True).first()
    change = save_edit(
        node,
        user,
        summary=f"Revert to revision {revision.history_id}",
        base_revision=latest,
        base_url=base_url,
    )
    return [], change


def _reverts_at_once(node, revision, user):
    """Return True when ``user`` reverts ``node`` to ``revision`` at once, as
    ``history.revert`` does: someone who may publish, or an unpublished page whose revert
    moves nothing that ``permissions.can_move`` keeps for review (its section and slug
    stay, or no published page is under it). Otherwise the revert is proposed."""
    if can_publish(user):
        return True
    if node.status == PUBLISHED:
        return False
    moves = (revision.parent_id, revision.slug) != (node.parent_id, node.slug)
    return not moves or can_move(user, node)


def _propose_revert(node, revision):
    """Set on ``node`` what an editor's revert that waits for review proposes (a published
    page, or a move of published pages); return notes saying what it keeps."""
    notes = []
    node.title, node.body = revision.title, revision.body
    present = set(Node.objects.filter(pk__in=revision.requires).values_list("pk", flat=True))
    node.requires = [pk for pk in revision.requires if pk in present]
    if revision.parent_id != node.parent_id:
        if Node.objects.filter(pk=revision.parent_id, kind=Node.Kind.SECTION).exists():
            node.parent_id = revision.parent_id
        elif revision.parent_id is not None:
            notes.append("The section it was in no longer exists, so it stays where it is.")
        else:
            notes.append("It stays where it is: a change for review moves a page only.")
    if revision.slug != node.slug:
        notes.append(f"Its slug stays “{node.slug}”: a change for review keeps the address.")
    return notes


def _refusal(node, user):
    """Return why ``user`` may not propose a revert of ``node`` now, or ""."""
    if node.pending_changes.waiting().filter(author=user).exists():
        return (
            "Your change to this page waits for review, and a revert would replace it: edit "
            "that change instead, or revert once it has been decided."
        )
    return ""


def page_tools(user, node):
    """Return what a signed-in user's page shows about editing ``node`` (three queries at
    most).

    Returns:
        A dict: ``pending``, the changes to the page waiting for review (for editors);
        ``sent_back``, the user's own change sent back and not taken up since, or None
        (``PendingChange.objects.sent_back_to``); ``watching``, whether the user watches the
        page itself; ``watched_through``, the sections above it that they watch.
    """
    tools = {"pending": [], "sent_back": None, "watching": False, "watched_through": []}
    if can_edit(user):
        tools["pending"] = list(node.pending_changes.waiting().select_related("author"))
        tools["sent_back"] = PendingChange.objects.sent_back_to(user, node)
    if user.is_authenticated:
        for watch in user.watches.covering(node).select_related("node"):
            if watch.node_id == node.pk:
                tools["watching"] = True
            else:
                tools["watched_through"].append(watch.node)
    return tools
