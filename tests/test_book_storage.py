"""Books kept in Django's storage ``books``, whatever backend it is: built, stored, sent and
deleted through the storage API alone (here Django's in-memory storage, which has no folder),
and sent only when their build's row says built."""

import hashlib
import zipfile
from io import BytesIO

import pytest

from chapters.books import builds
from chapters.books.builds import BookKey, book_storage, ready
from chapters.models import BookBuild
from tests.helpers import edit, node, run_with_environment

IN_MEMORY = {"BACKEND": "django.core.files.storage.InMemoryStorage"}


@pytest.fixture
def in_memory(settings, tmp_path):
    """Keep the test's books in an in-memory storage, with ``BOOKS_ROOT`` a folder that is
    not there (nothing may make it); return the folder."""
    settings.BOOKS_ROOT = tmp_path / "books"
    settings.STORAGES = {**settings.STORAGES, "books": IN_MEMORY}
    return settings.BOOKS_ROOT


@pytest.fixture
def titles_renderer(monkeypatch):
    """Render books as the list of their chapters' titles."""

    def render(book, built, progress):
        return str([each.title for each in book.nodes if each.is_chapter]).encode()

    monkeypatch.setattr(builds, "_renderer", lambda format: render)


def stored_name(key):
    """Return the name the book of ``key`` is stored under, as the storage lists it."""
    return f"{key.root}-{hashlib.sha256(key.version.encode()).hexdigest()[:16]}.{key.format}"


def only_key():
    """Return the key of the one build there is."""
    build = BookBuild.objects.get()
    return BookKey(build.root, build.format, build.version)


@pytest.mark.django_db
def test_book_in_memory_storage_is_built_and_sent_without_a_folder(
    small_tree, client, run_tasks, in_memory
):
    assert client.get("/books/epub/area-b/").status_code == 202
    assert run_tasks() == 1
    key = only_key()
    assert key.name == f"epub/{stored_name(key)}"
    assert book_storage().listdir("epub") == ([], [stored_name(key)])
    with book_storage().open(key.name) as book:
        stored = book.read()
    response = client.get("/books/epub/area-b/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/epub+zip"
    assert response["Content-Disposition"] == 'attachment; filename="area-b.epub"'
    assert response["Content-Length"] == str(len(stored))
    assert b"".join(response.streaming_content) == stored
    with zipfile.ZipFile(BytesIO(stored)) as package:
        assert package.read("mimetype") == b"application/epub+zip"
    assert not in_memory.exists()


@pytest.mark.django_db
def test_book_in_storage_at_a_new_version_deletes_the_old_one(
    small_tree, client, run_tasks, in_memory, titles_renderer
):
    client.get("/books/pdf/area-b/")
    run_tasks()
    old = only_key()
    client.get("/books/pdf/area-a/")
    run_tasks()
    area_a = BookKey(node("Area A").pk, "pdf", old.version)
    edit("Chapter Five", title="Chapter Five, renamed")
    assert client.get("/books/pdf/area-b/").status_code == 202
    run_tasks()
    new = BookKey(node("Area B").pk, "pdf", BookBuild.objects.get(root=old.root).version)
    assert new.version != old.version
    assert sorted(book_storage().listdir("pdf")[1]) == sorted(
        [stored_name(new), stored_name(area_a)]
    )
    assert list(BookBuild.objects.order_by("root").values_list("root", "version")) == [
        (area_a.root, old.version),
        (new.root, new.version),
    ]
    response = client.get("/books/pdf/area-b/")
    assert b"".join(response.streaming_content) == b"['Chapter Five, renamed', 'Chapter Six']"
    assert not in_memory.exists()


@pytest.mark.django_db
def test_reader_is_sent_a_stored_book_only_when_its_build_is_done(small_tree, client, in_memory):
    assert client.get("/books/epub/area-a/").status_code == 202
    key = only_key()
    book_storage().save(key.name, BytesIO(b"half a book"))
    assert (ready(key), client.get("/books/epub/area-a/").status_code) == (None, 202)
    BookBuild.objects.update(status="failed")
    assert (ready(key), client.get("/books/epub/area-a/").status_code) == (None, 500)
    BookBuild.objects.all().delete()
    assert (ready(key), client.get("/books/epub/area-a/").status_code) == (None, 202)
    assert BookBuild.objects.get().status == "building"
    BookBuild.objects.update(status="built")
    response = client.get("/books/epub/area-a/")
    assert (ready(key), response.status_code) == (key.name, 200)
    assert b"".join(response.streaming_content) == b"half a book"
    assert book_storage().listdir("epub") == ([], [stored_name(key)])


def test_book_storage_comes_from_the_environment():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'wiki.settings'; "
        "from django.conf import settings as s; "
        "print(repr(s.STORAGES['books']))"
    )
    local = run_with_environment(code, DJANGO_SECRET_KEY="k", WIKI_BOOKS_ROOT="/srv/books")
    assert local.strip() == (
        "{'BACKEND': 'django.core.files.storage.FileSystemStorage', "
        "'OPTIONS': {'location': PosixPath('/srv/books')}}"
    )
    s3 = run_with_environment(
        code, DJANGO_SECRET_KEY="k", WIKI_BOOKS_ROOT="/srv/books",
        WIKI_MEDIA_S3_BUCKET="wiki-media", WIKI_MEDIA_S3_REGION="eu-west-1",
    )  # fmt: skip
    assert s3.strip() == (
        "{'BACKEND': 'storages.backends.s3.S3Storage', 'OPTIONS': {'bucket_name': "
        "'wiki-media', 'endpoint_url': None, 'region_name': 'eu-west-1', 'location': "
        "'books', 'file_overwrite': True, 'default_acl': 'private', "
        "'max_memory_size': 1048576}}"
    )
