"""The test OpenID provider's URLs: django-oauth-toolkit's under /o/ (its issuer is
``<server>/o``), and a sign-in page for its users."""

from django.contrib.auth.views import LoginView
from django.urls import include, path

urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("login/", LoginView.as_view(), name="login"),
]
