"""Recent changes: the page, its filter and pagination, and the Atom feeds."""

import xml.etree.ElementTree as ET

import pytest

from chapters.models import Node
from tests.helpers import edit, node, soup

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.mark.django_db
def test_recent_changes_lists_the_latest_revisions_with_breadcrumbs(client, admin_user, small_tree):
    edit("Chapter Five", summary="Fix a typo", user=admin_user, body="Typo fixed.")
    rows = soup(client.get("/recent/")).find("ol", class_="recent").find_all("li")
    assert len(rows) == 12
    first = rows[0]
    assert [a.get_text() for a in first.find_all("a")] == [
        "Area B",
        "Section B1",
        "Chapter Five",
        f"revision #{Node.history.first().history_id}",
        "diff",
    ]
    assert "admin" in first.get_text() and "Fix a typo" in first.get_text()
    assert first.find_all("a")[-1]["href"] == f"/diff/?new={Node.history.first().history_id}"


@pytest.mark.django_db
def test_recent_changes_filters_by_area(client, small_tree):
    edit("Chapter Five", summary="In B")
    page = soup(client.get("/recent/", {"area": "area-b"}))
    shown = [a.get_text() for a in page.select("ol.recent a[href^='/revisions/']")]
    area_b = Node.history.filter(id__in=node("Area B").get_descendants(include_self=True))
    assert shown == [f"revision #{r.history_id}" for r in area_b]
    assert [r.title for r in area_b] == [
        "Chapter Five",
        "Chapter Six",
        "Chapter Five",
        "Section B1",
        "Area B",
    ]


@pytest.mark.django_db
def test_recent_changes_unknown_area_is_400(client, small_tree):
    response = client.get("/recent/", {"area": "no-such-area"})
    assert response.status_code == 400
    assert "Select a valid choice" in soup(response).find("ul", class_="errors").get_text()


@pytest.mark.django_db
def test_recent_changes_paginates(client, curriculum):
    first = soup(client.get("/recent/"))
    assert len(first.find("ol", class_="recent").find_all("li")) == 50
    assert first.find("nav", class_="pagination").a["href"] == "?page=2"
    last = soup(client.get("/recent/", {"page": 5}))
    assert len(last.find("ol", class_="recent").find_all("li")) == 22
    assert client.get("/recent/", {"page": "x"}).status_code == 200


def atom_entries(response):
    """Parse an Atom response; check the elements RFC 4287 requires; return its entries."""
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    for element in ("id", "title", "updated"):
        assert feed.find(f"{ATOM}{element}") is not None, element
    entries = feed.findall(f"{ATOM}entry")
    for entry in entries:
        for element in ("id", "title", "updated", "link", "author"):
            assert entry.find(f"{ATOM}{element}") is not None, element
    return entries


@pytest.mark.django_db
def test_feed_of_the_whole_wiki_lists_the_latest_revisions(client, small_tree):
    edit("Chapter Two", summary="Second draft", body="Draft two.")
    entries = atom_entries(client.get("/recent/feed/"))
    assert len(entries) == 12
    latest = Node.history.first()
    assert entries[0].find(f"{ATOM}title").text == "Chapter Two (changed)"
    assert (
        entries[0].find(f"{ATOM}link").get("href")
        == f"http://testserver/revisions/{latest.history_id}/"
    )
    assert entries[0].find(f"{ATOM}summary").text == "Second draft"


@pytest.mark.django_db
def test_feed_of_a_section_lists_only_its_subtree(client, small_tree):
    entries = atom_entries(client.get("/feeds/area-a/section-a1/"))
    assert sorted(e.find(f"{ATOM}title").text for e in entries) == [
        "Chapter One (created)",
        "Chapter Three (created)",
        "Chapter Two (created)",
        "Section A1 (created)",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/feeds/area-a/nothing/", "/feeds/area-a/section-a1/chapter-one/"]
)
def test_feed_of_an_unknown_section_is_404(client, small_tree, path):
    assert client.get(path).status_code == 404


@pytest.mark.django_db
def test_pages_link_their_feeds(client, small_tree):
    def feeds(url):
        page = soup(client.get(url))
        return [link["href"] for link in page.find_all("link", rel="alternate")]

    assert feeds("/") == ["/recent/feed/"]
    assert feeds("/area-a/section-a1/") == ["/recent/feed/", "/feeds/area-a/section-a1/"]
    assert feeds("/area-a/section-a1/chapter-one/") == [
        "/recent/feed/",
        "/feeds/area-a/section-a1/",
    ]


@pytest.mark.django_db
def test_meta_line_updated_is_the_latest_revision_date(client, small_tree):
    edit("Chapter One", summary="Touch")
    latest = Node.history.filter(id=node("Chapter One").pk).first()
    page = soup(client.get("/area-a/section-a1/chapter-one/"))
    assert page.find("p", class_="meta").time["datetime"] == latest.history_date.isoformat()


@pytest.mark.django_db
def test_feed_survives_control_characters_and_escapes_summaries(client, small_tree):
    edit("Chapter Two", summary="esc \x1b[31m <img src=x onerror=alert(1)>", title="Eviltitle")
    # A title stored before save() refused control characters (issue 24), as old data holds.
    Node.objects.filter(title="Eviltitle").update(title="Evil\x0btitle")
    Node.history.filter(title="Eviltitle").update(title="Evil\x0btitle")
    response = client.get("/recent/feed/")
    entries = atom_entries(response)
    assert entries[0].find(f"{ATOM}title").text == "Eviltitle (changed)"
    summary = entries[0].find(f"{ATOM}summary")
    assert (summary.get("type"), summary.text) == (
        "html",
        "esc [31m &lt;img src=x onerror=alert(1)&gt;",
    )
    atom_entries(client.get("/feeds/area-a/"))
