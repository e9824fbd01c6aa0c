"""Signing in: the site's sign-in page, local accounts and single sign-on (SSO).

The sign-in page is django-allauth's login view at ``/accounts/login/`` (``LOGIN_URL``,
wiki/signin.py), in the site's own layout (``templates/account/login.html``): a username
and password form for local accounts, and "Sign in with <provider>" when an OpenID
provider is configured. Every page that needs a signed-in user sends people there, and
any active user may sign in, staff or not (the admin's own sign-in takes staff only).

- **Local accounts** are checked by ``authenticate()`` with the request, so the sign-in
  lockout (django-axes, wiki/settings.py) counts failures here as in the admin, and its
  middleware answers a locked-out address with the lockout page.
- **Single sign-on** is allauth's ``openid_connect`` provider: the authorization code flow
  with PKCE, the provider found by its discovery document. The first sign-in makes the
  user's account (``adapters.SocialAccountAdapter``); later ones find it by the provider's
  subject (``sub``), never by e-mail address, so an account at the provider cannot take
  over a local account with the same address.
- **Roles** follow the provider's groups claim at every SSO sign-in when
  ``WIKI_OIDC_GROUPS`` maps groups to roles (``roles.sync_roles``).
- **Sign-up** of local accounts is closed unless ``WIKI_SIGNUP_OPEN`` is on
  (``adapters.AccountAdapter``).

``urls.py`` serves only the pages these need (sign in and out, sign-up, SSO's own), not
allauth's password reset, e-mail or account connection pages: an SSO user never gets a
local password that would outlive their account at the provider.
"""
