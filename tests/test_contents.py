"""The table of contents' HTML (chapters.contents): marked for a page by the marks it gave the
template, whatever else the template writes, and rendered at any depth."""

import json
import logging

import pytest
from bs4 import BeautifulSoup
from django.conf import settings as django_settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chapters import caching, contents
from chapters.caching import flight
from chapters.models import RESERVED_ROOT_SLUGS, Node
from chapters.outline import build_fixture
from tests.helpers import SMALL_TREE, edit, node, soup, toc_outline

TOC = django_settings.BASE_DIR / "templates" / "chapters" / "_toc_entries.html"

CHAIN_DEPTH = 300


def override_toc(settings, tmp_path, text):
    """Serve ``chapters/_toc_entries.html`` from ``tmp_path`` with ``text`` instead of the
    project's."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "_toc_entries.html").write_text(text, encoding="utf-8")
    templates = [{**engine} for engine in settings.TEMPLATES]
    templates[0]["DIRS"] = [tmp_path, *templates[0]["DIRS"]]
    settings.TEMPLATES = templates


def toc_marks(page):
    """Return the contents' current links and open sections of a parsed page."""
    toc = page.find(id="toc")
    current = [(a.get_text(), a.get("class")) for a in toc.find_all(attrs={"aria-current": True})]
    opened = [d.parent.a.get_text() for d in toc.find_all("details", open=True)]
    return current, opened


@pytest.mark.django_db
def test_contents_mark_the_page_whatever_else_the_link_says(client, small_tree, settings, tmp_path):
    link = "{{ entry.link_mark }}>{{ node.title }}</a>"
    text = TOC.read_text(encoding="utf-8")
    assert text.count(link) == 2  # a published entry's link, and an unpublished one's
    override_toc(
        settings,
        tmp_path,
        text.replace(
            link,
            ' class="toc-link" data-kind="{{ node.kind }}"' + link,
        ),  # fmt: skip
    )
    for _ in range(2):  # rendered, then from the cache
        page = soup(client.get("/area-a/section-a2/chapter-four/"))
        assert toc_marks(page) == ([("Chapter Four", ["toc-link"])], ["Area A", "Section A2"])
        assert page.find(id="toc").find("a", string="Chapter Four")["data-kind"] == "chapter"
    area_b = soup(client.get("/area-b/"))
    assert toc_marks(area_b) == ([("Area B", ["toc-link"])], ["Area B"])
    assert "data-contents" not in str(area_b.find(id="toc"))


@pytest.mark.django_db
@pytest.mark.parametrize("mark", ["{{ entry.link_mark }}", "{{ entry.section_mark }}"])
def test_contents_template_without_a_mark_is_an_error(client, small_tree, settings, tmp_path, mark):
    override_toc(settings, tmp_path, TOC.read_text(encoding="utf-8").replace(mark, ""))
    kind = mark.removeprefix("{{ entry.").removesuffix(" }}")
    with pytest.raises(ImproperlyConfigured, match=f"must write each entry's {kind}"):
        client.get("/area-a/")


@pytest.mark.django_db
def test_contents_without_the_page_leave_it_unmarked_with_a_warning(client, small_tree, caplog):
    client.get("/area-b/section-b1/chapter-five/")
    page = Node.objects.get(title="Chapter Five")
    navigation, _ = contents.page_navigation(page, "another-version")
    empty = contents.Contents(html="<ol></ol>", links={}, sections={})
    with caplog.at_level(logging.WARNING, logger="chapters.contents.html"):
        assert contents.mark_current(empty, page, navigation) == "<ol></ol>"
    assert caplog.messages == [
        f"The table of contents has no place for page {page.pk}; not marked."
    ]


@pytest.fixture
def chain(db, tmp_path):
    """Load ``CHAIN_DEPTH`` sections, each inside the one before, and a chapter in the last.

    One-letter slugs keep the deepest path (599 characters) under the model's limit.
    """
    rows = build_fixture([(depth, "S") for depth in range(CHAIN_DEPTH)] + [(CHAIN_DEPTH, "C")])
    for row in rows[:-1]:
        row["fields"].update(kind=Node.Kind.SECTION, body="")
    fixture = tmp_path / "chain.json"
    fixture.write_text(json.dumps(rows), encoding="utf-8")
    call_command("loaddata", str(fixture), verbosity=0)
    return Node.objects.get(kind=Node.Kind.CHAPTER)


