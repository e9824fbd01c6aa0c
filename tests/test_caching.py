"""Caching the reader's pages: the wiki's version, the contents, conditional GET, whole pages."""

import re
from unittest import mock

import pytest
from django.conf import settings
from django.contrib import messages
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.management import call_command
from django.db import connection
from django.http import HttpResponse
from django.urls import include
from django.urls import path as url_path
from django.utils.http import http_date
from pytest_django.asserts import assertHTMLEqual

from chapters import caching, history
from chapters.caching import SOURCES, source_digest
from chapters.models import Link, Node, PathRedirect, WikiVersion
from tests.helpers import edit, node, soup
from wiki.csp import PolicyOnceMiddleware

CHAPTER_FIVE = "/area-b/section-b1/chapter-five/"
# What a reader's page says, with the default settings (chapters.caching.pages).
READERS_CACHE_CONTROL = "public, max-age=0, s-maxage=1, stale-while-revalidate=1"


@pytest.mark.django_db
def test_page_views_render_no_markdown_and_sanitize_nothing(
    client, small_tree, admin_user, renderers
):
    convert, clean = renderers
    chapter = node("Chapter Five")
    chapter.body = "Fusing **two** kernels."
    chapter.save()
    assert (convert.call_count, clean.call_count) == (1, 1)  # saving renders, once
    cold = client.get(CHAPTER_FIVE)
    warm = client.get(CHAPTER_FIVE)
    client.force_login(admin_user)
    staff = client.get(CHAPTER_FIVE)
    assert "<p>Fusing <strong>two</strong> kernels.</p>" in warm.content.decode()
    assert warm.content == cold.content
    assert staff.status_code == 200
    assert (convert.call_count, clean.call_count) == (1, 1)


def reader_page(client, url):
    """Return a page's bytes, checking that it answered 200, without the value of its CSRF
    tokens: a signed-in user's page has forms (Watch), whose token Django masks anew on
    every rendering."""
    response = client.get(url)
    assert response.status_code == 200
    return re.sub(rb'(name="csrfmiddlewaretoken" value=")[^"]*', rb"\1", response.content)


def move_left_of(title, sibling):
    """Move the node ``title`` just before ``sibling``, as the admin's drag-and-drop does."""
    Node.objects.move_node(node(title), node(sibling), "left")


def node_first_revision(title):
    """Return the first revision of the node ``title``."""
    return Node.history.filter(id=node(title).pk).order_by("history_id").first()


def other_first_revision(title):
    """Return the first revision of the node ``title``, its title changed in memory: a revert
    to the revision as it is would change nothing, and write nothing."""
    revision = node_first_revision(title)
    revision.title = f"{revision.title}, as it was"
    return revision


EDITS = {
    "title": lambda: edit("Chapter One", title="Chapter 1"),
    "section title": lambda: edit("Section B1", title="Section B-one"),
    "status": lambda: edit("Chapter Two", status=Node.Status.PUBLISHED),
    "status by update()": lambda: Node.objects.filter(title="Chapter Six").update(
        status=Node.Status.PUBLISHED
    ),
    "slug": lambda: edit("Chapter One", slug="first"),
    "reorder": lambda: move_left_of("Chapter Six", "Chapter Five"),
    "move": lambda: Node.objects.move_node(node("Chapter Four"), node("Section B1")),
    "add": lambda: Node.objects.create(title="Chapter Seven", parent=node("Section B1")),
    "delete": lambda: node("Chapter Three").delete(),
    "body": lambda: edit("Chapter Two", body="See [[Chapter Five]]."),
    "revert": lambda: history.revert(node("Chapter 1"), node_first_revision("Chapter 1")),
}

# What an edit needs done (and shown) before it.
BEFORE_EDIT = {"revert": lambda: edit("Chapter One", title="Chapter 1")}


