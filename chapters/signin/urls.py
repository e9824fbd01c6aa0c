"""The sign-in pages under /accounts/ (chapters.signin): only those the wiki uses of
django-allauth's, with their names (``account_login``, ...), as allauth's own templates and
views reverse them."""

from allauth.account import views as account
from allauth.socialaccount import views as social
from allauth.socialaccount.providers.openid_connect import views as openid_connect
from django.urls import path

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
    # The start of an SSO sign-in and its callback (the redirect URI), at the paths and
    # names of allauth's openid_connect provider (its prefix "oidc").
    path("oidc/<str:provider_id>/login/", views.sso_login, name="openid_connect_login"),
    path(
        "oidc/<str:provider_id>/login/callback/",
        openid_connect.callback,
        name="openid_connect_callback",
    ),
]
