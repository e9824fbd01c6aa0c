"""Single sign-on (chapters/signin/, wiki/signin.py): the role mapping, with exact group
sets, and the OpenID Connect round trip against a real provider on localhost
(tests/oidc_provider/), with Django's test client as the wiki's browser and requests as the
provider's."""

import importlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from allauth.socialaccount.models import SocialAccount, SocialLogin
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured

from chapters.signin.adapters import claims_of
from chapters.signin.roles import claimed_groups, roles_for, sync_roles
from tests.conftest import ADA
from tests.helpers import soup
from tests.oidc_provider import PROVIDER_ID
from wiki.signin import openid_connect_apps, role_map

pytestmark = pytest.mark.django_db

MAPPING = "wiki-editors=Editor,wiki-reviewers=Reviewer,wiki-admins=Admin"
EDIT = "/edit/area-a/section-a1/chapter-one/"


@pytest.fixture
def roles(settings):
    """The groups of migration 0013_roles and one other group; the mapping set."""
    importlib.import_module("chapters.migrations.0013_roles").create_roles(apps, None)
    Group.objects.create(name="Translators")
    settings.WIKI_OIDC_GROUPS = role_map(MAPPING)
    settings.WIKI_OIDC_GROUPS_CLAIM = "groups"


def groups_of(user):
    return sorted(user.groups.values_list("name", flat=True))


def test_role_map_reads_pairs_and_gives_a_group_several_roles():
    assert role_map(" a=Editor, b=Reviewer,,a=Admin ") == {
        "a": frozenset({"Editor", "Admin"}),
        "b": frozenset({"Reviewer"}),
    }
    assert role_map("") == {}


@pytest.mark.parametrize("text", ["wiki-editors", "=Editor", "wiki-editors=Owner"])
def test_role_map_refuses_what_is_no_pair_with_a_role(text):
    with pytest.raises(ImproperlyConfigured, match="WIKI_OIDC_GROUPS"):
        role_map(text)


def test_openid_connect_apps_needs_a_server_and_a_client():
    assert openid_connect_apps({"WIKI_OIDC_SERVER_URL": "https://id.example.org"}) == []
    assert openid_connect_apps(
        {"WIKI_OIDC_SERVER_URL": "https://id.example.org", "WIKI_OIDC_CLIENT_ID": "wiki"}
    ) == [
        {
            "provider_id": "sso",
            "name": "single sign-on",
            "client_id": "wiki",
            "secret": "",
            "settings": {"server_url": "https://id.example.org", "oauth_pkce_enabled": True},
        }
    ]


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        ({"groups": ["wiki-editors", "canteen", 7]}, {"wiki-editors", "canteen"}),
        ({"groups": "wiki-admins"}, {"wiki-admins"}),
        ({"groups": None}, set()),
        ({}, set()),
    ],
)
def test_claimed_groups_takes_a_list_or_one_string(claims, expected):
    assert claimed_groups(claims, "groups") == expected


def test_claims_of_a_sign_in_take_the_id_token_and_the_userinfo_first():
    data = {
        "id_token": {"sub": "7", "groups": ["wiki-admins"], "iss": "https://id.example.org"},
        "userinfo": {"sub": "7", "email": "ada@example.org"},
    }
    login = SocialLogin(account=SocialAccount(extra_data=data))
    assert claims_of(login) == {
        "sub": "7",
        "groups": ["wiki-admins"],
        "iss": "https://id.example.org",
        "email": "ada@example.org",
    }
    data["userinfo"]["groups"] = ["wiki-editors"]
    assert claims_of(login)["groups"] == ["wiki-editors"]
    assert claims_of(SocialLogin(account=SocialAccount(extra_data={}))) == {}


def test_roles_for_unites_the_roles_of_every_claimed_group():
    mapping = role_map(MAPPING)
    assert roles_for({"wiki-editors", "wiki-admins", "canteen"}, mapping) == {"Editor", "Admin"}
    assert roles_for({"canteen"}, mapping) == set()


def test_sync_roles_adds_the_claimed_roles_and_staff_status(roles):
    user = get_user_model().objects.create_user("ada")
    user.groups.add(Group.objects.get(name="Translators"))
    assert sync_roles(user, {"groups": ["wiki-editors", "wiki-reviewers"]}) == {
        "Editor",
        "Reviewer",
    }
    user.refresh_from_db()
    assert (groups_of(user), user.is_staff) == (["Editor", "Reviewer", "Translators"], True)


def test_sync_roles_takes_away_roles_no_longer_claimed_and_leaves_other_groups(roles):
    user = get_user_model().objects.create_user("ada", is_staff=True)
    user.groups.add(*Group.objects.filter(name__in=["Editor", "Admin", "Translators"]))
    assert sync_roles(user, {"groups": ["wiki-admins"]}) == {"Admin"}
    user.refresh_from_db()
    assert (groups_of(user), user.is_staff) == (["Admin", "Translators"], True)
    assert sync_roles(user, {"groups": ["canteen"]}) == set()
    user.refresh_from_db()
    assert (groups_of(user), user.is_staff) == (["Translators"], False)


