"""The Content-Security-Policy header, built once per process instead of for every response.

django-csp's ``CSPMiddleware`` (4.0) builds the policy from the settings for every response,
and twice: the enforced one and the report-only one, each from a copy of its settings. The
wiki's policy is the same for every page (``CONTENT_SECURITY_POLICY`` in
``wiki/settings.py``): no view changes it with django-csp's decorators, and no template
asks for a nonce. :class:`PolicyOnceMiddleware` gives a response the header django-csp
would, built by django-csp's own ``build_policy`` once per process; a response or request
that django-csp would treat apart (a decorator's policy, a nonce used) is left to
django-csp's middleware itself.
"""

import http.client
from functools import cache

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

__all__ = ["PER_RESPONSE", "PolicyOnceMiddleware", "policies"]

# What django-csp's decorators (csp_replace, csp_update, csp_override) set on a response to
# change its policy (csp.middleware.CSPMiddleware.get_policy_parts).
PER_RESPONSE = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)

# The status codes django-csp leaves without a policy with debug on, for Django's debug pages.
DEBUG_EXEMPT = (http.client.INTERNAL_SERVER_ERROR, http.client.NOT_FOUND)


@cache
def policies():
    """Return the headers the settings' policies give every response, built by django-csp.

    Returns:
        A tuple of ``(header, value, excluded path prefixes, exempting attribute)``, one
        for the enforced policy (``CONTENT_SECURITY_POLICY``) and one for the report-only
        policy (``CONTENT_SECURITY_POLICY_REPORT_ONLY``), each only when its setting gives
        a policy. Built once per process; again after the tests change either setting.
    """
    found = []
    for header, name, report_only, exempt in (
        (HEADER, "CONTENT_SECURITY_POLICY", False, "_csp_exempt"),
        (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", True, "_csp_exempt_ro"),
    ):
        value = build_policy(report_only=report_only)
        if value:
            prefixes = (getattr(settings, name, None) or {}).get("EXCLUDE_URL_PREFIXES")
            found.append((header, value, tuple(prefixes or ()), exempt))
    return tuple(found)


@receiver(setting_changed)
def forget_policies(setting, **kwargs):
    """Build the policies again once a test changes their settings (``setting_changed``)."""
    if setting in ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY"):
        policies.cache_clear()


class PolicyOnceMiddleware(CSPMiddleware):
    """django-csp's ``CSPMiddleware``, setting the policies :func:`policies` built once.

    Gives every response the headers django-csp's ``process_response`` gives it, by the same
    rules: none on a 404 or 500 with debug on, none where the response has one already,
    none on a response exempted by ``csp_exempt``, none under a path its setting's
    ``EXCLUDE_URL_PREFIXES`` excludes; and, as django-csp, makes ``request.csp_nonce`` an
    error afterwards. A response whose policy a decorator changed, or a request whose nonce
    was used, is handed to django-csp's ``process_response``, which builds its policy.
    """

    def process_response(self, request, response):
        """Return ``response`` with the Content-Security-Policy headers."""
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in PER_RESPONSE
        ):
            return super().process_response(request, response)
        if response.status_code in DEBUG_EXEMPT and settings.DEBUG:
            return response
        for header, value, excluded, exempt in policies():
            if (
                header not in response
                and getattr(response, exempt, False) is False
                and not request.path_info.startswith(excluded)
            ):
                response[header] = value
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
