"""Caching the reader's pages, what each process keeps: the source digest, the pages it read
last, old revisions rendered once, paths resolved once, reader headers made once."""

import threading

import pytest
from django.core.cache import cache
from django.urls import Resolver404, URLResolver, get_resolver, resolve
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from chapters import caching
from chapters.caching import source_digest
from chapters.caching.middleware import (
    _is_not_modified,
    reader_headers,
    resolves_to_cached_page,
)
from chapters.metrics import _view_of
from chapters.models import Node
from tests.helpers import edit, node
from tests.test_caching import node_first_revision, reader_page, validators

CHAPTER_FIVE = "/area-b/section-b1/chapter-five/"
# What a reader's page says, with the default settings (chapters.caching.pages).
READERS_CACHE_CONTROL = "public, max-age=0, s-maxage=1, stale-while-revalidate=1"


def test_source_digest_changes_with_any_file_but_not_with_compiled_python(tmp_path):
    (tmp_path / "templates" / "chapters").mkdir(parents=True)
    (tmp_path / "chapters" / "__pycache__").mkdir(parents=True)
    (tmp_path / "templates" / "chapters" / "page.html").write_text("<p>{{ node }}</p>")
    (tmp_path / "chapters" / "views.py").write_text("x = 1\n")
    folders = ["chapters", "templates"]
    first = source_digest(tmp_path, folders)
    assert len(first) == 16
    (tmp_path / "chapters" / "__pycache__" / "views.cpython-311.pyc").write_bytes(b"\0")
    assert source_digest(tmp_path, folders) == first
    (tmp_path / "templates" / "chapters" / "page.html").write_text("<p>{{ node.title }}</p>")
    changed = source_digest(tmp_path, folders)
    assert changed != first
    (tmp_path / "chapters" / "views.py").rename(tmp_path / "chapters" / "urls.py")
    assert source_digest(tmp_path, folders) not in (first, changed)


@pytest.mark.django_db
def test_with_debug_on_an_edited_template_shows_at_once(client, small_tree, settings, tmp_path):
    settings.DEBUG = True
    settings.BASE_DIR = tmp_path
    (tmp_path / "templates").mkdir()
    first = client.get(CHAPTER_FIVE)
    assert client.get(CHAPTER_FIVE)["ETag"] == first["ETag"]
    (tmp_path / "templates" / "base.html").write_text("edited")
    second = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=first["ETag"])
    assert second.status_code == 200
    assert second["ETag"] != first["ETag"]
    assert second.templates  # rendered, not from the cache


@pytest.mark.django_db
def test_process_keeps_the_pages_it_read_last(client, small_tree, django_assert_num_queries):
    cached = client.get(CHAPTER_FIVE)
    client.get(CHAPTER_FIVE)  # read back from Django's cache, and now kept by the process
    cache.clear()
    with django_assert_num_queries(1):  # the version
        kept = client.get(CHAPTER_FIVE)
    assert (kept.templates, kept.content) == ([], cached.content)


@pytest.mark.django_db
def test_process_keeps_at_most_a_bounded_number_of_pages(client, small_tree):
    paths = [chapter.get_absolute_url() for chapter in Node.objects.filter(kind="chapter")]
    for path in paths * 2:
        client.get(path)
    assert caching.kept_page.cache_info().currsize == len(paths) <= caching.PAGES_IN_PROCESS
    assert caching.kept_page.cache_info().maxsize == caching.PAGES_IN_PROCESS == 16


@pytest.mark.django_db
def test_old_revision_pages_render_once_per_version_for_readers(client, small_tree, renderers):
    convert, _ = renderers
    chapter = node("Chapter Five")
    chapter.body = "Fusing **two** kernels."
    chapter.save()
    old = node_first_revision("Chapter Five")
    url = f"/revisions/{old.history_id}/"
    first = reader_page(client, url)
    assert convert.call_count == 2  # the save, then the first reader's page
    assert reader_page(client, url) == first
    assert convert.call_count == 2  # the second reader's page came from the cache
    edit("Chapter Six", body="Changed.")
    reader_page(client, url)
    assert convert.call_count == 4  # the edit, then the page of the new version


