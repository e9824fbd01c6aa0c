"""Links between chapters: [[wiki links]], links to paths, "Linked from", broken links."""

import json
from unittest import mock

import pytest
from django.core.management import call_command
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from chapters.models import Link, Node
from tests.helpers import edit, node, soup


def body_of(title):
    """Return the stored HTML of the node titled ``title``, without the paragraph."""
    return node(title).body_html.removeprefix("<p>").removesuffix("</p>")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("source", "html"),
    [
        (
            "[[Chapter Two]]",
            '<a class="wikilink" href="/area-a/section-a1/chapter-two/">Chapter Two</a>',
        ),
        (
            "[[chapter two]]",
            '<a class="wikilink" href="/area-a/section-a1/chapter-two/">chapter two</a>',
        ),
        (
            "[[Section A1/Chapter Two]]",
            '<a class="wikilink" href="/area-a/section-a1/chapter-two/">Chapter Two</a>',
        ),
        (
            "[[Area A/Section A1/Chapter Two|the second chapter]]",
            '<a class="wikilink" href="/area-a/section-a1/chapter-two/">the second chapter</a>',
        ),
        (
            "[[Nowhere]]",
            '<span class="wikilink-broken" title="There is no page “Nowhere”.">Nowhere</span>',
        ),
        (
            "[[Section B1/Chapter Two]]",
            '<span class="wikilink-broken" title="There is no page “Section B1/Chapter Two”.">'
            "Chapter Two</span>",
        ),
        ("`[[Chapter Two]]`", "<code>[[Chapter Two]]</code>"),
    ],
)
def test_wiki_link_resolves_by_title_or_path(small_tree, source, html):
    edit("Chapter One", body=source)
    assert body_of("Chapter One") == html


@pytest.mark.django_db
def test_wiki_link_to_an_ambiguous_title_is_reported_and_resolved_by_path(small_tree):
    Node.objects.create(title="Intro", parent=node("Section A1"))
    Node.objects.create(title="Intro", parent=node("Section B1"))
    edit("Chapter One", body="[[Intro]] and [[Section B1/Intro]]")
    assert body_of("Chapter One") == (
        '<span class="wikilink-broken" title="“Intro” could mean several pages '
        '(“area-a/section-a1/intro”, “area-b/section-b1/intro”): write its section too.">'
        'Intro</span> and <a class="wikilink" href="/area-b/section-b1/intro/">Intro</a>'
    )
    assert [(link.text, link.target_id is None) for link in Link.objects.order_by("text")] == [
        ("Intro", True),
        ("Section B1/Intro", False),
    ]


@pytest.mark.django_db
def test_wiki_link_follows_its_target_when_renamed_and_moved(client, small_tree, run_tasks):
    edit("Chapter One", body="See [[Chapter Two]].")
    target = node("Chapter Two")
    target.title, target.slug = "Second Chapter", "second"
    target.save()
    # The linking page is rendered again by a task once the write has committed; meanwhile
    # its link's old address redirects to the page.
    assert 'href="/area-a/section-a1/chapter-two/"' in body_of("Chapter One")
    assert client.get("/area-a/section-a1/chapter-two/").status_code == 301
    run_tasks()
    assert body_of("Chapter One") == (
        'See <a class="wikilink" href="/area-a/section-a1/second/">Chapter Two</a>.'
    )
    node("Second Chapter").move_to(node("Section B1"), "last-child")
    run_tasks()
    assert 'href="/area-b/section-b1/second/"' in body_of("Chapter One")
    edit("Chapter One", body="See [[Chapter Two]] again.")
    assert 'href="/area-b/section-b1/second/"' in body_of("Chapter One")
    assert client.get("/area-b/section-b1/second/").status_code == 200


