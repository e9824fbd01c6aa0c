"""API tokens (chapters/models/tokens.py, chapters/api/authentication.py, chapters/api/tokens.py):
stored hashed, shown once, scoped, revocable; the session with CSRF."""

import hashlib

import pytest
from django.test import Client

from chapters.models import ApiToken
from tests.helpers import role_user, soup

pytestmark = pytest.mark.django_db

REFUSED = {"detail": "This token is unknown or has been revoked.", "code": "authentication_failed"}


def bearer(secret):
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_token_is_stored_as_its_sha256_only():
    user = role_user("ed", "Editor")
    token, secret = ApiToken.issue(user, "CI", "read")
    assert secret.startswith("wiki_")
    assert len(secret) == 5 + 43  # 32 bytes in URL-safe base64
    stored = ApiToken.objects.get()
    assert stored.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert stored.hint == secret[:12]
    assert secret not in str(ApiToken.objects.values().get())
    assert (stored.name, stored.scope, stored.user, stored.revoked) == ("CI", "read", user, None)


def test_token_page_sends_anonymous_users_to_sign_in(client):
    response = client.get("/api/tokens/")
    assert (response.status_code, response["Location"]) == (
        302,
        "/accounts/login/?next=/api/tokens/",
    )


def test_token_page_makes_a_token_and_shows_its_secret_once(client, small_tree):
    user = role_user("ed", "Editor")
    client.force_login(user)
    assert soup(client.get("/api/tokens/")).select_one(".tokens") is None
    made = client.post("/api/tokens/", {"name": "My script", "scope": "write"})
    assert made.status_code == 200
    secret = soup(made).select_one("#token-secret").text
    token = ApiToken.objects.get()
    assert (token.user, token.name, token.scope, token.hint) == (
        user,
        "My script",
        "write",
        secret[:12],
    )
    listed = client.get("/api/tokens/")
    assert secret not in listed.content.decode()
    rows = [
        [td.text.strip() for td in tr.select("td")[:5]] for tr in soup(listed).select("tbody tr")
    ]
    assert rows == [["My script", "Read and write", secret[:12], rows[0][3], "never"]]
    client.logout()
    assert client.get("/api/pages/3/", **bearer(secret)).status_code == 200
    assert ApiToken.objects.get().last_used is not None


def test_token_page_refuses_a_token_without_a_name(client):
    client.force_login(role_user("ed", "Editor"))
    response = client.post("/api/tokens/", {"name": "", "scope": "read"})
    assert soup(response).select_one("#token-secret") is None
    assert soup(response).select_one(".errorlist").text == "This field is required."
    assert ApiToken.objects.count() == 0


def test_revoked_token_is_refused(client, small_tree):
    user = role_user("ed", "Editor")
    token, secret = ApiToken.issue(user, "CI", "write")
    client.force_login(user)
    response = client.post(f"/api/tokens/{token.pk}/revoke/")
    assert (response.status_code, response["Location"]) == (302, "/api/tokens/")
    assert ApiToken.objects.get().revoked is not None
    client.logout()
    refused = client.get("/api/pages/3/", **bearer(secret))
    assert (refused.status_code, refused.json(), refused["WWW-Authenticate"]) == (
        401,
        REFUSED,
        "Bearer",
    )


def test_users_cannot_revoke_each_others_tokens(client):
    token, _ = ApiToken.issue(role_user("ed", "Editor"), "CI", "read")
    client.force_login(role_user("other", "Editor"))
    assert client.post(f"/api/tokens/{token.pk}/revoke/").status_code == 404
    assert ApiToken.objects.get().revoked is None


def test_revoking_needs_the_csrf_token():
    user = role_user("ed", "Editor")
    token, _ = ApiToken.issue(user, "CI", "read")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(f"/api/tokens/{token.pk}/revoke/").status_code == 403
    assert ApiToken.objects.get().revoked is None


def test_unknown_and_malformed_tokens_and_inactive_users_are_refused(client, small_tree):
    assert client.get("/api/tree/", **bearer("wiki_nothing")).json() == REFUSED
    malformed = client.get("/api/tree/", HTTP_AUTHORIZATION="Bearer two words")
    assert (malformed.status_code, malformed.json()) == (
        401,
        {
            "detail": "The Authorization header must be 'Bearer <token>', one token without "
            "spaces.",
            "code": "authentication_failed",
        },
    )
    user = role_user("ed", "Editor", is_active=False)
    _, secret = ApiToken.issue(user, "CI", "read")
    assert client.get("/api/tree/", **bearer(secret)).json() == REFUSED


def test_read_token_is_refused_unsafe_methods(client, small_tree):
    _, read = ApiToken.issue(role_user("ed", "Editor"), "CI", "read")
    _, write = ApiToken.issue(role_user("ed2", "Editor"), "CI", "write")
    refused = client.post("/api/tree/", {}, content_type="application/json", **bearer(read))
    assert (refused.status_code, refused.json()) == (
        403,
        {
            "detail": "This token may only read: make a token with the scope 'write' to "
            "change pages.",
            "code": "permission_denied",
        },
    )
    allowed = client.post("/api/tree/", {}, content_type="application/json", **bearer(write))
    assert (allowed.status_code, allowed.json()) == (
        405,
        {"detail": 'Method "POST" not allowed.', "code": "method_not_allowed"},
    )


def test_session_writes_need_the_csrf_token(small_tree):
    client = Client(enforce_csrf_checks=True)
    client.force_login(role_user("ed", "Editor"))
    assert client.get("/api/tree/").status_code == 200
    refused = client.post("/api/tree/", {}, content_type="application/json")
    assert (refused.status_code, refused.json()) == (
        403,
        {"detail": "CSRF Failed: CSRF cookie not set.", "code": "permission_denied"},
    )


def test_admin_lists_tokens_and_revokes_them_but_makes_none(admin_client):
    token, secret = ApiToken.issue(role_user("ed", "Editor"), "CI", "read")
    listing = admin_client.get("/admin/chapters/apitoken/")
    assert listing.status_code == 200
    assert secret not in listing.content.decode()
    assert admin_client.get("/admin/chapters/apitoken/add/").status_code == 403
    admin_client.post(
        "/admin/chapters/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    assert ApiToken.objects.get().revoked is not None
