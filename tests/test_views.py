"""The reader's pages: home, chapter and section pages, 404, and their cost in queries."""

from pathlib import Path

import pytest
from bs4 import SoupStrainer
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django.asserts import assertContains, assertInHTML

from chapters.models import Node
from tests.helpers import SITE_SCRIPTS, build_tree, node, page_scripts, soup, toc_outline

SEED_CHAPTER_URL = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"
OUTLINE = Path(settings.BASE_DIR) / "fixtures" / "curriculum-outline.txt"
SEED_PAGE = Path(__file__).parent / "data" / "seed-page.txt"


@pytest.mark.django_db
def test_chapter_table_of_contents_is_the_seed_pages_list(client, curriculum):
    page = soup(client.get(SEED_CHAPTER_URL))
    outline = toc_outline(page)
    assert outline == OUTLINE.read_text(encoding="utf-8")
    seed_toc = SEED_PAGE.read_text(encoding="utf-8").split("All chapters", 1)[1].strip()
    assert "".join(line.strip() for line in outline.splitlines()) == seed_toc


@pytest.mark.django_db
def test_table_of_contents_nests_areas_sections_and_chapters(client, curriculum):
    outline = toc_outline(soup(client.get(SEED_CHAPTER_URL))).splitlines()
    start = outline.index("ML Systems")
    assert outline[start : start + 10] == [
        "ML Systems",
        "  GPU Computing",
        "    GPU Architecture",
        "    GPU Execution and Memory",
        "    CUDA Programming",
        "    GPU Kernel Optimization",
        "  Runtimes and Frameworks",
        "    Tensor Runtimes",
        "    Automatic-Differentiation Systems",
        "  ML Compilers",
    ]


@pytest.mark.django_db
def test_table_of_contents_links_every_node_by_name_only(client, curriculum):
    nav = soup(client.get("/ml-systems/")).find("nav", attrs={"aria-label": "All chapters"})
    assert nav.h2.get_text() == "All chapters"
    entries = nav.find_all("li")
    assert len(entries) == 222
    assert [" ".join(entry.get_text().split()) for entry in entries[1:3]] == [
        "Foundations Contents of “Foundations” Proofs and Logic",
        "Proofs and Logic",
    ]
    assert nav.find(class_=["status", "readiness"]) is None
    hrefs = [entry.a["href"] for entry in entries]
    assert hrefs == [n.get_absolute_url() for n in Node.objects.all()]
    assert [a.get_text() for a in nav.find_all(attrs={"aria-current": "page"})] == ["ML Systems"]


@pytest.mark.django_db
def test_chapter_page_shows_the_seed_chapter(client, curriculum):
    response = client.get(SEED_CHAPTER_URL)
    assert response.status_code == 200
    assertInHTML(
        """
        <nav aria-label="Breadcrumb" class="breadcrumb"><ol>
          <li><a href="/">Wiki</a></li>
          <li><a href="/ml-systems/">ML Systems</a></li>
          <li><a href="/ml-systems/ml-compilers/">ML Compilers</a></li>
          <li aria-current="page">Graph Optimization and Kernel Fusion</li>
        </ol></nav>
        """,
        response.content.decode(),
    )
    page = soup(response)
    assert [h1.get_text() for h1 in page.find_all("h1")] == ["Graph Optimization and Kernel Fusion"]
    assert " ".join(page.find("p", class_="meta").get_text().split()) == (
        "Chapter · Draft · Updated Aug 9, 2026 · 1 min read"
    )
    assertInHTML(
        '<div class="body"><p>This chapter is currently a scaffold.</p></div>',
        response.content.decode(),
    )
    pager = page.find("nav", attrs={"aria-label": "Previous and next chapters"})
    assert [(a["rel"], a["href"], " ".join(a.get_text().split())) for a in pager.find_all("a")] == [
        (
            ["prev"],
            "/ml-systems/ml-compilers/ml-compiler-foundations/",
            "Previous ML Compiler Foundations",
        )
    ]
    current = page.find("nav", attrs={"aria-label": "All chapters"}).find_all(
        attrs={"aria-current": "page"}
    )
    assert [(a.get_text(), a["href"]) for a in current] == [
        ("Graph Optimization and Kernel Fusion", SEED_CHAPTER_URL)
    ]


@pytest.mark.django_db
def test_chapter_page_shows_parts_in_the_seed_pages_order(client, curriculum):
    text = soup(client.get(SEED_CHAPTER_URL)).find("body").get_text()
    order = [
        "ML Compilers",
        "Chapter",
        "This chapter is currently a scaffold.",
        "Previous",
        "All chapters",
    ]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)