@pytest.mark.django_db
def test_wiki_link_to_a_deleted_page_becomes_broken_and_a_new_page_mends_it(small_tree, run_tasks):
    edit("Chapter One", body="[[Chapter Six]]")
    node("Chapter Six").delete()
    run_tasks()  # the pages linking to it are rendered again after the commit
    assert body_of("Chapter One") == (
        '<span class="wikilink-broken" title="There is no page “Chapter Six”.">Chapter Six</span>'
    )
    Node.objects.create(title="Chapter Six", parent=node("Section A2"))
    run_tasks()  # broken links mend after the commit
    assert body_of("Chapter One") == (
        '<a class="wikilink" href="/area-a/section-a2/chapter-six/">Chapter Six</a>'
    )


@pytest.mark.django_db
def test_links_to_paths_are_checked(small_tree):
    edit(
        "Chapter One",
        body="[ok](/area-a/section-a1/chapter-two/) [moved](/old/) [gone](/area-a/nope/) "
        "[img](/static/x.png) [out](https://example.org/) [here](#top)",
    )
    links = {
        link.text: (link.target.title if link.target else link.problem)
        for link in Link.objects.all()
    }
    assert links == {
        "/area-a/section-a1/chapter-two/": "Chapter Two",
        "/old/": "There is no page at “/old/”.",
        "/area-a/nope/": "There is no page at “/area-a/nope/”.",
    }


@pytest.mark.django_db
def test_linked_from_lists_the_pages_linking_here_and_follows_edits(client, small_tree):
    edit("Chapter One", body="[[Chapter Five]]")
    edit("Chapter Four", body="[x](/area-b/section-b1/chapter-five/)")

    def linked_from():
        section = soup(client.get("/area-b/section-b1/chapter-five/")).find(class_="linked-from")
        return [a.get_text() for a in section.find_all("a")] if section else []

    assert linked_from() == ["Chapter One", "Chapter Four"]
    edit("Chapter One", body="No links any more.")
    assert linked_from() == ["Chapter Four"]


@pytest.mark.django_db
def test_fixture_links_resolve_whatever_the_row_order(tmp_path, db):
    rows = [
        {"model": "chapters.node", "pk": 1, "fields": {
            "title": "Area", "slug": "area", "kind": "section", "parent": None, "body": "",
            "updated": "2026-08-09T12:00:00Z", "lft": 1, "rght": 6, "tree_id": 1, "level": 0}},
        {"model": "chapters.node", "pk": 2, "fields": {
            "title": "First", "slug": "first", "kind": "section", "parent": 1,
            "body": "[[Second]]", "updated": "2026-08-09T12:00:00Z",
            "lft": 2, "rght": 3, "tree_id": 1, "level": 1}},
        {"model": "chapters.node", "pk": 3, "fields": {
            "title": "Second", "slug": "second", "kind": "section", "parent": 1, "body": "",
            "updated": "2026-08-09T12:00:00Z", "lft": 4, "rght": 5, "tree_id": 1, "level": 1}},
    ]  # fmt: skip
    fixture = tmp_path / "links.json"
    fixture.write_text(json.dumps(rows), encoding="utf-8")
    call_command("loaddata", str(fixture), verbosity=0)
    assert body_of("First") == '<a class="wikilink" href="/area/second/">Second</a>'


@pytest.mark.django_db
def test_broken_links_report_lists_them_for_staff_only(client, admin_client, small_tree):
    edit("Chapter One", body="[[Nowhere]] and [x](/area-a/nope/)")
    response = client.get(reverse("chapters:broken-links"))
    assert (response.status_code, response["Location"].split("?")[0]) == (302, "/admin/login/")
    rows = (
        soup(admin_client.get(reverse("chapters:broken-links"))).find("table").tbody.find_all("tr")
    )
    assert [[td.get_text(" ", strip=True) for td in row.find_all("td")] for row in rows] == [
        ["Chapter One", "[[Nowhere]]", "There is no page “Nowhere”.", "Fix in the admin"],
        [
            "Chapter One",
            "/area-a/nope/",
            "There is no page at “/area-a/nope/”.",
            "Fix in the admin",
        ],
    ]


