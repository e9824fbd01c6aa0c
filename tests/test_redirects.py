"""Links that keep working: old URLs of renamed and moved nodes answer 301."""

import pytest

from chapters.models import Node, PathRedirect
from tests.helpers import edit, node


def assert_redirects(client, old_url, new_url):
    """Assert that ``old_url`` answers 301 straight to ``new_url``, which answers 200."""
    response = client.get(old_url)
    assert (response.status_code, response["Location"]) == (301, new_url)
    assert client.get(new_url).status_code == 200


@pytest.mark.django_db
def test_redirect_after_slug_rename(client, small_tree):
    edit("Chapter One", slug="intro")
    assert_redirects(client, "/area-a/section-a1/chapter-one/", "/area-a/section-a1/intro/")


@pytest.mark.django_db
def test_redirect_after_move_to_another_section(client, small_tree):
    node("Chapter One").move_to(node("Section B1"), "first-child")
    assert_redirects(client, "/area-a/section-a1/chapter-one/", "/area-b/section-b1/chapter-one/")


@pytest.mark.django_db
def test_redirects_for_descendants_after_an_ancestor_is_renamed(client, small_tree):
    edit("Area A", slug="alpha")
    assert_redirects(client, "/area-a/", "/alpha/")
    assert_redirects(client, "/area-a/section-a1/", "/alpha/section-a1/")
    assert_redirects(
        client, "/area-a/section-a1/chapter-three/", "/alpha/section-a1/chapter-three/"
    )


@pytest.mark.django_db
def test_redirects_for_descendants_after_an_ancestor_is_moved(client, small_tree):
    node("Section A2").move_to(node("Area B"), "last-child")
    assert_redirects(client, "/area-a/section-a2/chapter-four/", "/area-b/section-a2/chapter-four/")


@pytest.mark.django_db
def test_redirect_chains_collapse_after_two_renames(client, small_tree):
    edit("Chapter One", slug="intro")
    edit("Chapter One", slug="introduction")
    assert_redirects(client, "/area-a/section-a1/chapter-one/", "/area-a/section-a1/introduction/")
    assert_redirects(client, "/area-a/section-a1/intro/", "/area-a/section-a1/introduction/")


@pytest.mark.django_db
def test_renaming_back_drops_the_redirect_from_the_path_in_use(client, small_tree):
    edit("Chapter One", slug="intro")
    edit("Chapter One", slug="chapter-one")
    assert client.get("/area-a/section-a1/chapter-one/").status_code == 200
    assert_redirects(client, "/area-a/section-a1/intro/", "/area-a/section-a1/chapter-one/")
    assert list(PathRedirect.objects.values_list("old_path", flat=True)) == [
        "area-a/section-a1/intro"
    ]


@pytest.mark.django_db
def test_new_node_at_an_old_path_takes_it_over(client, small_tree):
    edit("Chapter One", slug="intro")
    Node.objects.create(title="Chapter One", parent=node("Section A1"), body="A new page.")
    response = client.get("/area-a/section-a1/chapter-one/")
    assert response.status_code == 200
    assert "A new page." in response.content.decode()
    assert not PathRedirect.objects.filter(old_path="area-a/section-a1/chapter-one").exists()


@pytest.mark.django_db
def test_deleting_a_node_leaves_no_redirects_to_nowhere(client, small_tree):
    edit("Section A1", slug="first")
    node("Section A1").delete()
    assert client.get("/area-a/section-a1/").status_code == 404
    assert client.get("/area-a/section-a1/chapter-one/").status_code == 404
    assert not PathRedirect.objects.exists()


@pytest.mark.django_db
def test_node_moved_to_an_old_path_with_its_section_takes_it_over(client, small_tree):
    edit("Section B1", slug="section-a1")
    edit("Area A", slug="alpha")
    edit("Area B", slug="area-a")  # Section B1 now lives at Section A1's old path
    assert not PathRedirect.objects.filter(old_path="area-a/section-a1").exists()
    node("Area B").delete()
    assert client.get("/area-a/").status_code == 404
    assert client.get("/area-a/section-a1/").status_code == 404
    assert_redirects(client, "/area-a/section-a1/chapter-one/", "/alpha/section-a1/chapter-one/")