@pytest.mark.django_db
@pytest.mark.parametrize("viewer", ["reader", "staff"])
@pytest.mark.parametrize("kind", EDITS)
def test_every_edit_shows_at_once_on_another_page(client, small_tree, admin_user, viewer, kind):
    if viewer == "staff":
        client.force_login(admin_user)
    BEFORE_EDIT.get(kind, lambda: None)()
    before = reader_page(client, CHAPTER_FIVE)
    assert reader_page(client, CHAPTER_FIVE) == before  # now cached
    EDITS[kind]()
    after = reader_page(client, CHAPTER_FIVE)
    caching.clear()
    assert after != before
    assert after == reader_page(client, CHAPTER_FIVE)  # what a fresh rendering shows


@pytest.mark.django_db
def test_revert_shows_the_old_title_in_the_contents_of_another_page(client, small_tree):
    edit("Chapter One", title="Chapter 1")
    assert "Chapter 1</a>" in reader_page(client, CHAPTER_FIVE).decode()
    history.revert(node("Chapter 1"), node_first_revision("Chapter 1"))
    contents = soup(client.get(CHAPTER_FIVE)).find("nav", attrs={"aria-label": "All chapters"})
    assert contents.find("a", href="/area-a/section-a1/chapter-one/").get_text() == "Chapter One"


def version():
    """Return the version of the pages: the wiki's version and the code's digest."""
    return f"{WikiVersion.current()[0]}-{source_digest(settings.BASE_DIR, SOURCES)}"


def add_link():
    """Replace Chapter Five's links with one stored link."""
    Link.replace(node("Chapter Five"), [Link(kind=Link.Kind.PATH, text="/x/", problem="none")])