PATHS = [
    "/",
    CHAPTER_FIVE,
    "/area-b/",
    "/search/",
    "/recent/",
    "/history/area-b/",
    "/admin/",
    "/robots.txt",
    "/healthz",
    "/no/such/page",
    "/media/",
    "/static/css/site.css",
]


def test_resolves_to_cached_page_answers_as_django_resolves():
    resolves_to_cached_page.cache_clear()
    django_answers = []
    for path in PATHS:
        try:
            django_answers.append(getattr(resolve(path).func, "cached_page", False))
        except Resolver404:
            django_answers.append(False)
    for _ in range(2):  # resolved, then remembered
        assert [resolves_to_cached_page(get_resolver(), path) for path in PATHS] == (django_answers)
    assert django_answers == [True, True, True] + [False] * 9
    assert resolves_to_cached_page.cache_info().hits == len(PATHS)


@pytest.mark.django_db
def test_a_kept_reader_page_is_served_without_resolving_its_path(client, small_tree, monkeypatch):
    resolves_to_cached_page.cache_clear()
    _view_of.cache_clear()
    resolved = []
    resolve_path = URLResolver.resolve
    test_thread = threading.get_ident()

    def counted(resolver, path):
        # The root, not the includes it resolves in turn; on this thread, where the test
        # client's requests run, not on a live server's (the session's, for browser tests).
        if resolver is get_resolver() and threading.get_ident() == test_thread:
            resolved.append(path)
        return resolve_path(resolver, path)

    monkeypatch.setattr(URLResolver, "resolve", counted)
    rendered = client.get(CHAPTER_FIVE)
    resolved_for_the_view = list(resolved)
    kept = client.get(CHAPTER_FIVE)
    kept_again = client.get(CHAPTER_FIVE)
    not_modified = client.get(CHAPTER_FIVE, HTTP_IF_NONE_MATCH=rendered["ETag"])
    assert (kept.content, kept_again.content) == (rendered.content, rendered.content)
    assert not_modified.status_code == 304
    assert resolved_for_the_view == [CHAPTER_FIVE] * 2  # the reader middleware's, Django's
    # and the metrics' label of the first page served before resolution, once per process.
    assert resolved == [CHAPTER_FIVE] * 3


ETAG = '"7-20261201-abc-reader"'


@pytest.mark.parametrize(
    ("headers", "short_cut"),
    [
        ({"HTTP_IF_NONE_MATCH": ETAG}, True),
        ({"HTTP_IF_NONE_MATCH": f"W/{ETAG}"}, True),
        ({"HTTP_IF_NONE_MATCH": ETAG, "HTTP_IF_MODIFIED_SINCE": http_date(0)}, True),
        ({"HTTP_IF_NONE_MATCH": f'"other", {ETAG}'}, False),
        ({"HTTP_IF_NONE_MATCH": "*"}, False),
        ({"HTTP_IF_NONE_MATCH": '"other"'}, False),
        ({"HTTP_IF_NONE_MATCH": ETAG, "HTTP_IF_MATCH": '"other"'}, False),
        ({"HTTP_IF_NONE_MATCH": ETAG, "HTTP_IF_UNMODIFIED_SINCE": http_date(0)}, False),
        ({"HTTP_IF_MODIFIED_SINCE": http_date(2_000_000_000)}, False),
    ],
)
def test_short_cut_304_is_what_django_answers(rf, headers, short_cut):
    request = rf.get(CHAPTER_FIVE, **headers)
    django = get_conditional_response(request, etag=ETAG, last_modified=1_800_000_000)
    assert _is_not_modified(request, ETAG) is short_cut
    if short_cut:
        assert (django.status_code, dict(django.headers)) == (304, {})


@pytest.mark.django_db
def test_reader_headers_are_made_once_per_version_and_again_after_a_setting_changed(
    client, small_tree, settings
):
    reader_headers.cache_clear()
    first = client.get(CHAPTER_FIVE)
    kept = [client.get(CHAPTER_FIVE) for _ in range(2)]
    assert reader_headers.cache_info()[:2] == (1, 1)  # one hit, one miss: made once
    assert [validators(each) for each in kept] == [validators(first)] * 2
    settings.WIKI_NAME = "Another Wiki"
    assert reader_headers.cache_info().currsize == 0