def test_sync_roles_leaves_a_superuser_staff(roles):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    sync_roles(user, {})
    user.refresh_from_db()
    assert (groups_of(user), user.is_staff, user.is_superuser) == ([], True, True)


def test_sync_roles_reads_the_configured_claim(roles, settings):
    settings.WIKI_OIDC_GROUPS_CLAIM = "roles"
    user = get_user_model().objects.create_user("ada")
    sync_roles(user, {"roles": ["wiki-reviewers"], "groups": ["wiki-admins"]})
    assert groups_of(user) == ["Reviewer"]


def test_sync_roles_does_nothing_without_a_mapping(roles, settings):
    settings.WIKI_OIDC_GROUPS = {}
    user = get_user_model().objects.create_user("ada", is_staff=True)
    user.groups.add(Group.objects.get(name="Admin"))
    assert sync_roles(user, {"groups": []}) is None
    user.refresh_from_db()
    assert (groups_of(user), user.is_staff) == (["Admin"], True)


def sso_sign_in(client, provider, next_url):
    """Sign in on the wiki through the provider, as a browser would; return the wiki's last
    response (the redirect after signing in).

    The wiki's pages go through Django's test client (``http://testserver``); the
    provider's, its sign-in form and its consent, through requests, over HTTP.
    """
    start = client.post(f"/accounts/oidc/{PROVIDER_ID}/login/?next={next_url}")
    assert (start.status_code, start["Location"].split("?")[0]) == (
        302,
        f"{provider.issuer}/authorize/",
    )
    with requests.Session() as browser:
        sign_in = browser.get(start["Location"], timeout=30)
        assert sign_in.url.startswith(f"{provider.url}/login/?next=")
        form = soup(sign_in).form
        consent = browser.post(
            sign_in.url,
            {
                "csrfmiddlewaretoken": form.select_one("[name=csrfmiddlewaretoken]")["value"],
                "username": ADA[0],
                "password": ADA[1],
                "next": form.select_one("[name=next]")["value"],
            },
            timeout=30,
        )
        page = soup(consent)
        assert page.h3.text == "Authorize Curriculum wiki?"
        fields = {
            field["name"]: field.get("value", "")
            for field in page.select("form input[type=hidden]")
        }
        fields["allow"] = "Authorize"
        answer = browser.post(consent.url, fields, allow_redirects=False, timeout=30)
    callback = answer.headers["Location"]
    prefix = f"http://testserver/accounts/oidc/{PROVIDER_ID}/login/callback/?"
    assert callback.startswith(prefix)
    return client.get(callback.removeprefix("http://testserver"))


def test_sso_sign_in_gives_the_provider_the_redirect_uri_in_https_on_an_https_site(
    client, settings, oidc_provider
):
    oidc_provider.configure_wiki(settings, "https://testserver")
    start = client.post(f"/accounts/oidc/{PROVIDER_ID}/login/")
    query = parse_qs(urlsplit(start["Location"]).query)
    assert query["redirect_uri"] == ["http://testserver/accounts/oidc/test-idp/login/callback/"]
    settings.ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"
    start = client.post(f"/accounts/oidc/{PROVIDER_ID}/login/")
    query = parse_qs(urlsplit(start["Location"]).query)
    assert query["redirect_uri"] == ["https://testserver/accounts/oidc/test-idp/login/callback/"]
    scopes = sorted(query["scope"][0].split())  # allauth joins a set: any order
    assert (query["code_challenge_method"], scopes) == (["S256"], ["email", "openid", "profile"])


def test_sso_round_trip_makes_an_editor_who_can_edit(client, small_tree, settings, oidc_provider):
    oidc_provider.configure_wiki(settings, "http://testserver")
    assert client.get(EDIT)["Location"] == f"/accounts/login/?next={EDIT}"
    done = sso_sign_in(client, oidc_provider, EDIT)
    assert (done.status_code, done["Location"]) == (302, EDIT)
    ada = get_user_model().objects.get(username="ada")
    assert (ada.email, ada.get_full_name(), ada.is_staff, ada.is_superuser) == (
        "ada@example.org",
        "Ada Lovelace",
        True,
        False,
    )
    assert (groups_of(ada), ada.has_usable_password()) == (["Editor"], False)
    assert client.get(EDIT).status_code == 200


def test_sso_sign_in_again_sets_the_roles_from_the_claim_again(
    client, small_tree, settings, oidc_provider
):
    oidc_provider.configure_wiki(settings, "http://testserver")
    sso_sign_in(client, oidc_provider, "/")
    ada = get_user_model().objects.get(username="ada")
    Group.objects.create(name="Translators")
    ada.groups.add(*Group.objects.filter(name__in=["Admin", "Translators"]))
    get_user_model().objects.filter(pk=ada.pk).update(is_staff=False)
    client.post("/accounts/logout/")
    assert sso_sign_in(client, oidc_provider, "/area-a/")["Location"] == "/area-a/"
    assert get_user_model().objects.filter(username="ada").count() == 1
    assert groups_of(ada) == ["Editor", "Translators"]
    assert get_user_model().objects.get(pk=ada.pk).is_staff
