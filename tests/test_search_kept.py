"""The search page kept per version of the wiki (``chapters.views._kept_search_page``, issue
26): a repeated search runs no search query until a write, and is the same for every viewer."""

import pytest
from django.test import Client

from tests.helpers import edit, role_user, soup
from tests.test_search import result_titles

CHAPTERS = [
    "Chapter One",
    "Chapter Two",
    "Chapter Three",
    "Chapter Four",
    "Chapter Five",
    "Chapter Six",
]


def results_html(response):
    """Return the HTML of a search page's list of results."""
    return str(soup(response).select_one("ol.results"))


@pytest.mark.django_db
def test_search_page_is_kept_until_a_write(client, small_tree, django_assert_num_queries):
    first = client.get("/search/", {"q": "tensor cores"})
    assert result_titles(first) == []
    # The version only (a query in a test's transaction, on either database): the query with
    # its spaces collapsed, and a page that is no number (the first), are the same search.
    with django_assert_num_queries(1):
        again = client.get("/search/", {"q": "tensor cores"})
    assert again.content == first.content
    with django_assert_num_queries(1):
        spaced = client.get("/search/", {"q": " tensor   cores", "page": "first"})
    assert result_titles(spaced) == []
    edit("Chapter Two", body="Tensor cores multiply matrices.")
    assert result_titles(client.get("/search/", {"q": "tensor cores"})) == ["Chapter Two"]
    with django_assert_num_queries(1):
        kept = client.get("/search/", {"q": "tensor cores"})
    assert result_titles(kept) == ["Chapter Two"]


@pytest.mark.django_db
def test_search_page_is_kept_per_filter(client, small_tree):
    assert result_titles(client.get("/search/", {"q": "chapter"})) == CHAPTERS
    in_area = client.get("/search/", {"q": "chapter", "area": "area-b"})
    assert result_titles(in_area) == ["Chapter Five", "Chapter Six"]
    assert result_titles(client.get("/search/", {"q": "chapter", "status": "draft"})) == CHAPTERS
    published = client.get("/search/", {"q": "chapter", "status": "published"})
    assert result_titles(published) == []


@pytest.mark.django_db
def test_search_page_is_kept_per_page_number(client, curriculum, django_assert_num_queries):
    first = result_titles(client.get("/search/", {"q": "scaffold"}))
    second = result_titles(client.get("/search/", {"q": "scaffold", "page": "2"}))
    assert (len(first), len(second)) == (20, 20)
    assert not set(first) & set(second)
    with django_assert_num_queries(1):
        again = client.get("/search/", {"q": "scaffold", "page": "2"})
    assert result_titles(again) == second


@pytest.mark.django_db
def test_kept_search_page_shows_each_viewer_their_own_header(
    client, small_tree, django_assert_num_queries
):
    # Search finds the same pages whoever asks: what one viewer's search kept serves the
    # other, but the header (who is signed in) is rendered for each request.
    editor = Client()
    editor.force_login(role_user("ed", "Editor"))
    for_editor = editor.get("/search/", {"q": "chapter"})
    assert "Signed in as <strong>ed</strong>" in for_editor.content.decode()
    with django_assert_num_queries(1):
        for_reader = client.get("/search/", {"q": "chapter"})
    assert results_html(for_reader) == results_html(for_editor)
    assert result_titles(for_reader) == CHAPTERS
    assert "Signed in as" not in for_reader.content.decode()
    edit("Chapter Six", title="Chapter Six Revised")
    for_reader = client.get("/search/", {"q": "chapter"})
    assert result_titles(for_reader)[-1] == "Chapter Six Revised"
    assert "Signed in as" not in for_reader.content.decode()
    # The version, the editor's session, user, permissions (two) and unread notifications.
    with django_assert_num_queries(6):
        for_editor = editor.get("/search/", {"q": "chapter"})
    assert results_html(for_editor) == results_html(for_reader)
    assert "Signed in as <strong>ed</strong>" in for_editor.content.decode()
