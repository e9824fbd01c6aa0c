"""The roles a user signing in by SSO gets from the provider's groups claim.

At every sign-in by SSO, when ``WIKI_OIDC_GROUPS`` maps claimed groups to roles
(wiki/signin.py), the provider decides the user's roles: the role groups the claim maps to
are added, the role groups it no longer maps to are taken away, and other groups are left
alone. Each role needs staff status (``chapters.permissions``: editing asks for an active
staff user), so the user is staff exactly when they hold a role; Admin gives the Admin
group's permissions (every permission of the chapters app), never superuser status, which
stays a decision made in the admin. A superuser keeps staff status whatever the claim.
"""

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import transaction

__all__ = ["ROLES", "claimed_groups", "roles_for", "sync_roles"]

# The groups made by migration 0013_roles.
ROLES = frozenset({"Editor", "Reviewer", "Admin"})


def claimed_groups(claims, claim):
    """Return the groups a provider's claims name in ``claim``.

    Args:
        claims: the user's claims (the userinfo answer or the ID token's payload).
        claim: the name of the claim holding the groups (``WIKI_OIDC_GROUPS_CLAIM``).

    Returns:
        A frozenset of group names: the claim's strings when it is a list, the claim itself
        when it is one string, none when it is missing or anything else.
    """
    value = claims.get(claim)
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list):
        return frozenset(item for item in value if isinstance(item, str))
    return frozenset()


def roles_for(groups, mapping):
    """Return the roles that claimed ``groups`` give under ``mapping``.

    Args:
        groups: the claimed group names.
        mapping: from a claimed group to the roles it gives (``WIKI_OIDC_GROUPS``).

    Returns:
        A frozenset of role names, among Editor, Reviewer and Admin.
    """
    return frozenset().union(*(mapping.get(group, frozenset()) for group in groups))


def sync_roles(user, claims):
    """Set a stored user's role groups and staff status from their claims.

    Does nothing when ``WIKI_OIDC_GROUPS`` maps nothing (roles are then given in the admin).

    Args:
        user: the stored user signing in.
        claims: the user's claims from the provider.

    Returns:
        The frozenset of the roles the user holds afterwards, or None when nothing is mapped.
    """
    mapping = settings.WIKI_OIDC_GROUPS
    if not mapping:
        return None
    roles = roles_for(claimed_groups(claims, settings.WIKI_OIDC_GROUPS_CLAIM), mapping)
    with transaction.atomic():
        held = set(user.groups.filter(name__in=ROLES))
        wanted = set(Group.objects.filter(name__in=roles))
        user.groups.remove(*(held - wanted))
        user.groups.add(*(wanted - held))
        is_staff = bool(roles) or user.is_superuser
        if user.is_staff != is_staff:
            user.is_staff = is_staff
            user.save(update_fields=["is_staff"])
    # Permissions are cached on the instance (ModelBackend); the groups just changed.
    for cache in ("_perm_cache", "_group_perm_cache", "_user_perm_cache"):
        user.__dict__.pop(cache, None)
    return roles