def raw_sql():
    """Write the tree's fields with SQL, as django-mptt does for moves."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE chapters_node SET lft = lft WHERE title = 'Chapter One'")


WRITES = {
    "save a new node": lambda: Node.objects.create(title="New", parent=node("Section A1")),
    "save a node": lambda: edit("Chapter One", body="New text."),
    "drag and drop": lambda: move_left_of("Chapter Two", "Chapter One"),
    "move_to": lambda: node("Chapter Four").move_to(node("Section A1")),
    "delete a node": lambda: node("Chapter Six").delete(),
    "delete by queryset": lambda: Node.objects.filter(title="Chapter Six").delete(),
    "QuerySet.update()": lambda: Node.objects.filter(title="Chapter One").update(title="One"),
    "bulk_update": lambda: Node.objects.bulk_update(
        [Node(pk=node("Chapter One").pk, title="One")], ["title"]
    ),
    "refresh_body": lambda: node("Chapter One").refresh_body(),
    "links": add_link,
    "redirects": lambda: PathRedirect.record({"old/path": node("Chapter One").pk}, taken=[]),
    "render_bodies": lambda: call_command("render_bodies", stdout=None),
    "loaddata": lambda: call_command("loaddata", "curriculum", verbosity=0),
    "revert": lambda: history.revert(node("Chapter One"), other_first_revision("Chapter One")),
    "raw SQL": raw_sql,
}


@pytest.mark.django_db
@pytest.mark.parametrize("write", WRITES)
def test_every_write_path_bumps_the_version(small_tree, write):
    before = WikiVersion.current()
    WRITES[write]()
    after = WikiVersion.current()
    assert after[0] != before[0]
    assert after[1] >= before[1]


@pytest.mark.django_db
def test_reading_leaves_the_version_alone(client, small_tree, admin_user):
    before = version()
    client.get(CHAPTER_FIVE)
    client.force_login(admin_user)
    client.get(CHAPTER_FIVE)
    client.get("/search/?q=chapter")
    assert version() == before


@pytest.mark.django_db
def test_page_sends_etag_and_last_modified_from_the_version(client, small_tree):
    response = client.get(CHAPTER_FIVE)
    changed = WikiVersion.current()[1]
    assert response["ETag"] == f'"{version()}-reader"'
    assert response["Last-Modified"] == http_date(changed.timestamp())
    assert response["Cache-Control"] == READERS_CACHE_CONTROL
    assert response["Vary"] == "Accept-Encoding"  # compressed for a browser that takes it


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE"])
def test_matching_conditional_get_is_304_without_rendering(
    client, small_tree, renderers, django_assert_num_queries, header
):
    first = client.get(CHAPTER_FIVE)
    validator = first["ETag" if header == "HTTP_IF_NONE_MATCH" else "Last-Modified"]
    caching.clear()  # nothing to serve from: a 304 must not need it
    with django_assert_num_queries(1):  # the version
        response = client.get(CHAPTER_FIVE, **{header: validator})
    assert (response.status_code, response.content, response.templates) == (304, b"", [])
    assert response["ETag"] == first["ETag"]
    assert [each.call_count for each in renderers] == [0, 0]


def validators(response):
    """Return the headers of ``response`` that a 304 repeats from its page."""
    return {h: response[h] for h in ["ETag", "Last-Modified", "Cache-Control", "Vary"]}


@pytest.mark.django_db
@pytest.mark.parametrize("url", [CHAPTER_FIVE, "/area-b/", "/"])
def test_reader_pages_and_304s_are_answered_before_sessions_as_the_view_answers(
    client, small_tree, settings, url
):
    rendered = client.get(url)  # by the view, which keeps it
    with (
        mock.patch.object(
            SessionMiddleware, "process_request", autospec=True, side_effect=AssertionError
        ) as sessions,
        mock.patch.object(
            PolicyOnceMiddleware, "process_response", autospec=True, side_effect=AssertionError
        ) as csp,
    ):
        early = client.get(url, HTTP_IF_NONE_MATCH=rendered["ETag"])  # before CSP too
    with mock.patch.object(
        SessionMiddleware, "process_request", autospec=True, side_effect=AssertionError
    ) as sessions_again:
        kept = client.get(url)
    assert sessions.call_count == csp.call_count == sessions_again.call_count == 0
    assert (kept.status_code, kept.content) == (200, rendered.content)
    assert sorted(kept.headers.items()) == sorted(rendered.headers.items())
    assert rendered["Vary"] == "Accept-Encoding"  # readers' pages are compressed
    assert rendered["Cache-Control"] == READERS_CACHE_CONTROL
    assert early.content == b""
    answers = [early]
    for leaving_out in ["ReaderNotModified", "Reader"]:  # then the next one answers
        settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if leaving_out not in m]
        answers.append(client.get(url, HTTP_IF_NONE_MATCH=rendered["ETag"]))
    assert [answer.status_code for answer in answers] == [304, 304, 304]
    assert [validators(answer) for answer in answers] == [validators(rendered)] * 3


@pytest.mark.django_db
def test_shared_cache_seconds_come_from_the_settings(client, small_tree, settings):
    settings.WIKI_SHARED_CACHE_SECONDS, settings.WIKI_SHARED_CACHE_STALE_SECONDS = 5, 30
    rendered = client.get(CHAPTER_FIVE)
    kept = client.get(CHAPTER_FIVE)
    not_modified = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=rendered["ETag"])
    assert [kept.templates, not_modified.status_code] == [[], 304]
    assert {r["Cache-Control"] for r in [rendered, kept, not_modified]} == {
        "public, max-age=0, s-maxage=5, stale-while-revalidate=30"
    }


@pytest.mark.django_db
def test_reader_head_has_the_pages_headers(client, small_tree):
    page = client.get(CHAPTER_FIVE)
    head = client.head(CHAPTER_FIVE)
    assert (head.status_code, head.content) == (200, b"")
    assert validators(head) == validators(page)
    assert head["Cache-Control"] == READERS_CACHE_CONTROL


def cookie_setting_page(request):
    """A reader's page that sets a cookie of its own."""
    response = HttpResponse("<p>Hello</p>")
    response.set_cookie("greeted", "yes")
    return response


def page_with_a_message(request):
    """A reader's page that leaves a message, which the messages middleware, after the
    view, keeps in a cookie."""
    messages.info(request, "Welcome")
    return HttpResponse("<p>Hello</p>")