@pytest.mark.django_db
def test_contents_of_any_depth_render_on_every_page(client, chain):
    assert (chain.level, len(chain.path)) == (CHAIN_DEPTH, 2 * CHAIN_DEPTH + 1)
    outline = "".join(
        f"{'  ' * depth}{'S' if depth < CHAIN_DEPTH else 'C'}\n" for depth in range(CHAIN_DEPTH + 1)
    )
    page = client.get(chain.get_absolute_url())
    assert page.status_code == 200
    assert toc_outline(soup(page)) == outline
    assert toc_marks(soup(page)) == ([("C", None)], ["S"] * CHAIN_DEPTH)
    deepest_section = client.get(chain.parent.get_absolute_url())
    assert toc_marks(soup(deepest_section)) == ([("S", None)], ["S"] * CHAIN_DEPTH)


# Past TOC_INLINE_MAX_NODES (the small tree's 11 nodes are past 5): the areas and the branch.
BRANCH_OF_CHAPTER_FOUR = """\
Area A
  Section A1
  Section A2
    Chapter Four
Area B
"""


@pytest.fixture
def past_inline(settings):
    """Make the small tree too large for pages to hold its whole contents."""
    settings.TOC_INLINE_MAX_NODES = 5


def contents_url(page):
    """Return the URL of the whole contents a parsed page names, or None."""
    return page.find(id="toc").get("data-contents")


@pytest.mark.django_db
def test_page_past_the_threshold_holds_the_areas_and_its_branch(client, small_tree, past_inline):
    page = soup(client.get("/area-a/section-a2/chapter-four/"))
    assert toc_outline(page) == BRANCH_OF_CHAPTER_FOUR
    assert toc_marks(page) == ([("Chapter Four", None)], ["Area A", "Section A2"])
    assert [a["href"] for a in page.find(id="toc").find_all("a")] == [
        "/area-a/",
        "/area-a/section-a1/",
        "/area-a/section-a2/",
        "/area-a/section-a2/chapter-four/",
        "/area-b/",
    ]
    version = caching.version(client.get("/").wsgi_request)
    assert contents_url(page) == f"/contents/{version}.html"
    assert "data-contents-" not in str(page.find(id="toc"))
    section = soup(client.get("/area-b/section-b1/"))
    assert (
        toc_outline(section) == "Area A\nArea B\n  Section B1\n    Chapter Five\n    Chapter Six\n"
    )
    assert toc_marks(section) == ([("Section B1", None)], ["Area B", "Section B1"])
    area = soup(client.get("/area-a/"))
    assert toc_outline(area) == "Area A\n  Section A1\n  Section A2\nArea B\n"
    assert toc_marks(area) == ([("Area A", None)], ["Area A"])


@pytest.mark.django_db
def test_page_up_to_the_threshold_holds_the_whole_contents(client, small_tree, settings):
    settings.TOC_INLINE_MAX_NODES = Node.objects.count()
    page = soup(client.get("/area-a/section-a2/chapter-four/"))
    assert toc_outline(page) == SMALL_TREE
    assert contents_url(page) is None


@pytest.mark.django_db
def test_seed_curriculum_pages_hold_the_whole_contents(client, curriculum):
    page = soup(client.get("/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"))
    assert contents_url(page) is None
    assert len(page.find(id="toc").find_all("a")) == Node.objects.count() == 222


@pytest.mark.django_db
def test_whole_contents_resource_is_the_unmarked_list_kept_a_year(client, small_tree, past_inline):
    url = contents_url(soup(client.get("/area-a/section-a2/chapter-four/")))
    response = client.get(url)
    assert response.status_code == 200
    assert (
        response["Content-Type"],
        response["Cache-Control"],
        response["X-Robots-Tag"],
    ) == ("text/html; charset=utf-8", "public, max-age=31536000, immutable", "noindex")
    assert not response.has_header("Vary") or "Cookie" not in response["Vary"]
    listed = soup(response)
    in_nav = f'<nav aria-label="All chapters">{response.content.decode()}</nav>'
    assert toc_outline(BeautifulSoup(in_nav, "html.parser")) == SMALL_TREE
    assert [child.name for child in listed.find_all(recursive=False)] == ["ol"]
    text = response.content.decode()
    assert "aria-current" not in text and " open" not in text and "data-contents" not in text
    assert client.head(url).status_code == 200
    assert client.post(url).status_code == 405


