"""The sign-in page: django-allauth's login view, with a Content-Security-Policy that lets
the "Sign in with ..." form go on to the provider.

The wiki's policy allows forms to send data to the wiki only (``form-action 'self'``,
wiki/settings.py), and browsers check that directive on each redirect a form's submission
follows: the SSO button posts to the wiki, which redirects to the provider's authorization
endpoint, so the sign-in page (and no other) adds the provider's origin, taken from
``WIKI_OIDC_SERVER_URL``.
"""

from urllib.parse import urlsplit

from allauth.account.views import login as allauth_login
from django.conf import settings

__all__ = ["login", "provider_origins"]


def provider_origins():
    """Return the origins (``scheme://host[:port]``) of the configured OpenID providers.

    Returns:
        A sorted list, empty when no provider is configured.
    """
    apps = settings.SOCIALACCOUNT_PROVIDERS.get("openid_connect", {}).get("APPS", [])
    origins = set()
    for app in apps:
        url = urlsplit(app["settings"]["server_url"])
        origins.add(f"{url.scheme}://{url.netloc}")
    return sorted(origins)


def login(request):
    """Answer as allauth's login view; with SSO configured, let its forms reach the provider
    (django-csp's per-response update of ``form-action``)."""
    response = allauth_login(request)
    origins = provider_origins()
    if origins:
        response._csp_update = {"form-action": origins}
    return response
