"""The sign-in pages under /accounts/ (chapters.signin): only those the wiki uses of
django-allauth's, with their names (``account_login``, ...), as allauth's own templates and
views reverse them."""

from allauth.account import views as account
from allauth.socialaccount import views as social
from django.urls import include, path

from . import views

urlpatterns = [
    path("login/", views.login, name="account_login"),
    path("logout/", account.logout, name="account_logout"),
    path("inactive/", account.account_inactive, name="account_inactive"),
    path("signup/", account.signup, name="account_signup"),
    path("3rdparty/login/cancelled/", social.login_cancelled, name="socialaccount_login_cancelled"),
    path("3rdparty/login/error/", social.login_error, name="socialaccount_login_error"),
    # The form an SSO user fills in when the provider's details cannot make an account at
    # once (a username or e-mail address already taken by another account).
    path("3rdparty/signup/", social.signup, name="socialaccount_signup"),
    # oidc/<provider id>/login/ and its callback/ (the redirect URI): the provider's URLs
    # carry allauth's prefix "oidc" (SOCIALACCOUNT_OPENID_CONNECT_URL_PREFIX).
    path("", include("allauth.socialaccount.providers.openid_connect.urls")),
]