@pytest.mark.django_db
def test_every_node_page_answers_and_its_breadcrumb_ends_with_its_title(client, curriculum):
    breadcrumb = SoupStrainer("nav", attrs={"aria-label": "Breadcrumb"})
    for each in Node.objects.all():
        response = client.get(each.get_absolute_url())
        assert response.status_code == 200, each.path
        page = soup(response, breadcrumb)
        crumbs = page.find("nav", attrs={"aria-label": "Breadcrumb"}).find_all("li")
        assert crumbs[0].get_text() == "Wiki"
        assert crumbs[-1].get_text() == each.title
        assert len(crumbs) == each.level + 2


@pytest.mark.django_db
def test_fundamentals_sections_have_distinct_working_urls(client, curriculum):
    urls = [n.get_absolute_url() for n in Node.objects.filter(title="Fundamentals")]
    assert urls == ["/3d-animation/fundamentals/", "/digital-illustration/fundamentals/"]
    pages = [soup(client.get(url)) for url in urls]
    assert [
        p.find("nav", attrs={"aria-label": "Breadcrumb"}).find_all("a")[1].get_text() for p in pages
    ] == [
        "3D & Animation",
        "Digital & Illustration",
    ]


def pager_links(client, chapter):
    """Return the (previous, next) URLs shown on ``chapter``'s page, None where absent."""
    page = soup(client.get(chapter.get_absolute_url()), SoupStrainer(class_="pager"))
    pager = page.find(class_="pager")
    links = {a["rel"][0]: a["href"] for a in pager.find_all("a")} if pager else {}
    return links.get("prev"), links.get("next")


@pytest.mark.django_db
def test_previous_and_next_follow_the_table_of_contents_and_are_symmetric(client, curriculum):
    for section in Node.objects.filter(kind=Node.Kind.SECTION, level=1):
        chapters = [c.get_absolute_url() for c in section.get_children()]
        shown = {
            url: pager_links(client, Node.objects.get(path=url.strip("/"))) for url in chapters
        }
        expected = {
            url: (
                chapters[i - 1] if i else None,
                chapters[i + 1] if i + 1 < len(chapters) else None,
            )
            for i, url in enumerate(chapters)
        }
        assert shown == expected, section.title


@pytest.mark.django_db
def test_section_page_lists_its_children_in_order_with_status(client, curriculum):
    response = client.get("/ml-systems/ml-compilers/")
    page = soup(response)
    assert page.h1.get_text() == "ML Compilers"
    assert " ".join(page.find("p", class_="meta").get_text().split()) == (
        "Section · Draft · Updated Aug 9, 2026 · 1 min read"
    )
    children = page.find("ol", class_="children").find_all("li")
    assert [" ".join(li.get_text().split()) for li in children] == [
        "ML Compiler Foundations Chapter Draft 1 min read",
        "Graph Optimization and Kernel Fusion Chapter Draft 1 min read",
    ]
    assert page.find(class_="pager") is None


@pytest.mark.django_db
def test_chapter_page_lists_its_headings_on_this_page(client, small_tree):
    chapter = node("Chapter One")
    chapter.body = (
        "## Fusion\n\nText.\n\n### Линейная алгебра\n\n## Fusion\n\n## A & <b>B</b>\n\nEnd."
    )
    chapter.save()
    response = client.get("/area-a/section-a1/chapter-one/")
    assertInHTML(
        """
        <nav class="on-this-page" aria-label="On this page">
          <h2 class="on-this-page-title">On this page</h2>
          <ol>
            <li class="on-this-page-level-2"><a href="#fusion">Fusion</a></li>
            <li class="on-this-page-level-3"><a href="#линейная-алгебра">Линейная алгебра</a></li>
            <li class="on-this-page-level-2"><a href="#fusion_1">Fusion</a></li>
            <li class="on-this-page-level-2"><a href="#a-b">A &amp; B</a></li>
          </ol>
        </nav>
        """,
        response.content.decode(),
    )
    body = soup(response).find("div", class_="body")
    assert [heading["id"] for heading in body.find_all(["h2", "h3"])] == [
        "fusion",
        "линейная-алгебра",
        "fusion_1",
        "a-b",
    ]


@pytest.mark.django_db
def test_chapter_page_with_fewer_than_three_headings_has_no_on_this_page(client, small_tree):
    chapter = node("Chapter One")
    chapter.body = "## Fusion\n\nText.\n\n## Launches"
    chapter.save()
    response = client.get("/area-a/section-a1/chapter-one/")
    assert soup(response).find("nav", class_="on-this-page") is None
    assert "On this page" not in response.content.decode()


@pytest.mark.django_db
def test_page_shows_each_status_label(client, small_tree):
    for status, label in Node.Status.choices:
        Node.objects.filter(title="Chapter One").update(status=status)
        page = soup(client.get("/area-a/section-a1/chapter-one/"))
        assert page.find("p", class_="meta").find(class_="status").get_text() == label


