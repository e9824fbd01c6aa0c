"""Books built once per version by a background task: the download, or a page with the
build's progress; one build however many requests; a failed build and its retry; older
versions removed."""

import logging
import re
import threading

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import dateformat, timezone
from django_tasks_db.models import DBTaskResult

from chapters.books import builds
from chapters.books.builds import BookKey, book_storage, build
from chapters.models import BookBuild
from chapters.worker import hand_back_orphans
from tests.helpers import edit, node, soup
from tests.test_books import epub_package, pdf_text

pytestmark = pytest.mark.usefixtures("books_root")

BUILD_TASK = "chapters.tasks.build_book"


def book_tasks():
    """Return the build tasks enqueued, as ``(args, status)`` pairs in the order made."""
    tasks = DBTaskResult.objects.filter(task_path=BUILD_TASK).order_by("enqueued_at")
    return [(task.args_kwargs["args"], task.status) for task in tasks]


def area_a_key():
    """Return the key of the one build of Area A's book, as the requests made it."""
    build = BookBuild.objects.get()
    return BookKey(build.root, build.format, build.version)


@pytest.fixture
def fake_renderer(monkeypatch):
    """Render books as a list of their chapters' titles, recording the build's stored
    progress each time a node is done: ``record`` holds ``done`` as the row says."""
    record = []

    def render(book, built, progress):
        for each in book.nodes:
            progress(each)
            record.append(BookBuild.objects.get().done)
        return f"{built.isoformat()} {[n.title for n in book.nodes if n.is_chapter]}".encode()

    monkeypatch.setattr(builds, "_renderer", lambda format: render)
    return record


@pytest.mark.django_db
def test_book_not_built_answers_202_with_a_page_that_refreshes(small_tree, client):
    response = client.get("/books/pdf/area-a/")
    assert response.status_code == 202
    assert response["Retry-After"] == "5"
    assert "no-cache" in response["Cache-Control"]
    page = soup(response)
    assert page.find("meta", attrs={"http-equiv": "refresh"})["content"] == "5"
    assert page.h1.text == "The PDF of “Area A” is being built"
    assert str(page.find("p", class_="book-progress")) == (
        '<p class="book-progress">\n'
        '<label for="book-progress">Waiting for the build to start</label>\n'
        '<progress id="book-progress">Waiting for the build to start</progress>\n'
        "</p>"
    )
    build = BookBuild.objects.get()
    assert (build.root, build.format, build.status) == (node("Area A").pk, "pdf", "building")
    assert book_tasks() == [([node("Area A").pk, "pdf", build.version], "READY")]
    assert DBTaskResult.objects.get().queue_name == "books"


@pytest.mark.django_db
def test_a_hundred_requests_for_one_book_start_one_build_and_enqueue_one_task(small_tree, client):
    statuses = {client.get("/books/epub/area-a/").status_code for _ in range(100)}
    assert statuses == {202}
    assert BookBuild.objects.count() == 1
    assert len(book_tasks()) == 1


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_hundred_requests_from_threads_start_one_build_and_enqueue_one_task(small_tree):
    threads, per_thread = 20, 5
    barrier = threading.Barrier(threads)
    statuses = []

    def ask():
        client = Client()
        try:
            barrier.wait()
            for _ in range(per_thread):
                statuses.append(client.get("/books/epub/area-a/").status_code)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=ask) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert statuses == [202] * 100
    assert BookBuild.objects.count() == 1
    assert len(book_tasks()) == 1


@pytest.mark.django_db
def test_waiting_page_shows_the_chapters_done_of_the_total(small_tree, client):
    client.get("/books/pdf/area-a/")
    BookBuild.objects.update(done=3, total=12)
    page = soup(client.get("/books/pdf/area-a/"))
    assert str(page.find("p", class_="book-progress")) == (
        '<p class="book-progress">\n'
        '<label for="book-progress">3 of 12 chapters done</label>\n'
        '<progress id="book-progress" max="12" value="3">3 of 12 chapters done</progress>\n'
        "</p>"
    )
    BookBuild.objects.update(done=12)
    page = soup(client.get("/books/pdf/area-a/"))
    assert (
        page.find("label", attrs={"for": "book-progress"}).text
        == "All 12 chapters done; putting the book together"
    )
    assert len(book_tasks()) == 1


@pytest.mark.django_db
@pytest.mark.parametrize(("steps", "stored"), [(20, [1, 2, 3, 4]), (2, [0, 2, 2, 4])])
def test_build_stores_its_progress_every_few_chapters(
    small_tree, client, run_tasks, fake_renderer, monkeypatch, steps, stored
):
    monkeypatch.setattr(builds, "PROGRESS_STEPS", steps)
    client.get("/books/pdf/area-a/")
    assert run_tasks() == 1
    # Area A, Section A1, three chapters, Section A2, one chapter: sections store nothing.
    assert fake_renderer == [0, 0, *stored[:3], stored[2], stored[3]]
    build = BookBuild.objects.get()
    assert (build.status, build.done, build.total) == ("built", 4, 4)


