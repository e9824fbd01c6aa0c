"""Who calls the API, and what their token lets them do.

Two ways in, tried in this order (``REST_FRAMEWORK`` in wiki/settings.py): a token in the
``Authorization: Bearer <token>`` header (RFC 6750), or the site's session, with Django's
CSRF check on unsafe methods (DRF's ``SessionAuthentication``). A token acts for its user,
with their permissions (``chapters.permissions``), and a read token only reads.
"""

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from ..models import ApiToken

__all__ = ["TokenAuthentication", "TokenScheme", "TokenScope"]

# A token's last use is written at most this often, so reads do not write on every request.
LAST_USED_EVERY = timezone.timedelta(minutes=5)


class TokenAuthentication(authentication.BaseAuthentication):
    """Sign in by a token of ``ApiToken``: ``Authorization: Bearer <token>``.

    Returns ``(user, token)``, so that views find the token in ``request.auth``; None when
    the request has no bearer token, so that the session is tried next.

    Raises:
        AuthenticationFailed: the header is malformed, or the token is unknown or revoked
            (401 with ``WWW-Authenticate: Bearer``).
    """

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0].lower() != self.keyword.lower():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "The Authorization header must be 'Bearer <token>', one token without spaces."
            )
        token = ApiToken.objects.find(header[1])
        if token is None:
            raise exceptions.AuthenticationFailed("This token is unknown or has been revoked.")
        now = timezone.now()
        if token.last_used is None or now - token.last_used > LAST_USED_EVERY:
            ApiToken.objects.filter(pk=token.pk).update(last_used=now)
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword


class TokenScheme(OpenApiAuthenticationExtension):
    """Describe :class:`TokenAuthentication` in the OpenAPI schema: HTTP bearer."""

    target_class = TokenAuthentication
    name = "token"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A token made on /api/tokens/: Authorization: Bearer <token>.",
        }


class TokenScope(permissions.BasePermission):
    """Refuse unsafe methods to a read token; allow everything else, for the views to check
    by ``chapters.permissions`` what the user may do."""

    message = "This token may only read: make a token with the scope 'write' to change pages."

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        token = request.auth
        return not isinstance(token, ApiToken) or token.may_write