@pytest.mark.django_db
def test_unknown_path_answers_404_in_the_sites_layout(client, curriculum):
    response = client.get("/ml-systems/no-such-section/")
    assert response.status_code == 404
    assertContains(response, "<h1>Page not found</h1>", status_code=404, html=True)
    assertContains(
        response, '<a class="site-name" href="/">Curriculum Wiki</a>', status_code=404, html=True
    )


@pytest.mark.django_db
def test_path_without_trailing_slash_redirects(client, curriculum):
    response = client.get("/ml-systems/ml-compilers")
    assert (response.status_code, response["Location"]) == (301, "/ml-systems/ml-compilers/")


@pytest.mark.django_db
def test_stylesheets_and_scripts_are_files_of_this_site(client, curriculum):
    page = soup(client.get("/"))
    dark = "screen and (prefers-color-scheme: dark)"
    assert [
        (link["href"], link.get("media")) for link in page.find_all("link", rel="stylesheet")
    ] == [
        ("/static/css/wiki.css", None),
        ("/static/css/pygments.css", None),
        ("/static/css/dark.css", dark),
        ("/static/css/pygments-dark.css", dark),
        ("/static/css/print.css", "print"),
    ]
    assert page_scripts(page) == SITE_SCRIPTS  # no inline script
    # theme.js runs before the page is drawn, so that a remembered colour scheme shows at once.
    assert [script.has_attr("defer") for script in page.find_all("script")] == [
        False,
        True,
        True,
        True,
        True,
        True,
    ]
    assert [script.string for script in page.find_all("script")] == [None] * 6


def wide_outline(areas, sections, chapters):
    """Return an outline of ``areas`` x ``sections`` x ``chapters``."""
    lines = []
    for a in range(areas):
        lines.append(f"Area {a}")
        for s in range(sections):
            lines.append(f"  Section {a}-{s}")
            lines.extend(f"    Chapter {a}-{s}-{c}" for c in range(chapters))
    return "\n".join(lines)


# A chapter page for a reader with nothing cached for the wiki's version (cold): the version,
# the node, the whole tree (for the contents, which also give the breadcrumb, the neighbours
# and the readiness counts), the nodes linking to it. Once cached (warm): the version only.
QUERIES_PER_CHAPTER_PAGE = 4
QUERIES_PER_CACHED_PAGE = 1


@pytest.mark.django_db
def test_chapter_page_queries_are_constant_for_the_curriculum(
    client, curriculum, django_assert_num_queries
):
    with django_assert_num_queries(QUERIES_PER_CHAPTER_PAGE):
        assert client.get(SEED_CHAPTER_URL).status_code == 200
    with django_assert_num_queries(QUERIES_PER_CACHED_PAGE):
        assert client.get(SEED_CHAPTER_URL).status_code == 200


@pytest.mark.django_db
def test_chapter_page_queries_are_constant_for_2000_nodes(client, django_assert_num_queries):
    build_tree(wide_outline(areas=5, sections=19, chapters=20))
    assert Node.objects.count() == 2000
    with django_assert_num_queries(QUERIES_PER_CHAPTER_PAGE):
        assert client.get("/area-4/section-4-18/chapter-4-18-7/").status_code == 200
    with django_assert_num_queries(QUERIES_PER_CACHED_PAGE):
        assert client.get("/area-4/section-4-18/chapter-4-18-7/").status_code == 200
    # Another page, with the contents cached: the nodes around it instead of the whole tree.
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/area-0/section-0-3/chapter-0-3-5/")
    assert len(queries) == QUERIES_PER_CHAPTER_PAGE
    node_queries = [q["sql"] for q in queries if 'FROM "chapters_node"' in q["sql"]]
    assert len(node_queries) == 3 and all(" WHERE " in sql for sql in node_queries)
    page = soup(response)
    assert [a.get_text() for a in page.find(class_="breadcrumb").find_all("a")] == [
        "Wiki",
        "Area 0",
        "Section 0-3",
    ]
    assert [a["href"] for a in page.find(class_="pager").find_all("a")] == [
        "/area-0/section-0-3/chapter-0-3-4/",
        "/area-0/section-0-3/chapter-0-3-6/",
    ]


@pytest.mark.django_db
def test_section_page_and_home_queries(client, curriculum, django_assert_num_queries):
    with django_assert_num_queries(4):  # the version, the node, the tree, backlinks
        client.get("/ml-systems/ml-compilers/")
    with django_assert_num_queries(3):  # the version, the tree, the areas' texts
        client.get("/")
    with django_assert_num_queries(1):  # the version; the page is kept
        client.get("/")
    with django_assert_num_queries(1):
        client.get("/ml-systems/ml-compilers/")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["/%00/", "/a%00b/", "/area-a/section-a1%00/", "/history/%00/", "/feeds/a%00/"]
)
def test_path_with_a_nul_character_is_404(client, small_tree, url):
    assert client.get(url).status_code == 404


