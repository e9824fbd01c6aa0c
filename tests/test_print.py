"""Printing: every page names the wiki and its URL on paper, and a section's or an area's
chapters print from one page (/print/<path>/), mdBook's print view."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from chapters.models import RESERVED_ROOT_SLUGS, Node
from tests.helpers import SMALL_TREE, edit, node, soup


@pytest.mark.django_db
def test_every_page_has_a_print_header_with_the_wiki_and_its_url(client, small_tree):
    for url in ["/", "/area-a/section-a1/chapter-one/", "/search/?q=one"]:
        header = soup(client.get(url)).find("p", class_="print-header")
        assert " ".join(header.get_text().split()) == (
            f"Curriculum Wiki · http://testserver{url.split('?')[0]} · Printed"
        )
        assert header.find(class_="print-date").has_attr("hidden")  # js/page.js dates it


@pytest.mark.django_db
def test_print_page_of_a_section_has_a_title_page_contents_and_its_chapters(client, small_tree):
    edit("Chapter Two", body="## Fusion\n\nFuse **them**.")
    response = client.get("/print/area-a/section-a1/")
    assert response.status_code == 200
    page = soup(response)
    assert page.title.get_text() == "Section A1 (to print) · Curriculum Wiki"
    assert page.find("meta", attrs={"name": "robots"})["content"] == "noindex"
    title_page = page.find("section", class_="title-page")
    assert [p.get_text() for p in title_page.find_all("p")][:2] == ["Curriculum Wiki", "Area A"]
    assert title_page.h1.get_text() == "Section A1"
    assert title_page.find(class_="title-page-source").a["href"] == "/area-a/section-a1/"
    ids = {n.title: n.pk for n in Node.objects.all()}
    toc = page.find("nav", class_="print-toc")
    assert [(a.get_text(), a["href"]) for a in toc.find_all("a")] == [
        (title, f"#node-{ids[title]}") for title in ["Chapter One", "Chapter Two", "Chapter Three"]
    ]
    chapters = page.find_all("article", class_="print-chapter")
    assert [(c["id"], c.h1.get_text()) for c in chapters] == [
        (f"node-{ids[title]}", title) for title in ["Chapter One", "Chapter Two", "Chapter Three"]
    ]
    two = ids["Chapter Two"]
    assertInHTML(
        f'<div class="body"><h2 id="n{two}-fusion">Fusion<a class="headerlink" '
        f'href="#n{two}-fusion" title="Link to this heading">&para;</a></h2>\n'
        "<p>Fuse <strong>them</strong>.</p></div>",
        str(chapters[1]),
    )
    assert page.find(id="toc") is None  # no sidebar


@pytest.mark.django_db
def test_print_page_of_an_area_shows_its_sections_as_parts(client, small_tree):
    page = soup(client.get("/print/area-a/"))
    body = page.find(class_="print-page")
    assert [(heading.parent.name, heading.get_text()) for heading in body.find_all("h1")] == [
        ("section", "Area A"),
        ("section", "Section A1"),
        ("article", "Chapter One"),
        ("article", "Chapter Two"),
        ("article", "Chapter Three"),
        ("section", "Section A2"),
        ("article", "Chapter Four"),
    ]
    classes = [li["class"] for li in page.find("nav", class_="print-toc").find_all("li")]
    assert classes[:2] == [
        ["print-toc-section", "print-depth-1"],
        ["print-toc-chapter", "print-depth-2"],
    ]


@pytest.mark.django_db
def test_print_page_answers_404_for_a_chapter_and_301_from_an_old_path(client, small_tree):
    assert client.get("/print/area-a/section-a1/chapter-one/").status_code == 404
    assert client.get("/print/no-such-section/").status_code == 404
    edit("Section A1", slug="first")
    response = client.get("/print/area-a/section-a1/")
    assert (response.status_code, response["Location"]) == (301, "/print/area-a/first/")


@pytest.mark.django_db
def test_print_page_is_linked_from_section_pages_and_reserved(client, small_tree):
    link = soup(client.get("/area-a/")).find("p", class_="print-link").a
    assert (link.get_text(), link["href"], link["rel"]) == (
        "Print this area",
        reverse("chapters:print", args=["area-a"]),
        ["nofollow"],
    )
    link = soup(client.get("/area-a/section-a1/")).find("p", class_="print-link").a
    assert (link.get_text(), link["href"]) == (
        "Print this section",
        reverse("chapters:print", args=["area-a/section-a1"]),
    )
    assert "print" in RESERVED_ROOT_SLUGS


@pytest.mark.django_db
def test_print_page_of_the_whole_curriculum_holds_every_area(client, small_tree):
    response = client.get("/print/")
    assert response.status_code == 200
    page = soup(response)
    assert page.title.get_text() == "The Curriculum (to print) · Curriculum Wiki"
    title_page = page.find("section", class_="title-page")
    assert [p.get_text() for p in title_page.find_all("p")][:1] == ["Curriculum Wiki"]
    assert title_page.find(class_="title-page-path") is None
    assert title_page.h1.get_text() == "The Curriculum"
    assert title_page.find(class_="title-page-source").a["href"] == "/"
    toc = page.find("nav", class_="print-toc")
    assert [(li.get_text(), li["class"]) for li in toc.find_all("li")][:3] == [
        ("Area A", ["print-toc-section", "print-depth-1"]),
        ("Section A1", ["print-toc-section", "print-depth-2"]),
        ("Chapter One", ["print-toc-chapter", "print-depth-3"]),
    ]
    body = page.find(class_="print-page")
    titles = [line.strip() for line in SMALL_TREE.splitlines()]  # in reading order
    assert [heading.get_text() for heading in body.find_all("h1")] == ["The Curriculum", *titles]


@pytest.mark.django_db
def test_print_page_of_the_whole_curriculum_is_linked_from_the_home_page(client, small_tree):
    link = soup(client.get("/")).find("p", class_="print-link").a
    assert (link.get_text(), link["href"], link["rel"]) == (
        "Print the whole curriculum",
        "/print/",
        ["nofollow"],
    )


@pytest.mark.django_db
def test_print_page_gives_each_chapter_its_own_ids_and_links(client, small_tree):
    body = '[Below](#letters).\n\n## Letters\n\nA `<b id="letters">` tag.[^1]\n\n[^1]: A note.'
    edit("Chapter One", body=body)
    edit("Chapter Two", body=body)
    page = soup(client.get("/print/area-a/section-a1/"))
    pks = [node(title).pk for title in ["Chapter One", "Chapter Two"]]
    chapters = page.find_all("article", class_="print-chapter")[:2]
    for pk, chapter in zip(pks, chapters, strict=True):
        assert [a["href"] for a in chapter.find_all("a")] == [
            f"#n{pk}-letters",
            f"#n{pk}-letters",
            f"#n{pk}-fn:1",
            f"#n{pk}-fnref:1",
        ]
        assert chapter.find("h2")["id"] == f"n{pk}-letters"
        assert chapter.find("code").get_text() == '<b id="letters">'
    ids = [element["id"] for element in page.find_all(id=True)]
    assert len(ids) == len(set(ids))
