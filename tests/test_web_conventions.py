"""The web's conventions: the sitemap, robots.txt, head tags for search engines and link
previews, and compressed pages."""

import gzip
import re
from unittest import mock
from xml.etree import ElementTree

import pytest
from django.contrib.sessions.middleware import SessionMiddleware

from chapters import views
from chapters.crawlers import NodeSitemap
from chapters.templatetags.metadata import describe
from tests.helpers import node, soup

SEED_CHAPTER_URL = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"
CHAPTER_FIVE = "/area-b/section-b1/chapter-five/"
SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def sitemap_entries(response):
    """Return a sitemap's ``(loc, lastmod)`` pairs, or an index's, in order."""
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml"
    root = ElementTree.fromstring(response.content)
    return [
        (
            entry.findtext("s:loc", namespaces=SITEMAP_NS),
            entry.findtext("s:lastmod", None, SITEMAP_NS),
        )
        for entry in root
    ]


def head_tags(response):
    """Return a page's canonical link, meta description and Open Graph tags, in order."""
    head = soup(response).head
    canonical = [("canonical", link["href"]) for link in head.find_all("link", rel="canonical")]
    metas = [
        (meta.get("name") or meta["property"], meta["content"])
        for meta in head.find_all("meta")
        if meta.get("name") == "description" or meta.get("property", "").startswith("og:")
    ]
    return canonical + metas


@pytest.mark.django_db
def test_sitemap_lists_the_home_page_and_every_node_in_tree_order(client, small_tree):
    edit = node("Chapter Two")
    edit.body = "Changed."
    edit.save()
    today = node("Chapter Two").updated.date().isoformat()
    assert sitemap_entries(client.get("/sitemap.xml")) == [
        ("http://testserver/", today),
        ("http://testserver/area-a/", "2026-08-09"),
        ("http://testserver/area-a/section-a1/", "2026-08-09"),
        ("http://testserver/area-a/section-a1/chapter-one/", "2026-08-09"),
        ("http://testserver/area-a/section-a1/chapter-two/", today),
        ("http://testserver/area-a/section-a1/chapter-three/", "2026-08-09"),
        ("http://testserver/area-a/section-a2/", "2026-08-09"),
        ("http://testserver/area-a/section-a2/chapter-four/", "2026-08-09"),
        ("http://testserver/area-b/", "2026-08-09"),
        ("http://testserver/area-b/section-b1/", "2026-08-09"),
        ("http://testserver/area-b/section-b1/chapter-five/", "2026-08-09"),
        ("http://testserver/area-b/section-b1/chapter-six/", "2026-08-09"),
    ]


@pytest.mark.django_db
def test_sitemap_past_its_limit_is_an_index_of_pages(client, small_tree):
    with mock.patch.object(NodeSitemap, "limit", 4):
        index = client.get("/sitemap.xml")
        last_page = client.get("/sitemap-nodes.xml?p=3")
        past_the_end = client.get("/sitemap-nodes.xml?p=4")
        index_page = client.get("/sitemap.xml?p=2")
    assert sitemap_entries(index) == [
        ("http://testserver/sitemap-home.xml", "2026-08-09T12:00:00+00:00"),
        ("http://testserver/sitemap-nodes.xml", "2026-08-09T12:00:00+00:00"),
        ("http://testserver/sitemap-nodes.xml?p=2", "2026-08-09T12:00:00+00:00"),
        ("http://testserver/sitemap-nodes.xml?p=3", "2026-08-09T12:00:00+00:00"),
    ]
    assert sitemap_entries(last_page) == [
        ("http://testserver/area-b/section-b1/", "2026-08-09"),
        ("http://testserver/area-b/section-b1/chapter-five/", "2026-08-09"),
        ("http://testserver/area-b/section-b1/chapter-six/", "2026-08-09"),
    ]
    assert (past_the_end.status_code, index_page.status_code) == (404, 404)


