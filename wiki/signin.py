"""Settings of signing in: local accounts and single sign-on (chapters/signin/), from the
environment. wiki/settings.py takes every name of ``__all__``, the settings; the two functions
build them.

The site's one sign-in page is django-allauth's, at ``/accounts/login/`` (``LOGIN_URL``):
a username and password form for local accounts, checked by the sign-in lockout
(django-axes, wiki/settings.py), and a "Sign in with ..." button when an OpenID provider is
configured:

- ``WIKI_OIDC_SERVER_URL``: the provider's issuer URL, whose discovery document is at
  ``<url>/.well-known/openid-configuration`` (the document's own URL works too).
- ``WIKI_OIDC_CLIENT_ID`` and ``WIKI_OIDC_CLIENT_SECRET``: the wiki's client at the provider.
- ``WIKI_OIDC_PROVIDER_ID``: a short name in the redirect URI the provider is given,
  ``https://<host>/accounts/oidc/<provider id>/login/callback/``. Default: ``sso``.
- ``WIKI_OIDC_NAME``: the provider's name on the button. Default: ``single sign-on``.
- ``WIKI_OIDC_GROUPS_CLAIM``: the claim holding the user's groups. Default: ``groups``.
- ``WIKI_OIDC_GROUPS``: which claimed group gives which role, comma-separated
  ``<claimed group>=<role>`` (a role: Editor, Reviewer or Admin), e.g.
  ``wiki-editors=Editor,wiki-reviewers=Reviewer,wiki-admins=Admin``. When set, each sign-in
  by SSO sets the user's roles and staff status from the claim (``chapters.signin.roles``);
  when unset, roles are given in the admin only. Default: unset.
- ``WIKI_SIGNUP_OPEN``: on to let anyone make a local account at ``/accounts/signup/``.
  Default: off (accounts are made in the admin, or by signing in with SSO).

Without ``WIKI_OIDC_SERVER_URL`` and ``WIKI_OIDC_CLIENT_ID`` there is no SSO: the page shows
the local form alone.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from wiki.environment import env_flag

__all__ = [
    "ACCOUNT_ADAPTER",
    "ACCOUNT_DEFAULT_HTTP_PROTOCOL",
    "ACCOUNT_EMAIL_VERIFICATION",
    "ACCOUNT_LOGIN_METHODS",
    "ACCOUNT_LOGOUT_REDIRECT_URL",
    "ACCOUNT_RATE_LIMITS",
    "ACCOUNT_SESSION_REMEMBER",
    "ACCOUNT_SIGNUP_FIELDS",
    "LOGIN_REDIRECT_URL",
    "LOGIN_URL",
    "SOCIALACCOUNT_ADAPTER",
    "SOCIALACCOUNT_PROVIDERS",
    "WIKI_OIDC_GROUPS",
    "WIKI_OIDC_GROUPS_CLAIM",
    "WIKI_SIGNUP_OPEN",
]

# The groups made by migration 0013_roles (chapters.permissions).
ROLES = ("Editor", "Reviewer", "Admin")


def role_map(text):
    """Return the roles each claimed group gives, from ``WIKI_OIDC_GROUPS``'s text.

    Args:
        text: comma-separated ``<claimed group>=<role>`` pairs; a claimed group may be named
            in several pairs, to give several roles; blank entries are skipped.

    Returns:
        A dict from each claimed group to the frozenset of the roles it gives; empty for an
        empty text.

    Raises:
        ImproperlyConfigured: a pair without ``=``, with an empty group, or naming a role
            that is not Editor, Reviewer or Admin.
    """
    roles = {}
    for entry in text.split(","):
        if not entry.strip():
            continue
        claimed, equals, role = (part.strip() for part in entry.partition("="))
        if not (equals and claimed and role in ROLES):
            raise ImproperlyConfigured(
                f"WIKI_OIDC_GROUPS: {entry.strip()!r} is not <claimed group>=<role>, with a "
                f"role among {', '.join(ROLES)}."
            )
        roles[claimed] = roles.get(claimed, frozenset()) | {role}
    return roles


def openid_connect_apps(environ):
    """Return django-allauth's ``openid_connect`` apps: the one provider configured, or none.

    Args:
        environ: the environment (``os.environ``), read for the ``WIKI_OIDC_*`` variables.

    Returns:
        A list of one app (provider id, name, client id and secret, discovery URL, PKCE on)
        when ``WIKI_OIDC_SERVER_URL`` and ``WIKI_OIDC_CLIENT_ID`` are set, else an empty list.
    """
    server_url = environ.get("WIKI_OIDC_SERVER_URL", "").strip()
    client_id = environ.get("WIKI_OIDC_CLIENT_ID", "").strip()
    if not (server_url and client_id):
        return []
    return [
        {
            "provider_id": environ.get("WIKI_OIDC_PROVIDER_ID", "").strip() or "sso",
            "name": environ.get("WIKI_OIDC_NAME", "").strip() or "single sign-on",
            "client_id": client_id,
            "secret": environ.get("WIKI_OIDC_CLIENT_SECRET", ""),
            # PKCE (RFC 7636) as well as the secret: providers that require it get it, the
            # others ignore it.
            "settings": {"server_url": server_url, "oauth_pkce_enabled": True},
        }
    ]


LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
# The wiki's own rules of allauth's flows (chapters.signin.adapters): sign-up closed unless
# WIKI_SIGNUP_OPEN; SSO makes the user's account at the first sign-in, and sets their roles.
ACCOUNT_ADAPTER = "chapters.signin.adapters.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "chapters.signin.adapters.SocialAccountAdapter"
WIKI_SIGNUP_OPEN = env_flag("WIKI_SIGNUP_OPEN")
# Local accounts sign in with their username, as in the admin; an e-mail address is optional
# and never verified by mail (accounts are made by people who know their owners).
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
# Sessions last SESSION_COOKIE_AGE, as the admin's sign-in made them: no "Remember me".
ACCOUNT_SESSION_REMEMBER = True
# django-axes is the one lockout of failed sign-ins (wiki/settings.py), on this page as in
# the admin; allauth's own rate limits would be a second, differently counted one.
ACCOUNT_RATE_LIMITS = False

SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": openid_connect_apps(os.environ)}}
# The redirect URI the provider is given is built from the request; on a site served over
# HTTPS only (DJANGO_HTTPS) it says https whatever the request's scheme looked like.
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if env_flag("DJANGO_HTTPS") else "http"
WIKI_OIDC_GROUPS_CLAIM = os.environ.get("WIKI_OIDC_GROUPS_CLAIM", "").strip() or "groups"
WIKI_OIDC_GROUPS = role_map(os.environ.get("WIKI_OIDC_GROUPS", ""))
