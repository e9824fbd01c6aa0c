"""Helpers for the API's tests: a client signed in as each role, by session or by token."""

from django.contrib.auth import get_user_model

from chapters.models import ApiToken
from tests.helpers import role_user

__all__ = ["ROLES", "as_role"]

# Every way to call the API: nobody, a signed-in user with no role, each role (by session),
# and an Editor's tokens of each scope.
ROLES = ["anonymous", "reader", "Editor", "Reviewer", "Admin", "read token", "write token"]


def as_role(client, role):
    """Sign ``client`` in as ``role`` (one of :data:`ROLES`).

    Returns:
        ``(user, headers)``: the user (None when anonymous) and the headers to send with
        each request (``Authorization`` for a token).
    """
    if role == "anonymous":
        return None, {}
    if role == "reader":
        user = get_user_model().objects.create_user("reader", "reader@example.com")
        client.force_login(user)
        return user, {}
    if role.endswith("token"):
        user = role_user("tokened", "Editor")
        _, secret = ApiToken.issue(user, "tests", role.split()[0])
        return user, {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    user = role_user(role.lower(), role)
    client.force_login(user)
    return user, {}
