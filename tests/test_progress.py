"""A reader's progress: the chapters marked done (``chapters.progress``), its JSON, the join of
a browser's list on sign-in, and reader pages that stay the same for every reader."""

import json
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.test.html import parse_html

from chapters.models import ChapterDone, Node
from chapters.progress import join, read_ids
from tests.helpers import node, soup

CHAPTER = "/area-a/section-a1/chapter-one/"
NEVER_CACHED = "max-age=0, no-cache, no-store, must-revalidate, private"


@pytest.fixture
def reader(db):
    """A signed-in reader without any role."""
    return get_user_model().objects.create_user("reader", password="secret-words-123")


def signed_in(user):
    """Return a client that checks CSRF tokens, signed in as ``user``, and its token (as the
    script reads it: from the header's sign-out form)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    token = soup(client.get(CHAPTER)).select_one(".sign-out [name=csrfmiddlewaretoken]")
    return client, token["value"]


def post(client, url, token, **fields):
    """POST ``fields`` to ``url`` as js/progress.js does, with the CSRF header."""
    return client.post(url, fields, headers={"X-CSRFToken": token})


def entry(title):
    """Return the JSON entry of the chapter ``title``."""
    chapter = node(title)
    return {"id": chapter.pk, "path": chapter.get_absolute_url(), "title": chapter.title}


def last(user, title):
    """Return the JSON ``last`` of ``user`` having marked ``title`` last."""
    mark = ChapterDone.objects.get(user=user, node=node(title))
    return {**entry(title), "done": mark.done.isoformat()}


@pytest.mark.django_db
def test_progress_for_a_reader_not_signed_in_is_empty_and_never_cached(client, small_tree):
    response = client.get("/progress/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == {"signed_in": False, "done": [], "last": None}
    assert response["Cache-Control"] == NEVER_CACHED
    assert response["Vary"] == "Cookie"


@pytest.mark.django_db
def test_progress_mark_and_unmark_answer_the_whole_progress(small_tree, reader):
    client, token = signed_in(reader)
    response = post(client, "/progress/", token, chapter=node("Chapter Two").pk, done="true")
    assert response.status_code == 200
    assert response["Cache-Control"] == NEVER_CACHED
    assert json.loads(response.content) == {
        "signed_in": True,
        "done": [entry("Chapter Two")],
        "last": last(reader, "Chapter Two"),
    }
    post(client, "/progress/", token, chapter=node("Chapter Five").pk, done="true")
    post(client, "/progress/", token, chapter=node("Chapter Two").pk, done="true")  # again
    assert json.loads(client.get("/progress/").content) == {
        "signed_in": True,
        "done": [entry("Chapter Two"), entry("Chapter Five")],
        "last": last(reader, "Chapter Five"),
    }
    response = post(client, "/progress/", token, chapter=node("Chapter Five").pk, done="false")
    assert json.loads(response.content) == {
        "signed_in": True,
        "done": [entry("Chapter Two")],
        "last": last(reader, "Chapter Two"),
    }


@pytest.mark.django_db
def test_progress_post_needs_the_csrf_token(small_tree, reader):
    client, _token = signed_in(reader)
    response = client.post("/progress/", {"chapter": node("Chapter Two").pk, "done": "true"})
    assert response.status_code == 403
    assert not ChapterDone.objects.exists()


@pytest.mark.django_db
def test_progress_post_refuses_readers_not_signed_in(client, small_tree):
    response = client.post("/progress/", {"chapter": node("Chapter Two").pk, "done": "true"})
    assert response.status_code == 403
    assert json.loads(response.content) == {"signed_in": False, "done": [], "last": None}
    assert client.post("/progress/join/", {"chapters": "1"}).status_code == 403
    assert not ChapterDone.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("chapter", "status"), [("Section A1", 404), ("999999", 404), ("two", 400), ("", 400)]
)
def test_progress_post_of_no_chapter_changes_nothing(small_tree, reader, chapter, status):
    client, token = signed_in(reader)
    pk = node(chapter).pk if chapter.startswith("Section") else chapter
    response = post(client, "/progress/", token, chapter=pk, done="true")
    assert response.status_code == status
    assert json.loads(response.content) == {"signed_in": True, "done": [], "last": None}


@pytest.mark.django_db
def test_progress_join_adds_the_browsers_chapters_once_and_ignores_the_rest(small_tree, reader):
    client, token = signed_in(reader)
    post(client, "/progress/", token, chapter=node("Chapter Six").pk, done="true")
    kept = ChapterDone.objects.get().done
    one, four, six = (node(title).pk for title in ("Chapter One", "Chapter Four", "Chapter Six"))
    sent = f"{four},{one}, {one},999999,{node('Area A').pk},x,-3,,{six}"
    response = post(client, "/progress/join/", token, chapters=sent)
    assert response.status_code == 200
    assert response["Cache-Control"] == NEVER_CACHED
    expected = [entry("Chapter Six"), entry("Chapter One"), entry("Chapter Four")]
    assert [each["title"] for each in json.loads(response.content)["done"]] == [
        "Chapter Six",
        "Chapter One",
        "Chapter Four",
    ]
    assert json.loads(response.content)["done"] == expected
    again = post(client, "/progress/join/", token, chapters=sent)
    assert json.loads(again.content) == json.loads(response.content)
    assert ChapterDone.objects.count() == 3
    assert ChapterDone.objects.get(node_id=six).done == kept


def test_progress_read_ids_keeps_whole_numbers_up_to_the_limit():
    assert read_ids("12, 40,x,,12,-3,4.5,٣,7") == {12, 40, 7}
    assert read_ids("1,2,3,4", limit=2) == {1, 2}


@pytest.mark.django_db
def test_progress_join_returns_how_many_chapters_it_marked(small_tree, reader):
    ids = {node("Chapter One").pk, node("Section A1").pk, 999999}
    assert join(reader, ids) == 1
    assert join(reader, ids) == 0


@pytest.mark.django_db
def test_chapter_done_natural_key_is_username_and_path(small_tree, reader):
    join(reader, {node("Chapter Four").pk})
    mark = ChapterDone.objects.get()
    assert mark.natural_key() == ("reader", "area-a/section-a2/chapter-four")
    assert ChapterDone.objects.get_by_natural_key(*mark.natural_key()) == mark
    assert str(mark) == "reader finished “Chapter Four”"


@pytest.mark.django_db
def test_chapter_done_exports_by_username_and_path_and_loads_back(small_tree, reader, tmp_path):
    join(reader, {node("Chapter Four").pk, node("Chapter Six").pk})
    ChapterDone.objects.update(done=datetime(2026, 12, 4, 16, 30, tzinfo=UTC))
    dump = tmp_path / "progress.json"
    call_command(
        "dumpdata", "chapters.chapterdone", "--natural-foreign", "--natural-primary",
        output=str(dump), verbosity=0,
    )  # fmt: skip
    assert json.loads(dump.read_text()) == [
        {
            "model": "chapters.chapterdone",
            "fields": {
                "user": ["reader"],
                "node": [path],
                "done": "2026-12-04T16:30:00Z",
            },
        }
        for path in ["area-a/section-a2/chapter-four", "area-b/section-b1/chapter-six"]
    ]
    ChapterDone.objects.all().delete()
    call_command("loaddata", str(dump), verbosity=0)
    assert list(ChapterDone.objects.values_list("user__username", "node__title", "done")) == [
        ("reader", "Chapter Four", datetime(2026, 12, 4, 16, 30, tzinfo=UTC)),
        ("reader", "Chapter Six", datetime(2026, 12, 4, 16, 30, tzinfo=UTC)),
    ]


@pytest.mark.django_db
def test_chapter_page_holds_the_done_button_for_the_script(client, small_tree):
    page = soup(client.get(CHAPTER))
    done = page.find("div", class_="chapter-done")
    assert parse_html(str(done)) == parse_html(
        f'<div class="chapter-done" data-chapter="{node("Chapter One").pk}">'
        '<button type="button" class="done-button">Mark as done</button>'
        '<span class="done-status visually-hidden" role="status"></span></div>'
    )


@pytest.mark.django_db
def test_signed_in_header_names_the_progress_urls(small_tree, reader):
    client, _token = signed_in(reader)
    account = soup(client.get(CHAPTER)).find("div", class_="account")
    assert (account["data-progress-url"], account["data-progress-join-url"]) == (
        "/progress/",
        "/progress/join/",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", CHAPTER, "/area-a/section-a1/"])
def test_readers_get_the_same_bytes_and_headers_whatever_anyone_marked(small_tree, reader, url):
    first = Client().get(url)
    join(reader, {node("Chapter One").pk, node("Chapter Two").pk})
    second = Client().get(url)
    assert second.content == first.content
    headers = ("Cache-Control", "ETag", "Last-Modified", "Vary", "Content-Type")
    assert [second.get(name) for name in headers] == [first.get(name) for name in headers]
    assert first["Cache-Control"] == "public, max-age=0, s-maxage=1, stale-while-revalidate=1"
    assert "Set-Cookie" not in second


@pytest.mark.django_db
def test_home_shows_progress_and_continue_hidden_for_the_script(client, curriculum):
    page = soup(client.get("/"))
    resume = page.find("p", class_="continue-reading")
    assert parse_html(str(resume)) == parse_html('<p class="continue-reading" hidden></p>')
    card = page.select(".area-card")[4]
    bars = card.select(".progress[data-progress]")
    assert [
        (bar.name, bar["data-progress"], bar["data-chapters"], bar.has_attr("hidden"))
        for bar in bars
    ] == [
        ("p", "/ml-systems/", "20", True),
        ("span", "/ml-systems/gpu-computing/", "4", True),
        ("span", "/ml-systems/runtimes-and-frameworks/", "2", True),
        ("span", "/ml-systems/ml-compilers/", "2", True),
        ("span", "/ml-systems/training-at-scale/", "2", True),
        ("span", "/ml-systems/inference/", "4", True),
        ("span", "/ml-systems/efficiency/", "4", True),
        ("span", "/ml-systems/edge-machine-learning/", "2", True),
    ]


@pytest.mark.django_db
def test_progress_deleting_a_chapter_forgets_its_marks(small_tree, reader):
    join(reader, {node("Chapter Three").pk})
    Node.objects.get(title="Chapter Three").delete()
    assert not ChapterDone.objects.exists()