@pytest.mark.django_db
def test_whole_contents_of_another_version_redirect_to_the_current(client, small_tree, past_inline):
    old = contents_url(soup(client.get("/area-a/")))
    edit("Chapter Six", title="Chapter Six Renamed")
    current = contents_url(soup(client.get("/area-a/")))
    assert current != old
    response = client.get(old)
    assert (response.status_code, response["Location"], response["Cache-Control"]) == (
        302,
        current,
        "no-cache",
    )
    assert "Chapter Six Renamed" in client.get(current).content.decode()


@pytest.mark.django_db
def test_contents_url_segment_is_reserved():
    assert "contents" in RESERVED_ROOT_SLUGS


@pytest.fixture
def rendered_areas(monkeypatch):
    """Record the first title of each list of entries ``chapters.contents`` renders."""
    rendered, render = [], contents.html._render

    def spy(listed):
        rendered.append(listed[0].node.title)
        return render(listed)

    monkeypatch.setattr(contents.html, "_render", spy)
    monkeypatch.setattr(contents.pages, "_render", spy)
    return rendered


@pytest.mark.django_db
def test_contents_render_again_only_the_area_an_edit_changed(client, small_tree, rendered_areas):
    client.get("/area-a/")
    assert rendered_areas == ["Area A", "Area B"]
    rendered_areas.clear()
    edit("Chapter Five", title="Chapter Five Renamed")
    page = soup(client.get("/area-a/"))
    assert rendered_areas == ["Area B"]
    assert "Chapter Five Renamed" in toc_outline(page)
    rendered_areas.clear()
    edit("Area A", title="Area A Renamed")
    client.get("/area-b/")
    assert rendered_areas == ["Area A Renamed"]


@pytest.mark.django_db
def test_contents_render_both_areas_a_move_between_them_changed(client, small_tree, rendered_areas):
    client.get("/area-a/")
    rendered_areas.clear()
    Node.objects.move_node(node("Section A2"), node("Area B"), "last-child")
    page = soup(client.get("/area-a/"))
    assert rendered_areas == ["Area A", "Area B"]
    assert toc_outline(page) == (
        "Area A\n  Section A1\n    Chapter One\n    Chapter Two\n    Chapter Three\n"
        "Area B\n  Section B1\n    Chapter Five\n    Chapter Six\n  Section A2\n    Chapter Four\n"
    )


@pytest.mark.django_db
def test_whole_contents_resource_renders_only_the_area_an_edit_changed(
    client, small_tree, past_inline, rendered_areas
):
    client.get(contents_url(soup(client.get("/area-a/"))))
    # The closed areas, the page's own area with its branch, then the whole list's areas.
    assert rendered_areas == ["Area A", "Area B", "Area A", "Area A", "Area B"]
    rendered_areas.clear()
    edit("Chapter Two", title="Chapter Two Renamed")
    client.get(contents_url(soup(client.get("/area-b/"))))
    assert rendered_areas == ["Area B", "Area A"]


def test_single_flight_builds_once_and_gives_the_lock_up(monkeypatch):
    builds = []
    assert flight.single_flight("k", "v1", lambda: builds.append(1) or "built") == "built"
    assert flight.single_flight("k", "v1", lambda: builds.append(2) or "again") == "built"
    assert builds == [1]
    assert cache.add("k:building", True, version="v1")  # given up


