"""Security: the headers of every response, the production checks, the admin login lockout."""

import datetime
import os
import re
import subprocess
import sys

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import RequestFactory

from wiki.proxy import client_ip

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
SECURITY_HEADERS = [
    "X-Content-Type-Options",
    "Referrer-Policy",
    "X-Frame-Options",
    "Cross-Origin-Opener-Policy",
    "Strict-Transport-Security",
]
LOGIN = "/admin/login/?next=/admin/"
LOCKED = (
    "Too many failed sign-ins from your address. Signing in from it is locked for 15 minutes; "
    "try again after that."
)


def policy(response):
    """Return a response's Content-Security-Policy as a dict of directive to sources."""
    parts = response["Content-Security-Policy"].split(";")
    return dict(part.strip().split(" ", 1) for part in parts)


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/area-a/section-a1/chapter-one/", "/search/?q=x", LOGIN])
def test_pages_send_security_headers(client, small_tree, url):
    response = client.get(url)
    assert response.status_code == 200
    assert policy(response) == POLICY
    assert {name: response.headers.get(name) for name in SECURITY_HEADERS} == {
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Strict-Transport-Security": None,  # only over HTTPS
    }


@pytest.mark.django_db
def test_https_settings_redirect_and_send_hsts_and_secure_cookies(client, small_tree, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True
    settings.CSRF_COOKIE_SECURE = True
    response = client.get("/admin/login/")
    assert (response.status_code, response["Location"]) == (301, "https://testserver/admin/login/")
    response = client.get("/admin/login/", secure=True)
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert response.cookies["csrftoken"]["secure"] is True


def run_manage(*args, **env):
    """Run manage.py with only ``env`` for settings; return the finished process."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


# What an operator sets in production (see docs/operations.md): a long random key, HTTPS, a host.
PRODUCTION = {
    "DJANGO_SECRET_KEY": "q8#vN2!xk7$Lr0p@Wm5^tY3&zB9*cD1(eF6)gH4_jK8+lM2=nP7-sR0~uV5",
    "DJANGO_HTTPS": "1",
    "DJANGO_ALLOWED_HOSTS": "wiki.example.org",
}


def test_check_deploy_is_clean_with_production_settings():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "System check identified no issues (0 silenced).\n",
        "",
    )


def test_check_deploy_without_https_names_the_https_settings():
    env = {**PRODUCTION, "DJANGO_HTTPS": ""}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode == 1
    assert sorted(set(re.findall(r"\(security\.(W\d+)\)", result.stderr))) == [
        "W004",  # SECURE_HSTS_SECONDS
        "W008",  # SECURE_SSL_REDIRECT
        "W012",  # SESSION_COOKIE_SECURE
        "W016",  # CSRF_COOKIE_SECURE
    ]


def fail_login(client, times, address="127.0.0.1"):
    """Post a wrong password ``times`` times from ``address``; return the last response."""
    for _ in range(times):
        response = client.post(
            LOGIN, {"username": "admin", "password": "wrong"}, REMOTE_ADDR=address
        )
    return response


def sign_in(client, address="127.0.0.1"):
    """Post the right password from ``address``; return the response."""
    return client.post(LOGIN, {"username": "admin", "password": "password"}, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_admin_login_refuses_an_address_after_five_failures(client, admin_user):
    response = fail_login(client, 4)
    assert response.status_code == 200
    assert "Please enter the correct username and password" in response.content.decode()
    response = fail_login(client, 1)
    assert response.status_code == 429
    assert LOCKED in response.content.decode()
    response = sign_in(client)  # even the right password, while locked
    assert (response.status_code, "_auth_user_id" in client.session) == (429, False)


@pytest.mark.django_db
def test_admin_login_lockout_is_per_address(client, admin_user):
    fail_login(client, 5, address="203.0.113.7")
    response = sign_in(client, address="198.51.100.2")
    assert (response.status_code, response["Location"]) == (302, "/admin/")


@pytest.mark.django_db
def test_admin_login_lockout_ends_after_fifteen_minutes(client, admin_user):
    fail_login(client, 5)
    AccessAttempt.objects.update(
        attempt_time=datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=15, seconds=1)
    )
    response = sign_in(client)
    assert (response.status_code, response["Location"]) == (302, "/admin/")


@pytest.mark.django_db
def test_admin_login_success_resets_the_count(client, admin_user):
    fail_login(client, 4)
    assert sign_in(client).status_code == 302
    client.logout()
    assert fail_login(client, 4).status_code == 200


@pytest.mark.parametrize(
    ("forwarded", "expected"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("10.9.9.9, 203.0.113.7", "203.0.113.7"),  # the first is the client's word only
        ("", "127.0.0.1"),
    ],
)
def test_client_ip_behind_a_proxy_is_the_address_the_proxy_saw(forwarded, expected):
    request = RequestFactory().get("/", HTTP_X_FORWARDED_FOR=forwarded, REMOTE_ADDR="127.0.0.1")
    assert client_ip(request) == expected
