"""The reading path across sections: Previous/Next stay within a section, and at its ends
the page names the chapter read before it and the one read after it."""

import pytest
from pytest_django.asserts import assertInHTML

from chapters.models import Node
from chapters.navigation import reading_bridges
from tests.helpers import soup

SEED_CHAPTER_URL = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"


def reading_path(response):
    """Return the reading path's links of a page as (class, href, text), in order."""
    nav = soup(response).find("nav", attrs={"aria-label": "Reading path"})
    if nav is None:
        return []
    return [(a["class"][0], a["href"], " ".join(a.get_text().split())) for a in nav.find_all("a")]


@pytest.mark.django_db
def test_reading_bridges_join_each_sections_ends_to_its_neighbours(db):
    def add(title, parent=None, kind=Node.Kind.SECTION):
        return Node.objects.create(title=title, parent=parent, kind=kind)

    area_a = add("Area A")
    s1 = add("S1", area_a)
    add("c1", s1, Node.Kind.CHAPTER)
    add("t1", add("T", s1), Node.Kind.CHAPTER)
    add("c2", s1, Node.Kind.CHAPTER)
    add("d1", add("S2", area_a), Node.Kind.CHAPTER)
    s3 = add("S3", add("Area B"))
    add("e1", s3, Node.Kind.CHAPTER)
    add("e2", s3, Node.Kind.CHAPTER)
    names = dict(Node.objects.values_list("pk", "title"))
    titles = {
        names[pk]: (before and before.title, after and after.title)
        for pk, (before, after) in reading_bridges(
            list(Node.objects.filter(kind="chapter"))
        ).items()
    }
    assert titles == {
        "S1": (None, "d1"),  # its chapters c1 and c2; t1, under T, comes between them
        "T": ("c1", "c2"),
        "S2": ("c2", "e1"),
        "S3": ("d1", None),
    }


@pytest.mark.django_db
def test_seed_chapter_continues_with_the_next_section(client, curriculum):
    response = client.get(SEED_CHAPTER_URL)
    assert reading_path(response) == [
        (
            "continue-to",
            "/ml-systems/training-at-scale/distributed-training/",
            "Continue with Training at Scale → Distributed Training",
        )
    ]
    text = soup(response).find("body").get_text()
    assert text.index("Previous") < text.index("Continue with") < text.index("All chapters")


@pytest.mark.django_db
def test_first_chapter_of_a_section_names_where_the_reader_came_from(client, curriculum):
    response = client.get("/ml-systems/ml-compilers/ml-compiler-foundations/")
    assert reading_path(response) == [
        (
            "came-from",
            "/ml-systems/runtimes-and-frameworks/automatic-differentiation-systems/",
            "Previously: Runtimes and Frameworks → Automatic-Differentiation Systems",
        )
    ]


@pytest.mark.django_db
def test_chapter_alone_in_its_section_gets_both(client, small_tree):
    response = client.get("/area-a/section-a2/chapter-four/")
    assert soup(response).find(class_="pager") is None
    assertInHTML(
        """
        <nav aria-label="Reading path" class="reading-path">
          <a class="came-from" href="/area-a/section-a1/chapter-three/">
            <span class="pager-label">Previously:</span>
            <span class="pager-title"><span class="reading-section">Section A1</span>
              → Chapter Three</span></a>
          <a class="continue-to" href="/area-b/section-b1/chapter-five/">
            <span class="pager-label">Continue with</span>
            <span class="pager-title"><span class="reading-section">Section B1</span>
              → Chapter Five</span></a>
        </nav>
        """,
        response.content.decode(),
    )


@pytest.mark.django_db
def test_reading_path_ends_at_the_first_and_last_chapters(client, small_tree):
    assert reading_path(client.get("/area-a/section-a1/chapter-one/")) == []
    assert reading_path(client.get("/area-a/section-a1/chapter-two/")) == []
    assert reading_path(client.get("/area-b/section-b1/chapter-six/")) == []
    assert reading_path(client.get("/area-b/section-b1/chapter-five/")) == [
        ("came-from", "/area-a/section-a2/chapter-four/", "Previously: Section A2 → Chapter Four")
    ]
    assert reading_path(client.get("/area-a/section-a1/")) == []  # sections have none


@pytest.mark.django_db
def test_reading_path_is_right_when_the_contents_were_cached_first(client, small_tree):
    client.get("/area-b/section-b1/chapter-six/")  # caches the contents, not this page's
    assert reading_path(client.get("/area-a/section-a1/chapter-three/")) == [
        (
            "continue-to",
            "/area-a/section-a2/chapter-four/",
            "Continue with Section A2 → Chapter Four",
        )
    ]