urlpatterns = [
    url_path("sets-a-cookie/", caching.cached_page(cookie_setting_page)),
    url_path("leaves-a-message/", caching.cached_page(page_with_a_message)),
    url_path("", include("wiki.urls")),
]


@pytest.mark.django_db
@pytest.mark.urls(__name__)
@pytest.mark.parametrize(
    ("url", "cookie"), [("/sets-a-cookie/", "greeted"), ("/leaves-a-message/", "messages")]
)
def test_reader_page_that_sets_a_cookie_is_private_and_not_kept(client, url, cookie):
    first = client.get(url)
    client.cookies.clear()
    again = client.get(url)
    assert [list(first.cookies), list(again.cookies)] == [[cookie], [cookie]]
    assert first["Cache-Control"] == again["Cache-Control"] == "no-cache, private"


@pytest.mark.django_db
def test_pages_of_other_views_say_nothing_a_shared_cache_keeps(client, small_tree):
    answers = {url: client.get(url) for url in ["/search/?q=chapter", "/history/area-b/"]}
    assert {url: r.status_code for url, r in answers.items()} == dict.fromkeys(answers, 200)
    assert {url: r.get("Cache-Control") for url, r in answers.items()} == dict.fromkeys(answers)
    assert client.get("/admin/login/")["Cache-Control"] == (
        "max-age=0, no-cache, no-store, must-revalidate, private"
    )


@pytest.mark.django_db
def test_reader_304_for_a_host_not_allowed_is_refused(client, small_tree):
    etag = client.get(CHAPTER_FIVE)["ETag"]
    response = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=etag, HTTP_HOST="evil.example")
    assert response.status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "status"), [("/search/?q=chapter", 200), ("/admin/", 302)])
def test_reader_etag_sent_to_another_view_is_not_answered_304(client, small_tree, url, status):
    etag = client.get(CHAPTER_FIVE)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == status


@pytest.mark.django_db
def test_signed_in_user_with_the_reader_etag_gets_their_page(client, small_tree, admin_user):
    etag = client.get(CHAPTER_FIVE)["ETag"]
    client.force_login(admin_user)
    response = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] == etag.replace("-reader", f"-user-{admin_user.pk}-editor")


@pytest.mark.django_db
def test_conditional_get_after_an_edit_is_the_new_page(client, small_tree):
    first = client.get(CHAPTER_FIVE)
    edit("Chapter Six", title="Chapter 6")
    response = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=first["ETag"])
    assert response.status_code == 200
    assert response["ETag"] != first["ETag"]
    assert "Chapter 6" in soup(response).find(class_="pager").get_text()


@pytest.mark.django_db
def test_cached_page_is_the_same_bytes_for_one_query_and_sets_no_cookie(
    client, small_tree, django_assert_num_queries
):
    first = client.get(CHAPTER_FIVE)
    with django_assert_num_queries(1):
        again = client.get(CHAPTER_FIVE)
    assert again.content == first.content
    assert (again["Content-Type"], again["ETag"]) == (first["Content-Type"], first["ETag"])
    assert not first.cookies and not again.cookies
    assert "csrfmiddlewaretoken" not in first.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("staff_first", [True, False])
def test_staff_and_readers_never_share_a_page(small_tree, admin_user, client, staff_first):
    staff = type(client)()
    staff.force_login(admin_user)
    pages = {}
    for who in (["staff", "reader"] if staff_first else ["reader", "staff"]) * 2:
        response = (staff if who == "staff" else client).get(CHAPTER_FIVE)
        pages.setdefault(who, []).append(response)
    edit_links = {
        who: [bool(soup(r).find("a", class_="edit-link")) for r in got]
        for who, got in pages.items()
    }
    assert edit_links == {"staff": [True, True], "reader": [False, False]}
    assert pages["staff"][0]["ETag"] == f'"{version()}-user-{admin_user.pk}-editor"'
    assert pages["staff"][0]["Cache-Control"] == "no-cache, private"
    assert pages["staff"][0]["Vary"] == "Cookie"
    assert pages["reader"][0]["ETag"] == f'"{version()}-reader"'