@pytest.mark.django_db
def test_sitemap_is_read_once_per_version_of_the_wiki(
    client, small_tree, django_assert_num_queries
):
    first = client.get("/sitemap.xml")
    with django_assert_num_queries(1):  # the version
        again = client.get("/sitemap.xml")
    assert again.content == first.content
    assert again["X-Robots-Tag"] == "noindex, noodp, noarchive"
    renamed = node("Chapter Six")
    renamed.slug = "chapter-6"
    renamed.save()
    locations = [loc for loc, _ in sitemap_entries(client.get("/sitemap.xml"))]
    assert locations[-1] == "http://testserver/area-b/section-b1/chapter-6/"


@pytest.mark.django_db
def test_sitemap_names_the_host_it_was_asked_for(client, small_tree):
    for host in ["localhost", "127.0.0.1"]:
        entries = sitemap_entries(client.get("/sitemap.xml", HTTP_HOST=host))
        assert entries[0] == (f"http://{host}/", "2026-08-09")


def test_robots_txt_keeps_crawlers_out_of_the_editors_and_the_history(client):
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode() == (
        "User-agent: *\n"
        "Disallow: /admin/\n"
        "Disallow: /search/\n"
        "Disallow: /diff/\n"
        "Disallow: /history/\n"
        "Disallow: /revisions/\n"
        "Disallow: /dashboard/\n"
        "Disallow: /links/\n"
        "\n"
        "Sitemap: http://testserver/sitemap.xml\n"
    )


@pytest.mark.django_db
def test_seed_chapter_page_tells_its_url_and_description(client, curriculum):
    url = f"http://testserver{SEED_CHAPTER_URL}"
    assert head_tags(client.get(SEED_CHAPTER_URL)) == [
        ("canonical", url),
        ("description", "This chapter is currently a scaffold."),
        ("og:title", "Graph Optimization and Kernel Fusion"),
        ("og:type", "article"),
        ("og:url", url),
        ("og:description", "This chapter is currently a scaffold."),
        ("og:site_name", "Curriculum Wiki"),
    ]


@pytest.mark.django_db
def test_home_page_tells_the_wikis_url_and_description(client, small_tree):
    description = (
        "A learning curriculum, from mathematics to ML systems and illustration: "
        "areas, sections and chapters."
    )
    assert head_tags(client.get("/")) == [
        ("canonical", "http://testserver/"),
        ("description", description),
        ("og:title", "Curriculum Wiki"),
        ("og:type", "website"),
        ("og:url", "http://testserver/"),
        ("og:description", description),
        ("og:site_name", "Curriculum Wiki"),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "description"),
    [
        ("/area-a/", "Area A: an area of Curriculum Wiki"),
        ("/area-a/section-a2/", "Section A2: a section of Area A in Curriculum Wiki"),
    ],
)
def test_section_page_without_text_is_described_by_its_place(client, small_tree, url, description):
    assert dict(head_tags(client.get(url)))["description"] == description


@pytest.mark.django_db
def test_description_is_the_start_of_the_text_cut_after_a_word(small_tree):
    chapter = node("Chapter Four")
    chapter.body = "## Fusion\n\n" + "Fusing *kernels* saves launches. " * 10
    chapter.save()
    chapter.refresh_from_db()
    text = describe(chapter, [node("Area A"), node("Section A2")])
    assert text == (
        "Fusion Fusing kernels saves launches. Fusing kernels saves launches. Fusing kernels "
        "saves launches. Fusing kernels saves launches. Fusing kernels saves…"
    )
    assert len(text) <= 155
    chapter.body = ""
    chapter.save()
    chapter.refresh_from_db()
    assert describe(chapter, [node("Area A"), node("Section A2")]) == (
        "Chapter Four: a chapter of Section A2 in Curriculum Wiki"
    )


