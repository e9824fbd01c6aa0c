"""The claims the test OpenID provider tells about a user (django-oauth-toolkit's
``OAuth2Validator.get_additional_claims``), with ``groups``, as an organisation's provider
would: the names of the user's groups at the provider."""

from oauth2_provider.oauth2_validators import OAuth2Validator

__all__ = ["ClaimsValidator"]


class ClaimsValidator(OAuth2Validator):
    """Tell the standard profile and e-mail claims and ``groups`` (with the profile scope)."""

    oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "groups": "profile"}

    def get_additional_claims(self, request):
        """Return the signed-in user's claims: names, e-mail address and groups.

        Args:
            request: oauthlib's request, its ``user`` the provider's user.
        """
        user = request.user
        return {
            "preferred_username": user.username,
            "name": user.get_full_name(),
            "given_name": user.first_name,
            "family_name": user.last_name,
            "email": user.email,
            "email_verified": True,
            "groups": sorted(user.groups.values_list("name", flat=True)),
        }
