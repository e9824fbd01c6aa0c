"""Every URL reverses to the path it is served at, and resolves to its view."""

import re

import pytest
from allauth.account import views as account_views
from allauth.socialaccount.providers.openid_connect import views as oidc_views
from django.urls import resolve, reverse

from chapters import crawlers, health, views
from chapters import urls as chapters_urls
from chapters.models import RESERVED_ROOT_SLUGS
from chapters.signin import views as signin_views


@pytest.mark.parametrize(
    ("name", "kwargs", "path", "view"),
    [
        ("chapters:home", {}, "/", views.home),
        ("chapters:search", {}, "/search/", views.search_results),
        ("chapters:robots", {}, "/robots.txt", crawlers.robots_txt),
        ("chapters:sitemap", {}, "/sitemap.xml", crawlers.sitemap_xml),
        (
            "chapters:sitemap-section",
            {"section": "nodes"},
            "/sitemap-nodes.xml",
            crawlers.sitemap_section,
        ),
        ("chapters:healthz", {}, "/healthz", health.healthz),
        ("account_login", {}, "/accounts/login/", signin_views.login),
        ("account_logout", {}, "/accounts/logout/", account_views.logout),
        (
            "openid_connect_login",
            {"provider_id": "sso"},
            "/accounts/oidc/sso/login/",
            signin_views.sso_login,
        ),
        (
            "openid_connect_callback",
            {"provider_id": "sso"},
            "/accounts/oidc/sso/login/callback/",
            oidc_views.callback,
        ),
        ("chapters:node", {"path": "ml-systems"}, "/ml-systems/", views.node_detail),
        (
            "chapters:node",
            {"path": "ml-systems/ml-compilers/graph-optimization-and-kernel-fusion"},
            "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/",
            views.node_detail,
        ),
    ],
)
def test_url_reverses_and_resolves(name, kwargs, path, view):
    assert reverse(name, kwargs=kwargs) == path
    match = resolve(path)
    assert (match.func, match.kwargs) == (view, kwargs)


def test_admin_url_is_not_taken_by_the_wiki():
    assert resolve("/admin/").app_name == "admin"


def test_every_first_segment_of_the_wikis_own_urls_is_a_reserved_top_level_slug():
    first_segments = {str(url.pattern).split("/")[0] for url in chapters_urls.urlpatterns}
    # Segments no slug can be ("robots.txt", "sitemap-<slug:section>.xml") need no reserving.
    could_be_slugs = {segment for segment in first_segments if re.fullmatch(r"[-\w]+", segment)}
    assert could_be_slugs <= RESERVED_ROOT_SLUGS
    assert {"search", "healthz", "history"} <= could_be_slugs