@pytest.mark.django_db
def test_built_book_is_sent_as_a_download(small_tree, client, run_tasks):
    assert client.get("/books/epub/area-b/").status_code == 202
    assert run_tasks() == 1
    response = client.get("/books/epub/area-b/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/epub+zip"
    assert response["Content-Disposition"] == 'attachment; filename="area-b.epub"'
    assert b"".join(response.streaming_content).startswith(b"PK\x03\x04")
    assert book_tasks() == [([node("Area B").pk, "epub", area_a_key().version], "SUCCESSFUL")]


# Transactional: the command runs a worker, whose loop closes a connection left in a
# transaction, as the test's would be.
@pytest.mark.django_db(transaction=True)
def test_books_built_ahead_are_sent_as_downloads(small_tree, client, capsys):
    call_command("build_books")
    out = capsys.readouterr().out
    assert "Area B (pdf): built, " in out
    assert "The Curriculum (epub): built, " in out
    assert len(book_tasks()) == 6
    response = client.get("/books/pdf/area-a/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="area-a.pdf"'
    assert b"".join(response.streaming_content).startswith(b"%PDF-")
    response = client.get("/books/epub/")
    assert response["Content-Disposition"] == 'attachment; filename="curriculum.epub"'
    call_command("build_books", "--section", "area-a", "--format", "pdf")
    assert capsys.readouterr().out == "Area A (pdf): built already.\n"
    assert len(book_tasks()) == 6


@pytest.mark.django_db
def test_an_edit_makes_a_new_version_whose_build_removes_the_old(
    small_tree, client, books_root, run_tasks
):
    call_command("build_books", "--section", "area-b", "--format", "epub", "--no-wait")
    run_tasks()
    old = list((books_root / "epub").glob("*.epub"))
    assert len(old) == 1
    edit("Chapter Five", body="New text.")
    assert client.get("/books/epub/area-b/").status_code == 202
    run_tasks()
    files = list((books_root / "epub").glob("*.epub"))
    key = BookKey(node("Area B").pk, "epub", BookBuild.objects.get().version)
    assert files == [books_root / key.name] and files != old
    assert client.get("/books/epub/area-b/").status_code == 200


@pytest.mark.django_db
def test_failed_build_shows_its_message_and_a_link_that_starts_it_once_again(
    small_tree, client, run_tasks, monkeypatch, caplog
):
    def broken(book, built, progress):
        raise ValueError("no fonts")

    monkeypatch.setattr(builds, "_renderer", lambda format: broken)
    client.get("/books/pdf/area-a/")
    with caplog.at_level(logging.ERROR, logger="chapters.books.builds"):
        assert run_tasks() == 1
    [record] = caplog.records
    assert record.getMessage() == f"The pdf of book {node('Area A').pk}- could not be built."
    assert record.exc_info[1].args == ("no fonts",)
    build = BookBuild.objects.get()
    assert (build.status, build.error) == ("failed", "ValueError('no fonts')")
    response = client.get("/books/pdf/area-a/")
    assert response.status_code == 500
    assert "Retry-After" not in response
    page = soup(response)
    assert page.find("meta", attrs={"http-equiv": "refresh"}) is None
    assert page.h1.text == "The PDF of “Area A” could not be built"
    assert str(page.find("a", string="Try again")) == (
        '<a href="?again" rel="nofollow">Try again</a>'
    )
    for _ in range(100):
        response = client.get("/books/pdf/area-a/?again")
        assert response.status_code == 302 and response["Location"] == "/books/pdf/area-a/"
    version = BookBuild.objects.get().version
    args = [node("Area A").pk, "pdf", version]
    assert book_tasks() == [(args, "SUCCESSFUL"), (args, "READY")]
    assert BookBuild.objects.get().status == "building"
    assert client.get("/books/pdf/area-a/").status_code == 202


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["epub", "pdf"])
def test_build_task_run_again_leaves_the_same_file(
    small_tree, client, run_tasks, books_root, format
):
    client.get(f"/books/{format}/area-a/")
    run_tasks()
    key = area_a_key()
    path = books_root / key.name
    first = path.read_bytes()
    stamp = path.stat().st_mtime_ns
    assert build(key) == "built"
    assert path.stat().st_mtime_ns == stamp
    path.unlink()
    BookBuild.objects.update(status="building")
    assert build(key) == "built"
    assert path.read_bytes() == first
    assert [each.name for each in path.parent.iterdir()] == [path.name]


@pytest.mark.django_db
def test_build_run_again_replaces_part_of_a_book_left_under_its_name(
    small_tree, client, run_tasks, books_root, fake_renderer
):
    client.get("/books/epub/area-a/")
    key = area_a_key()
    # A worker that died while storing the book left its first bytes; its task runs again.
    (books_root / "epub").mkdir(parents=True)
    (books_root / key.name).write_bytes(b"2026-")
    assert client.get("/books/epub/area-a/").status_code == 202
    assert run_tasks() == 1
    started = BookBuild.objects.get().started.isoformat()
    book = f"{started} ['Chapter One', 'Chapter Two', 'Chapter Three', 'Chapter Four']"
    assert [each.name for each in (books_root / "epub").iterdir()] == [
        key.name.removeprefix("epub/")
    ]
    assert (books_root / key.name).read_bytes() == book.encode()
    response = client.get("/books/epub/area-a/")
    assert b"".join(response.streaming_content) == book.encode()


@pytest.mark.django_db
def test_build_whose_worker_died_is_handed_back_and_done_once(
    small_tree, client, run_tasks, fake_renderer
):
    client.get("/books/epub/area-a/")
    DBTaskResult.objects.get().claim("dead-worker")
    assert run_tasks() == 0
    assert hand_back_orphans() == 1
    assert run_tasks() == 1
    assert DBTaskResult.objects.get().worker_ids == ["dead-worker", "tests"]
    with book_storage().open(area_a_key().name) as book:
        assert book.read().endswith(
            b"['Chapter One', 'Chapter Two', 'Chapter Three', 'Chapter Four']"
        )
    assert client.get("/books/epub/area-a/").status_code == 200


@pytest.mark.django_db
def test_built_book_whose_file_is_gone_is_built_again_once(small_tree, client, run_tasks):
    client.get("/books/epub/area-a/")
    run_tasks()
    book_storage().delete(area_a_key().name)
    for _ in range(3):
        assert client.get("/books/epub/area-a/").status_code == 202
    assert [status for _args, status in book_tasks()] == ["SUCCESSFUL", "READY"]
    run_tasks()
    assert client.get("/books/epub/area-a/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["/books/pdf/area-a/section-a1/nowhere/", "/books/doc/", "/books/pdf/nowhere/"]
)
def test_books_of_unknown_formats_or_paths_are_not_found(small_tree, client, url):
    assert client.get(url).status_code == 404
    assert BookBuild.objects.count() == 0


@pytest.mark.django_db
def test_requests_for_a_book_being_built_read_its_build_and_write_nothing(small_tree, client):
    client.get("/books/epub/area-a/")
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/books/epub/area-a/").status_code == 202
    # The section, the wiki's version (on SQLite: PostgreSQL is told of it), the build.
    tables = [re.search(r'FROM "?(\w+)', query["sql"])[1] for query in queries]
    assert [query["sql"].split()[0] for query in queries] == ["SELECT"] * len(tables)
    assert [table for table in tables if table != "chapters_wikiversion"] == [
        "chapters_node",
        "chapters_bookbuild",
    ]


@pytest.mark.django_db
def test_book_of_a_chapter_holds_the_chapter_alone(small_tree, client, run_tasks, tmp_path):
    chapter = node("Chapter One")
    url = "/books/{}/area-a/section-a1/chapter-one/"
    assert [client.get(url.format(f)).status_code for f in ("pdf", "epub")] == [202, 202]
    assert run_tasks() == 2
    assert [
        (build.root, build.format, build.status, build.done, build.total)
        for build in BookBuild.objects.order_by("format")
    ] == [(chapter.pk, "epub", "built", 1, 1), (chapter.pk, "pdf", "built", 1, 1)]
    epub = client.get(url.format("epub"))
    assert epub["Content-Disposition"] == 'attachment; filename="chapter-one.epub"'
    _, opf, _, _ = epub_package(b"".join(epub.streaming_content))
    spine = [ref.get("idref") for ref in opf.find("{http://www.idpf.org/2007/opf}spine")]
    assert spine == ["nav", f"n{chapter.pk}"]
    pdf = client.get(url.format("pdf"))
    assert pdf["Content-Disposition"] == 'attachment; filename="chapter-one.pdf"'
    path = tmp_path / "chapter.pdf"
    path.write_bytes(b"".join(pdf.streaming_content))
    started = dateformat.format(
        timezone.localtime(BookBuild.objects.get(format="pdf").started), "j F Y"
    )
    # The wiki's name, above the title, is letter-spaced: pdftotext splits it.
    lines = [line.strip() for line in pdf_text(path, 1).splitlines() if line.strip()]
    assert lines[1:] == ["Chapter One", f"1 chapter · {started}"]
    contents = re.findall(r"^ *(\S.*?) ?\.{3,} *(\d+)$", pdf_text(path, 2), re.MULTILINE)
    assert contents == [("Chapter One", "3")]