def test_single_flight_waits_for_the_process_holding_the_lock(monkeypatch):
    cache.add("k:building", True, version="v1")  # another process builds it
    waits = []

    def other_process_finishes(seconds):
        waits.append(seconds)
        if len(waits) == 3:
            cache.set("k", "theirs", version="v1")
            cache.delete("k:building", version="v1")

    monkeypatch.setattr(flight.time, "sleep", other_process_finishes)
    assert flight.single_flight("k", "v1", lambda: pytest.fail("built twice")) == "theirs"
    assert waits == [flight.POLL_SECONDS] * 3


def test_single_flight_waits_for_nothing_when_the_cache_keeps_nothing(monkeypatch):
    monkeypatch.setattr(cache, "add", lambda *args, **kwargs: False)  # as a Redis that is down
    monkeypatch.setattr(flight.time, "sleep", lambda seconds: pytest.fail("waited"))
    assert flight.single_flight("k", "v1", lambda: "mine") == "mine"


def test_single_flight_builds_itself_when_the_lock_holder_is_late(monkeypatch, caplog):
    cache.add("k:building", True, version="v1")
    monkeypatch.setattr(flight, "WAIT_SECONDS", 0.05)
    with caplog.at_level(logging.WARNING, logger="chapters.caching.flight"):
        assert flight.single_flight("k", "v1", lambda: "mine") == "mine"
    assert caplog.messages == ["Waited 0.05 s for k of version v1; building it too."]
    assert cache.get("k", version="v1") is None  # the lock holder keeps it


@pytest.mark.django_db
def test_page_past_the_threshold_makes_the_same_queries(
    client, small_tree, past_inline, django_assert_num_queries
):
    with django_assert_num_queries(4):  # the version, the node, the tree, backlinks
        client.get("/area-a/section-a2/chapter-four/")
    with django_assert_num_queries(4):  # the version, the node, the branch, backlinks
        client.get("/area-b/section-b1/chapter-five/")
    with django_assert_num_queries(1):
        client.get("/area-b/section-b1/chapter-five/")
    url = contents_url(soup(client.get("/area-a/")))
    with django_assert_num_queries(2):  # the version, the tree (the areas are rendered)
        client.get(url)
    with django_assert_num_queries(1):  # the version; the areas' fragments are kept
        client.get(url)


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's covering index (0017)")
def test_reads_of_the_tree_and_of_a_branch_scan_one_index_on_sqlite(small_tree):
    chapter = node("Chapter Four")
    with CaptureQueriesContext(connection) as reads:
        contents.rows._tree_rows()
        contents.branch(chapter)
    assert len(reads) == 2
    for read in reads:
        with connection.cursor() as cursor:
            plan = [row[-1] for row in cursor.execute(f"EXPLAIN QUERY PLAN {read['sql']}")]
        assert plan == ["SCAN chapters_node USING COVERING INDEX chapters_node_outline"]


@pytest.mark.django_db
def test_branch_picked_from_the_tree_is_the_branch_read(small_tree):
    rows = contents.rows._tree_rows()
    assert len(rows) == 11
    for each in Node.objects.all():
        assert contents.rows._branch_rows(rows, each) == contents.branch(each), each.title
    titles = [row[contents.rows.TITLE] for row in contents.branch(node("Chapter Four"))]
    assert titles == ["Area A", "Section A1", "Section A2", "Chapter Four", "Area B"]


@pytest.mark.django_db
def test_reading_path_is_kept_once_for_versions_that_share_it(client, small_tree):
    client.get("/area-a/")
    first = cache.get(
        contents.pages.OUTLINE_KEY, version=caching.version(client.get("/").wsgi_request)
    )
    edit("Chapter Two", body="A new body: Chapter Two is in the middle of its section.")
    second = cache.get(
        contents.pages.OUTLINE_KEY, version=caching.version(client.get("/area-a/").wsgi_request)
    )
    assert second is not None and second is not first
    assert second.bridges == first.bridges
    edit("Chapter Three", title="Chapter Three Renamed")  # the last of its section
    third = cache.get(
        contents.pages.OUTLINE_KEY, version=caching.version(client.get("/area-a/").wsgi_request)
    )
    assert third.bridges != first.bridges
    steps = cache.get(third.bridges)[node("Section A2").pk]
    assert [step and step[1][contents.rows.TITLE] for step in steps] == [
        "Chapter Three Renamed",
        "Chapter Five",
    ]
