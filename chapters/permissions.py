"""Who may edit, revert and preview: one rule, used by the views, the templates, the admin and
the reader cache.

Changing the curriculum is done in Django's admin, so every change needs what the admin
needs: an active staff user (``is_active``, ``is_staff``), with the model permission for the
change (``chapters.change_node``; ``chapters.add_node`` for a new page). Reverting to an old
revision and previewing a body are changes of a page like any other, and need the same.
Templates ask through the ``permissions`` template library (``{% load permissions %}``,
``{% if user|can_revert %}``), never through ``perms.*``; the reader cache keys signed-in
users' pages by :func:`can_edit` (``chapters.caching``), since it decides the "Edit" link.
"""

__all__ = ["can_edit", "can_preview", "can_revert"]


def _is_editor(user, *permissions):
    """Return True for an active staff user with any of ``permissions``."""
    return (
        user.is_active
        and user.is_staff
        and any(user.has_perm(permission) for permission in permissions)
    )


def can_edit(user):
    """Return True when ``user`` may change pages, so their pages link to the admin.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return _is_editor(user, "chapters.change_node")


def can_revert(user):
    """Return True when ``user`` may revert a page to an old revision: as :func:`can_edit`.

    Args:
        user: a user, or Django's ``AnonymousUser``.
    """
    return can_edit(user)


def can_preview(user, adding=False):
    """Return True when ``user`` may preview a body in the admin's change or add form.

    Args:
        user: a user, or Django's ``AnonymousUser``.
        adding: True for the add form, where ``chapters.add_node`` is enough; otherwise as
            :func:`can_edit`.
    """
    if adding:
        return _is_editor(user, "chapters.add_node", "chapters.change_node")
    return can_edit(user)
