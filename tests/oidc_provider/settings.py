"""Settings of the test OpenID provider (tests/oidc_provider/): a Django project of its own,
django-oauth-toolkit with OpenID Connect on, its database a SQLite file in the folder
``OIDC_PROVIDER_DIR`` names, its signing key the PEM file there (both made by
``tests.oidc_provider.start``)."""

import os
from pathlib import Path

FOLDER = Path(os.environ["OIDC_PROVIDER_DIR"])

DEBUG = False
SECRET_KEY = "tests-only-oidc-provider"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "tests.oidc_provider.urls"
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [Path(__file__).parent / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ]
        },
    }
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": FOLDER / "db.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGIN_URL = "/login/"

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": (FOLDER / "key.pem").read_text(),
    "PKCE_REQUIRED": True,
    "SCOPES": {
        "openid": "Sign you in",
        "profile": "Your name, username and groups",
        "email": "Your e-mail address",
    },
    "OAUTH2_VALIDATOR_CLASS": "tests.oidc_provider.validator.ClaimsValidator",
}
