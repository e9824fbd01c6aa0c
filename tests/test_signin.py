"""The site's sign-in page (chapters/signin/, templates/account/login.html): local accounts,
staff or not, under the sign-in lockout; the SSO button only when configured; sign-up closed
unless opened; signing out."""

import pytest
from django.contrib.auth import get_user_model

from tests.helpers import role_user, soup
from tests.oidc_provider import free_port
from tests.test_security import POLICY, policy

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
LOCKED = (
    "Too many failed sign-ins from your address. Signing in from it is locked for 15 minutes; "
    "try again after that."
)
SSO_APP = {
    "provider_id": "corp",
    "name": "Example Org",
    "client_id": "wiki",
    "secret": "s3cret",
    "settings": {"server_url": "https://id.example.org", "oauth_pkce_enabled": True},
}


@pytest.fixture
def reader():
    """A local account that is no staff: a reader who watches pages and makes API tokens."""
    return get_user_model().objects.create_user("rita", "rita@example.com", "a long passphrase")


def sign_in(client, username, password, next_url="", address="127.0.0.1"):
    """Post the sign-in form; return the response."""
    data = {"login": username, "password": password}
    if next_url:
        data["next"] = next_url
    return client.post(LOGIN, data, REMOTE_ADDR=address)


def test_sign_in_page_is_the_sites_form_without_sso_when_none_is_configured(client):
    page = soup(client.get(f"{LOGIN}?next=/area-a/"))
    assert page.title.text == "Sign in · Curriculum Wiki"
    assert [form["action"] for form in page.select("main form")] == [LOGIN]
    form = page.select_one(".sign-in-form")
    assert [(field["name"], field["type"]) for field in form.select("input")] == [
        ("csrfmiddlewaretoken", "hidden"),
        ("login", "text"),
        ("password", "password"),
        ("next", "hidden"),
    ]
    assert form.select_one("input[name=next]")["value"] == "/area-a/"
    assert page.select(".site-header .sign-in, .footer-sign-in") == []  # no link to itself
    assert page.select(".sign-in-sso") == []


def test_sign_in_page_offers_the_configured_provider_first(client, settings):
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": [SSO_APP]}}
    page = soup(client.get(f"{LOGIN}?next=/area-a/"))
    sso = page.select(".sign-in-sso")
    assert [(form["action"], form.button.text) for form in sso] == [
        ("/accounts/oidc/corp/login/?next=%2Farea-a%2F", "Sign in with Example Org")
    ]
    assert page.select_one(".sign-in-form h2").text == "With a local account"


def test_sign_in_page_lets_its_forms_reach_the_provider_and_other_pages_do_not(
    client, settings, small_tree
):
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": [SSO_APP]}}
    assert policy(client.get(LOGIN)) == {**POLICY, "form-action": "'self' https://id.example.org"}
    assert policy(client.get("/area-a/")) == POLICY
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": []}}
    assert policy(client.get(LOGIN)) == POLICY


def test_admin_sign_in_links_to_the_sites_page_only_with_sso(client, settings):
    assert soup(client.get("/admin/login/?next=/admin/")).select(".sso-sign-in") == []
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": [SSO_APP]}}
    links = soup(client.get("/admin/login/?next=/admin/")).select(".sso-sign-in a")
    assert [(a.text, a["href"]) for a in links] == [
        ("Sign in with Example Org", f"{LOGIN}?next=/admin/")
    ]


def test_sso_with_the_provider_unreachable_says_so_and_offers_the_page_again(
    client, settings, caplog
):
    app = {**SSO_APP, "settings": {"server_url": f"http://127.0.0.1:{free_port()}"}}
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": [app]}}
    response = client.post("/accounts/oidc/corp/login/?next=/area-a/")
    page = soup(response)
    assert (response.status_code, page.h1.text, page.select_one("main p a")["href"]) == (
        502,
        "Signing in with Example Org failed",
        LOGIN,
    )
    warnings = [r.getMessage() for r in caplog.records if r.name == "chapters.signin.views"]
    assert [warning.split(":")[0] for warning in warnings] == ["Example Org could not be reached"]


def test_a_reader_who_is_no_staff_signs_in_on_the_site(client, reader):
    response = sign_in(client, "rita", "a long passphrase", next_url="/api/tokens/")
    assert (response.status_code, response["Location"]) == (302, "/api/tokens/")
    assert client.get("/api/tokens/").status_code == 200