@pytest.mark.django_db
def test_staff_page_with_waiting_messages_is_rendered_despite_a_matching_etag(
    client, small_tree, admin_user
):
    client.force_login(admin_user)
    revision = node_first_revision("Chapter Five")
    chapter = edit("Chapter Five", body="Changed, to be reverted.")
    response = client.post(f"/revisions/{revision.history_id}/revert/")
    assert response.status_code == 302
    etag = f'"{version()}-user-{admin_user.pk}-editor"'
    page = client.get(chapter.get_absolute_url(), HTTP_IF_NONE_MATCH=etag)
    assert page.status_code == 200
    assert soup(page).find(class_="messages").get_text(strip=True) == (
        f"“Chapter Five” was reverted to revision {revision.history_id}."
    )
    assert client.get(chapter.get_absolute_url(), HTTP_IF_NONE_MATCH=etag).status_code == 304


@pytest.mark.django_db
def test_reader_with_a_session_cookie_gets_a_fresh_page(client, small_tree):
    cached = client.get(CHAPTER_FIVE)
    assert client.get(CHAPTER_FIVE).templates == []  # from the cache
    client.cookies["sessionid"] = "no-such-session"
    response = client.get(CHAPTER_FIVE)
    assert [t.name for t in response.templates][0] == "chapters/chapter.html"
    assert response.content == cached.content
    assert response["Cache-Control"] == "no-cache, private"
    assert response["Vary"] == "Cookie"


# The contents beside the page of Section A2: names only, chapters not yet published with a
# quiet class and described by the legend; its area's and its own list open, Section A1's
# closed, its link the current page.
CONTENTS_BESIDE_SECTION_A2 = """
<ol>
<li class="toc-section"><a href="/area-a/">Area A</a>
  <details open>
  <summary><span class="visually-hidden">Contents of “Area A”</span></summary>
  <ol>
  <li class="toc-section"><a href="/area-a/section-a1/">Section A1</a>
    <details>
    <summary><span class="visually-hidden">Contents of “Section A1”</span></summary>
    <ol>
    <li class="toc-chapter toc-unpublished">
      <a href="/area-a/section-a1/chapter-one/"
        aria-describedby="toc-legend">Chapter One</a></li>
    </ol>
    </details>
  </li>
  <li class="toc-section">
    <a href="/area-a/section-a2/" aria-current="page">Section A2</a>
    <details open>
    <summary><span class="visually-hidden">Contents of “Section A2”</span></summary>
    <ol>
    <li class="toc-chapter toc-unpublished">
      <a href="/area-a/section-a2/chapter-two/"
        aria-describedby="toc-legend">Chapter Two</a></li>
    </ol>
    </details>
  </li>
  </ol>
  </details>
</li>
<li class="toc-section"><a href="/area-b/">Area B</a></li>
</ol>
"""


@pytest.mark.django_db
def test_contents_beside_a_page_open_the_path_and_mark_the_page(client, load_outline):
    load_outline("Area A\n  Section A1\n    Chapter One\n  Section A2\n    Chapter Two\nArea B\n")
    for _ in range(2):  # rendered, then from the cache
        page = soup(client.get("/area-a/section-a2/"))
        assertHTMLEqual(str(page.find(id="toc").ol), CONTENTS_BESIDE_SECTION_A2)


@pytest.mark.django_db
def test_empty_section_beside_its_page_opens_nothing_after_it(client, load_outline):
    load_outline("Area A\n  Section A1\n  Section A2\n    Chapter Two\n")
    client.get("/")
    page = soup(client.get("/area-a/section-a1/"))
    open_sections = [
        details.parent.a.get_text()
        for details in page.find(id="toc").find_all("details", open=True)
    ]
    assert open_sections == ["Area A"]
