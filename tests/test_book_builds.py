"""Books built once per version: the download or a page saying it is being built, one
process building each book, older versions removed."""

import fcntl
import time

import pytest
from django.core.management import call_command

from chapters.books import views
from chapters.books.builds import BookKey, build, ready
from tests.helpers import edit, node, soup

pytestmark = pytest.mark.usefixtures("books_root")


@pytest.fixture
def started(monkeypatch):
    """Record the builds the view starts instead of starting them."""
    keys = []
    monkeypatch.setattr(views, "start", keys.append)
    return keys


@pytest.mark.django_db
def test_book_not_built_answers_202_with_a_page_that_refreshes(small_tree, client, started):
    response = client.get("/books/pdf/area-a/")
    assert response.status_code == 202
    assert response["Retry-After"] == "5"
    assert "no-cache" in response["Cache-Control"]
    page = soup(response)
    assert page.find("meta", attrs={"http-equiv": "refresh"})["content"] == "5"
    assert page.h1.text == "The PDF of “Area A” is being built"
    assert [(key.root, key.format) for key in started] == [(node("Area A").pk, "pdf")]


@pytest.mark.django_db
def test_books_built_ahead_are_sent_as_downloads(small_tree, client, started, capsys):
    call_command("build_books")
    assert "Area B (pdf): built" in capsys.readouterr().out
    response = client.get("/books/pdf/area-a/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="area-a.pdf"'
    assert b"".join(response.streaming_content).startswith(b"%PDF-")
    response = client.get("/books/epub/")
    assert response["Content-Disposition"] == 'attachment; filename="curriculum.epub"'
    assert started == []


@pytest.mark.django_db
def test_an_edit_makes_a_new_version_whose_build_removes_the_old(
    small_tree, client, started, books_root
):
    call_command("build_books", "--section", "area-b", "--format", "epub")
    old = list((books_root / "epub").glob("*.epub"))
    assert len(old) == 1
    edit("Chapter Five", body="New text.")
    assert client.get("/books/epub/area-b/").status_code == 202
    build(started[0])
    files = list((books_root / "epub").glob("*.epub"))
    assert files == [started[0].path] and files != old
    assert client.get("/books/epub/area-b/").status_code == 200


@pytest.mark.django_db
def test_a_book_another_process_is_building_is_left_to_it(small_tree):
    key = BookKey(node("Area A").pk, "pdf", "v1")
    key.path.parent.mkdir(parents=True)
    with open(key.path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert build(key) is False
    assert ready(key) is None
    assert build(key) is True and ready(key) == key.path


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["/books/pdf/area-a/section-a1/chapter-one/", "/books/doc/", "/books/pdf/nowhere/"]
)
def test_books_of_chapters_unknown_formats_or_paths_are_not_found(small_tree, client, url):
    assert client.get(url).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_reader_is_sent_the_book_once_the_background_build_is_done(small_tree, client):
    assert client.get("/books/epub/area-b/").status_code == 202
    deadline = time.monotonic() + 60
    while (response := client.get("/books/epub/area-b/")).status_code == 202:
        assert time.monotonic() < deadline, "the book was not built within a minute"
        time.sleep(0.2)
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="area-b.epub"'
