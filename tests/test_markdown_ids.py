"""Ids in bodies never clash with the page's, with headings' or with footnotes'."""

from collections import Counter

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from chapters.markdown import render_markdown, render_markdown_with_headings
from chapters.markdown.mdx.ids import RESERVED_IDS
from tests.helpers import node, soup


def ids(html):
    """Return the ids in ``html`` in document order."""
    return [element["id"] for element in soup_of(html).find_all(id=True)]


def soup_of(html):
    """Parse an HTML fragment."""
    return BeautifulSoup(html, "html.parser")


def test_headings_never_take_an_id_the_page_uses():
    html, headings = render_markdown_with_headings(
        "## Content\n\n## TOC\n\n## Site search q\n\n## Content"
    )
    assert ids(html) == ["content_1", "toc_1", "site-search-q_1", "content_2"]
    assert [heading["id"] for heading in headings] == ids(html)


def test_an_authors_id_is_kept_only_where_nothing_else_has_it():
    html = render_markdown(
        '<h2 id="toc">Raw</h2>\n\n<h2 id="mine">Mine</h2>\n\n<h2 id="mine">Again</h2>\n\n'
        '<h3 id="kernel-fusion">Raw fusion</h3>\n\n## Kernel Fusion'
    )
    assert ids(html) == ["mine", "kernel-fusion"]
    assert soup_of(html).find(id="kernel-fusion").name == "h2"


def test_an_authors_footnote_ids_never_clash_with_the_footnotes():
    html = render_markdown(
        'Text.[^1]\n\n<ol><li id="fn:1">Fake</li></ol>\n\n<p><sup id="fnref:1">1</sup></p>\n\n'
        "[^1]: The note."
    )
    assert Counter(ids(html)) == {"fn:1": 1, "fnref:1": 1}
    assert soup_of(html).find(id="fn:1").get_text(strip=True).startswith("The note.")


def test_rendering_twice_gives_the_same_html():
    text = "## Intro\n\nText.[^a]\n\n[^a]: Note."
    assert render_markdown(text) == render_markdown(text)


@pytest.mark.django_db
@pytest.mark.parametrize("title", ["Chapter One", "Section A1"])
def test_a_page_uses_no_id_besides_the_reserved_ones_and_its_bodys(
    client, admin_client, small_tree, title
):
    page_node = node(title)
    page_node.body = (
        '## Content\n\n## Toc\n\nSee.[^1]\n\n<h2 id="site-search-q">Raw</h2>\n\n[^1]: A note.'
    )
    page_node.save()
    revision = page_node.history.first()
    for viewer in (client, admin_client):
        for url in (page_node.get_absolute_url(), reverse("chapters:revision", args=[revision.pk])):
            page = soup(viewer.get(url))
            every = [element["id"] for element in page.find_all(id=True)]
            assert len(every) == len(set(every)), url
            body = page.find("div", class_="body")
            in_body = {element["id"] for element in body.find_all(id=True)}
            assert set(every) - in_body <= RESERVED_IDS, url
