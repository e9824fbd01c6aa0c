"""Who may edit, publish, review, revert, preview and watch: one rule, used by the views, the
templates, the admin and the reader cache.

Editing needs an active staff user (``is_active``, ``is_staff``) with the model permission
for the change: ``chapters.change_node`` to edit a page (on the site or in the admin),
``chapters.add_node`` for a new one. Reverting to an old revision and previewing a body are
edits like any other, and need the same. Publishing needs ``chapters.publish_node`` as well:
only then may someone set or take away the status Published, save an edit of a published
page straight away, and approve or send back the changes others propose (``can_review``).
The roles are groups made by migration ``0013_roles``: Editor, Reviewer and Admin.

Templates ask through the ``permissions`` template library (``{% load permissions %}``,
``{% if user|can_revert %}``), never through ``perms.*``; the reader cache keys signed-in
users' pages by :func:`can_edit` (``chapters.caching``), since it decides the "Edit" link.
"""

__all__ = [
    "PUBLISHED",
    "can_add",
    "can_delete",
    "can_edit",
    "can_move",
    "can_preview",
    "can_publish",
    "can_review",
    "can_upload",
    "can_revert",
    "can_watch",
    "holds_published",
    "statuses_for",
]

# Node.Status.PUBLISHED, named here so this module imports no model.
PUBLISHED = "published"


def _is_editor(user, *permissions):
    """Return True for an active staff user with any of ``permissions``."""
    return (
        user.is_active
        and user.is_staff
        and any(user.has_perm(permission) for permission in permissions)
    )


def can_edit(user):
    """Return True when ``user`` may change pages, so their pages link to the editor.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return _is_editor(user, "chapters.change_node")


def can_add(user):
    """Return True when ``user`` may add pages ("New chapter" on a section's page).

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return _is_editor(user, "chapters.add_node")


def can_delete(user):
    """Return True when ``user`` may delete pages (with everything under them): an active
    staff user with ``chapters.delete_node`` (Admin), as the admin's delete asks (Django's
    ``ModelAdmin.has_delete_permission``); the API's delete asks here.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return _is_editor(user, "chapters.delete_node")


def can_publish(user):
    """Return True when ``user`` may publish and unpublish pages, and save edits of
    published pages without review: an editor with ``chapters.publish_node``.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return can_edit(user) and user.has_perm("chapters.publish_node")


def holds_published(node, *, include_self=True):
    """Return True when ``node`` is published or a page under it is (one query).

    Args:
        node: a stored node, its place in the tree as stored (``lft``, ``rght``).
        include_self: False to look only under it.
    """
    found = node.get_descendants(include_self=include_self).filter(status=PUBLISHED)
    return found.exists()


def can_move(user, node):
    """Return True when ``user`` may move ``node`` at once: to another section or place, or
    to another address (a new slug).

    A move of a published page, or of a section with published pages under it, changes
    what readers see at once, so it needs someone who may publish (:func:`can_publish`);
    any editor moves the rest. The one rule of every move: the admin's change form
    (``NodeAdminForm``) and drag (``NodeAdmin.move_refusal``) refuse a move it refuses,
    the site's editor proposes it for review (``chapters.edit.workflow.save_edit``), and an
    import without the right to publish refuses it (``chapters.files.importer``).

    Args:
        user: a user, or Django's ``AnonymousUser``.
        node: the stored node, before the move.
    """
    return can_publish(user) or not holds_published(node)


def can_review(user):
    """Return True when ``user`` may approve or send back a pending change: as
    :func:`can_publish`, since approving a change to a published page publishes it.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return can_publish(user)


def can_revert(user):
    """Return True when ``user`` may revert a page to an old revision: as :func:`can_edit`
    (a revert follows the workflow as any edit does: ``chapters.edit.workflow``).

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return can_edit(user)


def can_upload(user):
    """Return True when ``user`` may add, replace and delete images and files in the media
    library: as :func:`can_edit`, since placing them is editing pages.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return can_edit(user)


def can_preview(user, adding=False):
    """Return True when ``user`` may preview a body in an editor or in the admin's forms.

    Args:
        user: a user, or Django's ``AnonymousUser``.
        adding: True for a new page, where ``chapters.add_node`` is enough; otherwise as
            :func:`can_edit`.
    """
    if adding:
        return _is_editor(user, "chapters.add_node", "chapters.change_node")
    return can_edit(user)


def can_watch(user):
    """Return True when ``user`` may watch pages and get e-mail about them: anyone signed in.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return user.is_authenticated and user.is_active


def statuses_for(user, current):
    """Return the statuses ``user`` may give a page whose stored status is ``current``.

    The workflow: an editor moves a page between Draft and In review; only a reviewer
    (:func:`can_publish`) publishes it or takes it back from Published. A page stays at its
    status whoever edits it.

    Args:
        user: a user, or Django's ``AnonymousUser``.
        current: the page's stored status, or None for a new page.

    Returns:
        A set of status values (``chapters.models.Node.Status``).
    """
    if can_publish(user):
        return {"draft", "review", PUBLISHED}
    if current == PUBLISHED:
        return {PUBLISHED}
    return {"draft", "review"}
