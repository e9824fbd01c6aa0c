"""The admin's pages of django-allauth's models, as the wiki uses them.

The OpenID provider is configured by the environment (``WIKI_OIDC_*``, wiki/signin.py), so
allauth's "Social applications" page is taken away: an application stored there beside the
configured one would make allauth find two for the provider and fail every SSO sign-in. Its
tokens are never stored (``SOCIALACCOUNT_STORE_TOKENS`` is off), so their page goes too.
"Social accounts" stays: which users sign in through the provider, and by which subject.
"""

from allauth.socialaccount.models import SocialApp, SocialToken
from django.contrib import admin

admin.site.unregister(SocialApp)
admin.site.unregister(SocialToken)
