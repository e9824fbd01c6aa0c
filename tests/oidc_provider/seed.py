"""Add a user or a client to the test OpenID provider's database (tests/oidc_provider/), run
in the provider's settings by ``tests.oidc_provider.Provider``::

    python -m tests.oidc_provider.seed user <username> <password> <email> [<group> ...]
    python -m tests.oidc_provider.seed client <client id> <secret> <redirect URI>
"""

import sys

import django

__all__ = ["add_client", "add_user"]


def add_user(username, password, email, *groups):
    """Make a user of the provider, named Ada Lovelace, in ``groups`` (made as needed)."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(
        username, email, password, first_name="Ada", last_name="Lovelace"
    )
    user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in groups))


def add_client(client_id, secret, redirect_uri):
    """Register a confidential client of the authorization code flow, its ID tokens signed
    with the provider's RSA key (RS256); the user is asked to consent."""
    from oauth2_provider.models import Application

    Application.objects.create(
        name="Curriculum wiki",
        client_id=client_id,
        client_secret=secret,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=redirect_uri,
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=False,
    )


if __name__ == "__main__":
    django.setup()
    {"user": add_user, "client": add_client}[sys.argv[1]](*sys.argv[2:])