@pytest.mark.django_db
def test_kept_page_names_the_host_it_is_served_to(client, small_tree):
    canonicals = []
    for host in ["localhost", "127.0.0.1", "localhost"]:
        response = client.get(CHAPTER_FIVE, HTTP_HOST=host)
        canonicals.append(dict(head_tags(response))["canonical"])
    assert canonicals == [f"http://{host}{CHAPTER_FIVE}" for host in ["localhost", "127.0.0.1"]] + [
        f"http://localhost{CHAPTER_FIVE}"
    ]


@pytest.mark.django_db
def test_reader_page_is_gzipped_when_the_browser_takes_it(client, small_tree):
    plain = client.get(CHAPTER_FIVE)
    compressed = client.get("/area-b/", **GZIP)  # rendered by the view
    rendered_plain = client.get("/area-b/")
    assert plain["Vary"] == compressed["Vary"] == "Accept-Encoding"
    assert "Content-Encoding" not in plain
    assert compressed["Content-Encoding"] == "gzip"
    assert gzip.decompress(compressed.content) == rendered_plain.content
    assert compressed["ETag"] == f"W/{rendered_plain['ETag']}"
    assert compressed["Content-Length"] == str(len(compressed.content))


@pytest.mark.django_db
def test_kept_page_is_gzipped_too(client, small_tree):
    rendered = client.get(CHAPTER_FIVE)
    with (
        mock.patch.object(views, "render", side_effect=AssertionError),
        mock.patch.object(
            SessionMiddleware, "process_request", autospec=True, side_effect=AssertionError
        ),
    ):
        kept = client.get(CHAPTER_FIVE, **GZIP)
    assert kept["Content-Encoding"] == "gzip"
    assert gzip.decompress(kept.content) == rendered.content
    assert kept["ETag"] == f"W/{rendered['ETag']}"


NOT_MODIFIED = "chapters.caching.middleware.ReaderNotModifiedMiddleware"
KEPT_PAGE = "chapters.caching.middleware.ReaderPageMiddleware"


@pytest.mark.django_db
@pytest.mark.parametrize("left_out", [[], [NOT_MODIFIED], [NOT_MODIFIED, KEPT_PAGE]])
def test_reader_with_the_weak_etag_of_a_gzipped_page_gets_a_304(
    client, small_tree, settings, left_out
):
    page = client.get(CHAPTER_FIVE, **GZIP)
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m not in left_out]
    response = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=page["ETag"], **GZIP)
    assert page["ETag"].startswith('W/"')
    assert (response.status_code, response.content) == (304, b"")
    assert (response["ETag"], response["Vary"]) == (page["ETag"], "Accept-Encoding")


@pytest.mark.django_db
def test_signed_in_users_pages_are_not_compressed(client, small_tree, admin_user):
    client.force_login(admin_user)
    for url in [CHAPTER_FIVE, "/admin/chapters/node/"]:
        response = client.get(url, **GZIP)
        assert response.status_code == 200
        assert "Content-Encoding" not in response
        assert "Accept-Encoding" not in response.get("Vary", "")
    assert not client.get(CHAPTER_FIVE, **GZIP)["ETag"].startswith("W/")


@pytest.mark.django_db
def test_sign_in_page_is_compressed_with_a_new_csrf_token_each_time(client):
    tokens = []
    for _ in range(2):
        response = client.get("/admin/login/", **GZIP)
        assert response["Content-Encoding"] == "gzip"
        page = gzip.decompress(response.content).decode()
        tokens += re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert len(tokens) == 2 and tokens[0] != tokens[1]


@pytest.mark.django_db
def test_sitemap_is_gzipped(client, small_tree):
    plain = client.get("/sitemap.xml")
    response = client.get("/sitemap.xml", **GZIP)
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == plain.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/search/top.json?q=chapter",
        "/discussion/count/area-a/section-a1/chapter-one/",
        "/diagrams/mermaid.html",
        "/edit/titles.json",
    ],
)
def test_head_answers_as_get_without_the_body(client, small_tree, url):
    got, head = client.get(url), client.head(url)
    assert (head.status_code, head.content) == (got.status_code, b"")
    assert head.status_code in (200, 403)
    assert head["Content-Type"] == got["Content-Type"]
