"""The sign-in page: django-allauth's login view, with a Content-Security-Policy that lets
the "Sign in with ..." form go on to the provider; and the start of an SSO sign-in, which
answers a provider that cannot be reached with a page saying so.

The wiki's policy allows forms to send data to the wiki only (``form-action 'self'``,
wiki/settings.py), and browsers check that directive on each redirect a form's submission
follows: the SSO button posts to the wiki, which redirects to the provider's authorization
endpoint, so the sign-in page (and no other) adds the provider's origin, taken from
``WIKI_OIDC_SERVER_URL``.
"""

import logging
from http import HTTPStatus
from urllib.parse import urlsplit

from allauth.account.views import login as allauth_login
from allauth.socialaccount.adapter import get_adapter
from allauth.socialaccount.helpers import render_authentication_error
from allauth.socialaccount.providers.openid_connect import views as openid_connect
from django.conf import settings
from requests import RequestException

__all__ = ["login", "provider_origins", "sso_login"]

logger = logging.getLogger(__name__)


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


def sso_login(request, provider_id):
    """Start a sign-in with the provider ``provider_id`` (allauth's ``openid_connect``
    view), or answer 502 with allauth's error page when the provider's discovery document
    cannot be fetched (the provider down, or its URL wrong): allauth lets that error through
    as a 500, where it catches the same error at the callback.

    Args:
        request: the POST of the sign-in page's "Sign in with ..." form.
        provider_id: the provider's id in the URL (``WIKI_OIDC_PROVIDER_ID``).

    Raises:
        Http404: no provider has that id (allauth's view).
    """
    try:
        return openid_connect.login(request, provider_id)
    except RequestException as error:
        provider = get_adapter().get_provider(request, provider_id)
        logger.warning("%s could not be reached: %s", provider.name, error)
        response = render_authentication_error(request, provider, exception=error)
        response.status_code = HTTPStatus.BAD_GATEWAY
        return response
