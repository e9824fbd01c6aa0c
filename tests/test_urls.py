"""Every URL reverses to the path it is served at, and resolves to its view."""

import pytest
from django.urls import resolve, reverse

from chapters import crawlers, views


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