def toc_sections(response):
    """Return each section of a page's table of contents with whether its list is open."""
    nav = soup(response).find("nav", attrs={"aria-label": "All chapters"})
    return [
        (details.parent.find("a", recursive=False).get_text(), details.has_attr("open"))
        for details in nav.find_all("details")
    ]


@pytest.mark.django_db
def test_table_of_contents_beside_a_page_opens_the_path_to_it(client, small_tree):
    assert toc_sections(client.get("/area-a/section-a2/chapter-four/")) == [
        ("Area A", True),
        ("Section A1", False),
        ("Section A2", True),
        ("Area B", False),
        ("Section B1", False),
    ]
    assert toc_sections(client.get("/area-b/")) == [
        ("Area A", False),
        ("Section A1", False),
        ("Section A2", False),
        ("Area B", True),
        ("Section B1", False),
    ]


@pytest.mark.django_db
def test_table_of_contents_names_each_sections_toggle(client, small_tree):
    nav = soup(client.get("/area-b/")).find("nav", attrs={"aria-label": "All chapters"})
    assert [summary.get_text() for summary in nav.find_all("summary")] == [
        "Contents of “Area A”",
        "Contents of “Section A1”",
        "Contents of “Section A2”",
        "Contents of “Area B”",
        "Contents of “Section B1”",
    ]


@pytest.mark.django_db
def test_page_links_staff_who_may_edit_to_the_editor(client, small_tree, admin_user):
    chapter = Node.objects.get(title="Chapter Two")
    page = chapter.get_absolute_url()
    assert soup(client.get(page)).find("a", class_="edit-link") is None  # a reader
    reader = User.objects.create_user("staff-reader", is_staff=True)  # no change permission
    client.force_login(reader)
    assert soup(client.get(page)).find("a", class_="edit-link") is None
    client.force_login(admin_user)
    assertInHTML(
        '<a class="edit-link" href="/edit/area-a/section-a1/chapter-two/">Edit</a>',
        client.get(page).content.decode(),
    )


@pytest.mark.django_db
def test_favicon_ico_redirects_to_the_icon(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/favicon.svg")


@pytest.mark.django_db
def test_table_of_contents_has_a_filter_that_needs_javascript(client, small_tree):
    sidebar = soup(client.get("/area-a/section-a1/chapter-one/")).find("div", class_="sidebar")
    box = sidebar.find(class_="toc-filter")
    assert not box.has_attr("hidden")  # wiki.css shows it when JavaScript runs (.js)
    assert (box["role"], box["aria-label"]) == ("search", "Contents filter")
    assert [child.name for child in sidebar.find_all(recursive=False)] == ["div", "nav"]
    field = box.find("input", type="search")
    assert box.find("label", attrs={"for": field["id"]}).get_text() == "Filter the chapters"


@pytest.mark.django_db
def test_header_tells_readers_and_editors_apart(client, small_tree, admin_user):
    page = "/area-a/section-a1/chapter-two/"
    header = soup(client.get(page)).find("header", class_="site-header")
    sign_in = header.find("a", class_="sign-in")
    assert (sign_in.get_text(), sign_in["href"]) == ("Sign in", f"/accounts/login/?next={page}")
    assert header.find(class_="account") is None
    client.force_login(admin_user)
    header = soup(client.get(page)).find("header", class_="site-header")
    account = header.find(class_="account")
    assert " ".join(account.get_text().split()) == (
        "Signed in as admin · Review (0) · Notifications (0) · Edit · Sign out"
    )
    assert account.find("a", class_="edit-link")["href"] == "/edit/area-a/section-a1/chapter-two/"
    form = account.find("form")
    assert (
        form["method"],
        form["action"],
        form.find("input", attrs={"name": "next"})["value"],
    ) == (
        "post",
        "/accounts/logout/",
        page,
    )
    assert header.find("a", class_="sign-in") is None
    search = " ".join(soup(client.get("/search/")).find(class_="account").get_text().split())
    assert search == (
        "Signed in as admin · Review (0) · Notifications (0) · Sign out"
    )  # no page to edit


@pytest.mark.django_db
def test_sign_out_from_the_header_returns_to_the_page(client, small_tree, admin_user):
    client.force_login(admin_user)
    response = client.post("/accounts/logout/", {"next": "/area-b/"})
    assert (response.status_code, response["Location"]) == (302, "/area-b/")
    assert "_auth_user_id" not in client.session
