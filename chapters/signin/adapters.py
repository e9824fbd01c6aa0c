"""The wiki's rules for django-allauth's flows (``ACCOUNT_ADAPTER``,
``SOCIALACCOUNT_ADAPTER`` in wiki/signin.py): who may make an account, and the roles set at
each SSO sign-in (``chapters.signin.roles``)."""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings

from .roles import sync_roles

__all__ = ["AccountAdapter", "SocialAccountAdapter", "claims_of"]


def claims_of(sociallogin):
    """Return the claims of an SSO sign-in: the ID token's payload and the userinfo answer,
    the latter's winning where both hold a claim (providers may put the groups in either).

    Args:
        sociallogin: allauth's ``SocialLogin`` of the sign-in; its account's ``extra_data``
            holds ``userinfo`` and ``id_token`` (allauth's ``openid_connect`` provider).

    Returns:
        A dict of claims, empty when the sign-in carried neither.
    """
    data = sociallogin.account.extra_data
    return {**(data.get("id_token") or {}), **(data.get("userinfo") or {})}


class AccountAdapter(DefaultAccountAdapter):
    """Local accounts: sign-up closed unless ``WIKI_SIGNUP_OPEN``."""

    def is_open_for_signup(self, request):
        """Return ``WIKI_SIGNUP_OPEN``: may anyone make a local account at
        ``/accounts/signup/``? Off by default: a wiki behind an organisation's accounts lets
        no stranger register; accounts are made in the admin or by signing in with SSO."""
        return settings.WIKI_SIGNUP_OPEN


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    """SSO: the provider's users may sign in, their account made at the first sign-in, and
    their roles set from the claim at each one."""

    def is_open_for_signup(self, request, sociallogin):
        """Return True: whoever the configured provider signs in gets an account, whether or
        not local sign-up is open (the provider is the organisation's own)."""
        return True

    def pre_social_login(self, request, sociallogin):
        """Set the roles of a returning user (one whose account exists) from their claims,
        before they are signed in."""
        if sociallogin.is_existing:
            sync_roles(sociallogin.user, claims_of(sociallogin))

    def save_user(self, request, sociallogin, form=None):
        """Store a new user, as allauth does (no usable password), then set their roles.

        Returns:
            The stored user.
        """
        user = super().save_user(request, sociallogin, form)
        sync_roles(user, claims_of(sociallogin))
        return user