def test_token_page_sends_anonymous_users_to_the_sites_sign_in(client, reader):
    response = client.get("/api/tokens/")
    assert (response.status_code, response["Location"]) == (302, f"{LOGIN}?next=/api/tokens/")
    signed_in = sign_in(client, "rita", "a long passphrase", next_url="/api/tokens/")
    assert signed_in["Location"] == "/api/tokens/"


def test_an_editor_signs_in_and_opens_the_editor(client, small_tree):
    role_user("ed", "Editor", password="editor passphrase")
    url = "/edit/area-a/section-a1/chapter-one/"
    assert client.get(url)["Location"] == f"{LOGIN}?next={url}"
    assert sign_in(client, "ed", "editor passphrase", next_url=url)["Location"] == url
    assert client.get(url).status_code == 200


def test_wrong_password_says_so_and_signs_no_one_in(client, reader):
    response = sign_in(client, "rita", "wrong")
    errors = [p.text for p in soup(response).select(".sign-in-errors p")]
    assert (response.status_code, errors) == (
        200,
        ["The username and/or password you specified are not correct."],
    )
    assert "_auth_user_id" not in client.session


def test_sign_in_locks_an_address_out_after_five_failures(client, reader):
    for _ in range(4):
        assert sign_in(client, "rita", "wrong").status_code == 200
    locked = sign_in(client, "rita", "wrong")
    page = soup(locked)
    assert (locked.status_code, page.title.text, page.select_one(".sign-in-locked").text) == (
        429,
        "Sign-in locked · Curriculum Wiki",
        LOCKED,
    )
    right = sign_in(client, "rita", "a long passphrase")  # even the right password
    assert (right.status_code, "_auth_user_id" in client.session) == (429, False)
    elsewhere = sign_in(client, "rita", "a long passphrase", address="198.51.100.2")
    assert (elsewhere.status_code, elsewhere["Location"]) == (302, "/")


def test_sign_out_from_the_header_returns_to_the_page(client, small_tree, reader):
    client.force_login(reader)
    page = soup(client.get("/area-a/"))
    form = page.select_one(".site-header form.sign-out")
    assert (form["action"], form.select_one("input[name=next]")["value"]) == (
        "/accounts/logout/",
        "/area-a/",
    )
    response = client.post("/accounts/logout/", {"next": "/area-a/"})
    assert (response.status_code, response["Location"]) == (302, "/area-a/")
    assert "_auth_user_id" not in client.session


def test_header_and_footer_link_to_the_sites_sign_in(client, small_tree):
    page = soup(client.get("/area-a/"))
    links = [a["href"] for a in page.select(".site-header .sign-in, .footer-sign-in")]
    assert links == [f"{LOGIN}?next=/area-a/", f"{LOGIN}?next=/area-a/"]


def test_sign_up_is_closed_by_default(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "eve", "password1": "a long passphrase", "password2": "a long passphrase"},
    )
    assert (response.status_code, soup(response).h1.text.strip()) == (200, "Sign Up Closed")
    assert not get_user_model().objects.filter(username="eve").exists()


def test_sign_up_opens_by_setting(client, settings):
    settings.WIKI_SIGNUP_OPEN = True
    response = client.post(
        "/accounts/signup/",
        {"username": "eve", "password1": "a long passphrase", "password2": "a long passphrase"},
    )
    assert (response.status_code, response["Location"]) == (302, "/")
    eve = get_user_model().objects.get(username="eve")
    assert (eve.is_staff, list(eve.groups.all())) == (False, [])


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/password/reset/",
        "/accounts/password/set/",
        "/accounts/email/",
        "/accounts/3rdparty/",
    ],
)
def test_allauths_password_and_email_pages_are_not_served(client, path):
    assert client.get(path).status_code == 404


def test_admin_lists_social_accounts_but_not_allauths_applications_or_tokens(client, admin_user):
    client.force_login(admin_user)
    page = soup(client.get("/admin/"))
    models = [a.text for a in page.select("#content-main .app-socialaccount th a")]
    assert models == ["Social accounts"]
    assert client.get("/admin/socialaccount/socialapp/").status_code == 404