@pytest.mark.django_db
def test_links_of_a_renamed_section_to_its_own_chapters_follow_it(small_tree, run_tasks):
    edit("Section A1", body="[[Chapter Two]] [x](/area-a/section-a1/chapter-two/)")
    section = node("Section A1")
    section.slug = "basics"
    section.save()
    run_tasks()
    assert body_of("Section A1") == (
        '<a class="wikilink" href="/area-a/basics/chapter-two/">Chapter Two</a> '
        '<a href="/area-a/section-a1/chapter-two/">x</a>'
    )
    assert [link.target.title for link in Link.objects.filter(source=node("Section A1"))] == [
        "Chapter Two",
        "Chapter Two",
    ]


@pytest.mark.django_db
def test_long_and_nul_link_targets_are_stored(small_tree):
    edit("Chapter One", body="[[" + "x" * 1500 + "]] [y](/area-a/%00/)")
    assert [len(link.text) for link in Link.objects.all()] == [1500]


@pytest.mark.django_db
def test_wiki_link_to_a_non_ascii_title_written_as_it_is(small_tree):
    Node.objects.create(title="Линейная алгебра", parent=node("Section A1"))
    edit("Chapter One", body="[[Линейная алгебра]]")
    assert body_of("Chapter One").startswith('<a class="wikilink" href="/area-a/section-a1/')


@pytest.mark.django_db
def test_broken_links_mend_after_the_commit_and_only_where_the_change_may_mend_them(
    small_tree, run_tasks
):
    edit("Chapter One", body="[[Chapter Seven]]")
    edit("Chapter Two", body="[[Chapter Eight]] and [Gone](/area-a/gone/)")
    edit("Chapter Three", body="[[Section A2/Chapter Seven]]")
    run_tasks()
    rendered = []
    refresh_body = Node.refresh_body

    def counting(self):
        rendered.append(self.title)
        refresh_body(self)

    with mock.patch.object(Node, "refresh_body", counting):
        Node.objects.create(title="Chapter Seven", parent=node("Section A2"))
        assert rendered == []  # nothing is rendered again inside the writing transaction
        assert body_of("Chapter One").startswith('<span class="wikilink-broken"')
        run_tasks()
    assert rendered == ["Chapter One", "Chapter Three"]
    assert body_of("Chapter One") == (
        '<a class="wikilink" href="/area-a/section-a2/chapter-seven/">Chapter Seven</a>'
    )
    assert body_of("Chapter Three") == (
        '<a class="wikilink" href="/area-a/section-a2/chapter-seven/">Chapter Seven</a>'
    )


@pytest.mark.django_db
def test_a_broken_link_to_a_path_mends_when_a_node_comes_to_that_path(small_tree, run_tasks):
    edit("Chapter One", body="[Later](/area-a/later/)")
    Node.objects.create(title="Later", kind=Node.Kind.SECTION, parent=node("Area A"))
    run_tasks()
    assert body_of("Chapter One") == '<a href="/area-a/later/">Later</a>'
    assert Link.objects.get(source=node("Chapter One")).target == node("Later")


@pytest.mark.django_db
def test_mending_links_that_fails_after_a_commit_is_logged_and_the_save_stands(
    small_tree, monkeypatch, caplog, run_tasks
):
    def fail(titles, paths):
        raise RuntimeError("the database went away")

    monkeypatch.setattr("chapters.models.mend_broken_links", fail)
    edit("Chapter One", title="Chapter One, renamed")
    run_tasks()

    assert node("Chapter One, renamed").path == "area-a/section-a1/chapter-one"
    (failure,) = [record for record in caplog.records if record.levelname == "ERROR"]
    assert failure.getMessage().endswith("path=chapters.tasks.mend_links state=FAILED")
    assert "RuntimeError: the database went away" in failure.exc_text
    (task,) = DBTaskResult.objects.filter(task_path="chapters.tasks.mend_links")
    assert task.status == "READY"  # to run again after its delay
