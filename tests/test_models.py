"""Node: slugs, stored paths, the updated date, and the rules that keep the tree valid."""

import datetime
from urllib.parse import quote

import pytest
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from mptt.exceptions import InvalidMove

from chapters.models import Node, PathRedirect
from tests.helpers import node, tree_table


def make(title, parent=None, kind=Node.Kind.SECTION, **fields):
    """Create a node through the model API."""
    return Node.objects.create(title=title, parent=parent, kind=kind, **fields)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Graph Optimization and Kernel Fusion", "graph-optimization-and-kernel-fusion"),
        ("Linear Algebra — Vector Spaces", "linear-algebra-vector-spaces"),
        ("DNS, HTTP and TLS", "dns-http-and-tls"),
        ("Линейная алгебра", "линейная-алгебра"),
        ("线性代数", "线性代数"),
        ("?!…", "section"),
    ],
)
def test_node_slug_is_made_from_title(title, slug):
    assert make(title).slug == slug


@pytest.mark.django_db
def test_node_slug_made_from_title_gets_a_number_when_a_sibling_has_it():
    area = make("Area")
    first = make("Intro", area, Node.Kind.CHAPTER)
    second = make("Intro", area, Node.Kind.CHAPTER)
    third = make("¿?", area, Node.Kind.CHAPTER)
    fourth = make("¡!", area, Node.Kind.CHAPTER)
    assert [first.slug, second.slug, third.slug, fourth.slug] == [
        "intro",
        "intro-2",
        "chapter",
        "chapter-2",
    ]


@pytest.mark.django_db
def test_node_in_cyrillic_and_chinese_is_served_at_its_url(client):
    area = make("Математика")
    chapter = make("线性代数", area, Node.Kind.CHAPTER)
    assert chapter.path == "математика/线性代数"
    assert chapter.get_absolute_url() == quote("/математика/线性代数/")
    assert client.get(chapter.get_absolute_url()).status_code == 200


@pytest.mark.django_db
def test_node_path_follows_rename_of_an_ancestor(small_tree):
    area = node("Area A")
    area.slug = "area-alpha"
    area.save()
    assert tree_table().splitlines()[:4] == [
        "Area A [section] area-alpha",
        "  Section A1 [section] area-alpha/section-a1",
        "    Chapter One [chapter] area-alpha/section-a1/chapter-one",
        "    Chapter Two [chapter] area-alpha/section-a1/chapter-two",
    ]


@pytest.mark.django_db
def test_node_path_follows_move_to_another_area(small_tree):
    node("Section A2").move_to(node("Area B"), "last-child")
    assert tree_table() == "\n".join(
        [
            "Area A [section] area-a",
            "  Section A1 [section] area-a/section-a1",
            "    Chapter One [chapter] area-a/section-a1/chapter-one",
            "    Chapter Two [chapter] area-a/section-a1/chapter-two",
            "    Chapter Three [chapter] area-a/section-a1/chapter-three",
            "Area B [section] area-b",
            "  Section B1 [section] area-b/section-b1",
            "    Chapter Five [chapter] area-b/section-b1/chapter-five",
            "    Chapter Six [chapter] area-b/section-b1/chapter-six",
            "  Section A2 [section] area-b/section-a2",
            "    Chapter Four [chapter] area-b/section-a2/chapter-four",
        ]
    )


@pytest.mark.django_db
def test_node_path_follows_parent_change_through_save(small_tree):
    chapter = node("Chapter Four")
    chapter.parent = node("Section B1")
    chapter.save()
    assert node("Chapter Four").path == "area-b/section-b1/chapter-four"
    assert [n.title for n in node("Section B1").get_children()] == [
        "Chapter Five",
        "Chapter Six",
        "Chapter Four",
    ]


@pytest.mark.django_db
def test_node_updated_moves_forward_on_every_save(small_tree):
    chapter = node("Chapter One")
    assert chapter.updated == datetime.datetime(2026, 8, 9, 12, 0, tzinfo=datetime.UTC)
    chapter.body = "Edited."
    chapter.save()
    first_edit = node("Chapter One").updated
    assert first_edit > datetime.datetime(2026, 8, 9, 12, 0, tzinfo=datetime.UTC)
    chapter.save()
    assert node("Chapter One").updated > first_edit


@pytest.mark.django_db
def test_node_body_html_is_rendered_on_save(small_tree):
    chapter = node("Chapter One")
    chapter.body = "**Fused** <script>x()</script>"
    chapter.save()
    assert node("Chapter One").body_html == "<p><strong>Fused</strong> x()</p>"


@pytest.mark.django_db
def test_node_body_text_is_the_rendered_bodys_text_on_save(small_tree):
    chapter = node("Chapter One")
    assert chapter.body_text == "This chapter is currently a scaffold."
    chapter.body = "## Fusion\n\n**Fused** `a < b` &amp; <script>x()</script>"
    chapter.save()
    assert node("Chapter One").body_text == "Fusion Fused a < b & x()"


@pytest.mark.django_db
def test_node_headings_are_listed_on_save(small_tree):
    chapter = node("Chapter One")
    assert chapter.headings == []
    chapter.body = "## Fusion\n\n### Линейная алгебра\n\n## Fusion"
    chapter.save()
    assert node("Chapter One").headings == [
        {"level": 2, "id": "fusion", "title": "Fusion"},
        {"level": 3, "id": "линейная-алгебра", "title": "Линейная алгебра"},
        {"level": 2, "id": "fusion_1", "title": "Fusion"},
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "slug", "parent", "field", "message"),
    [
        ("Other A", "area-a", None, "slug", "A sibling already uses the slug “area-a”."),
        ("Other", "section-a2", "Area A", "slug", "A sibling already uses the slug “section-a2”."),
        (
            "Extra",
            "",
            "Chapter One",
            "parent",
            "“Chapter One” is a chapter; chapters cannot have children.",
        ),
        ("   ", "blank", "Section A1", "title", "The title cannot be blank."),
        (
            "Line\nBcc: someone@example.com",
            "line",
            "Section A1",
            "title",
            "The title cannot hold a line break, a tab or another control character.",
        ),
    ],
)
def test_node_clean_refuses_invalid_new_nodes(small_tree, title, slug, parent, field, message):
    kind = Node.Kind.SECTION if parent in (None, "Area A") else Node.Kind.CHAPTER
    new = Node(title=title, slug=slug, kind=kind, parent=node(parent) if parent else None)
    with pytest.raises(ValidationError) as error:
        new.full_clean()
    assert error.value.message_dict[field] == [message]


@pytest.mark.django_db
def test_node_clean_refuses_a_chapter_at_the_top_level(small_tree):
    with pytest.raises(ValidationError) as error:
        Node(title="Loose", kind=Node.Kind.CHAPTER).full_clean()
    assert error.value.message_dict["parent"] == ["A chapter must belong to a section."]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "title", ["Admin", "Static", "History", "Revisions", "Recent", "Feeds", "Search"]
)
def test_node_clean_refuses_reserved_top_level_slug(small_tree, title):
    with pytest.raises(ValidationError) as error:
        Node(title=title, slug=title.lower(), kind=Node.Kind.SECTION).full_clean()
    slug = title.lower()
    assert error.value.message_dict["slug"] == [f"“{slug}” is reserved for the site's own URLs."]


@pytest.mark.django_db
def test_node_clean_allows_reserved_slug_below_the_top_level(small_tree):
    chapter = Node(title="Search", kind=Node.Kind.CHAPTER, parent=node("Section A1"))
    chapter.full_clean()
    assert chapter.slug == "search"


@pytest.mark.django_db
def test_node_clean_refuses_turning_a_section_with_children_into_a_chapter(small_tree):
    section = node("Section A1")
    section.kind = Node.Kind.CHAPTER
    with pytest.raises(ValidationError) as error:
        section.full_clean()
    assert error.value.message_dict["kind"] == [
        "This node has children, so it must stay a section."
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("moved", "target", "position", "message"),
    [
        (
            "Area A",
            "Section A1",
            "last-child",
            "A node cannot be moved under itself or one of its descendants.",
        ),
        (
            "Section A1",
            "Section A1",
            "last-child",
            "A node cannot be moved under itself or one of its descendants.",
        ),
        (
            "Chapter Five",
            "Chapter One",
            "last-child",
            "“Chapter One” is a chapter; chapters cannot have children.",
        ),
        ("Chapter Five", "Area A", "left", "A chapter must belong to a section."),
        ("Section B1", "Section A1", "right", "A sibling already uses the slug “section-b1”."),
    ],
)
def test_node_move_refuses_moves_that_break_the_tree(small_tree, moved, target, position, message):
    clash = node("Section A2")
    clash.slug = "section-b1"
    clash.save()
    before = tree_table()
    with pytest.raises(InvalidMove) as error:
        node(moved).move_to(node(target), position)
    assert str(error.value) == message
    assert tree_table() == before


@pytest.mark.django_db
def test_node_top_level_slug_made_from_a_reserved_title_gets_a_number(small_tree):
    assert make("Admin").slug == "admin-2"


@pytest.mark.django_db
def test_node_save_reads_the_parents_path_from_the_database(small_tree):
    chapter = node("Chapter One")
    assert chapter.parent.path == "area-a/section-a1"
    area = node("Area A")
    area.slug = "renamed"
    area.save()
    chapter.title = "Chapter One, edited"
    chapter.save()
    assert node("Chapter One, edited").path == "renamed/section-a1/chapter-one"


@pytest.mark.django_db
def test_node_save_with_update_fields_keeps_derived_fields_right(small_tree):
    section = node("Section A1")
    section.slug = "renamed"
    section.save(update_fields=["slug"])
    assert node("Section A1").path == "area-a/renamed"
    assert node("Chapter One").path == "area-a/renamed/chapter-one"


@pytest.mark.django_db
def test_node_move_with_stale_instances_keeps_the_tree_valid(small_tree):
    first, second = node("Section A1"), node("Section A2")
    first.move_to(node("Area B"), "last-child")
    second.move_to(node("Area B"), "last-child")
    before = tree_table()
    Node.objects.rebuild()
    assert tree_table() == before
    assert [n.title for n in node("Area B").get_children()] == [
        "Section B1",
        "Section A1",
        "Section A2",
    ]


@pytest.mark.django_db
def test_node_move_that_makes_a_path_too_long_is_refused(small_tree):
    parent = node("Area A")
    for depth in range(9):
        parent = make(f"Level {depth}", parent, slug=f"{depth}" * 100)
    parent = make("Deepest", parent, slug="d" * 60)
    assert len(parent.path) == 976
    before = tree_table()
    with pytest.raises(InvalidMove, match="would grow past 1000 characters"):
        node("Section A1").move_to(parent, "last-child")
    assert tree_table() == before


@pytest.mark.django_db
def test_node_move_measures_its_own_subtree_not_one_whose_slug_differs_in_case(small_tree):
    parent = node("Area A")
    for depth in range(9):
        parent = make(f"Level {depth}", parent, slug=f"{depth}" * 100)
    assert len(parent.path) == 915
    make("Deep chapter", make("Upper", node("Area B"), slug="Case"), slug="c" * 90)
    lower = make("Lower", node("Area B"), slug="case")
    # Under the deep section, "case" makes a path of 920 characters; "Case"'s subtree, whose
    # paths also start with "area-b/case/" to SQLite's LIKE, would make one of 1,011.
    Node.objects.move_node(lower, parent, "last-child")
    assert node("Lower").path == f"{parent.path}/case"


# A Chinese letter: three bytes in UTF-8, so nine in a URL ("%E8%B7%AF").
CHINESE = "路"


def chinese_sections(levels=9):
    """Create ``levels`` sections under one another, each with a slug of 100 Chinese letters
    (the longest a slug may be); return the deepest. Nine make a path of 908 characters,
    8,108 bytes in a URL."""
    parent = None
    for _ in range(levels):
        parent = make("Level", parent, slug=CHINESE * 100)
    return parent


@pytest.mark.django_db
def test_node_clean_refuses_a_path_too_long_for_a_url():
    deepest = chinese_sections()
    assert len(quote(deepest.path)) == 8108
    Node(title="Chapter", slug=CHINESE * 5, parent=deepest).full_clean()  # 8,154: the longest
    with pytest.raises(ValidationError) as error:
        Node(title="Chapter", slug=CHINESE * 6, parent=deepest).full_clean()
    assert error.value.message_dict["slug"] == [
        "The page's address would take 8,163 bytes in a URL, past the 8,154 a server accepts "
        "(a letter beyond ASCII takes 6 to 12): shorten its slug or its sections' slugs."
    ]


@pytest.mark.django_db
def test_node_move_that_makes_a_descendants_url_too_long_is_refused():
    deepest = chinese_sections()
    section = make("节", make("Area"))
    make("Chapter", section, kind=Node.Kind.CHAPTER, slug=CHINESE * 5)
    before = tree_table()
    with pytest.raises(InvalidMove, match="would take 8,164 bytes in a URL"):
        node("节").move_to(deepest, "last-child")
    assert tree_table() == before


@pytest.mark.django_db
def test_node_clean_refuses_a_body_nested_too_deeply(small_tree):
    chapter = node("Chapter One")
    chapter.body = "- " * 1000 + "x"
    with pytest.raises(ValidationError) as error:
        chapter.full_clean()
    assert error.value.message_dict["body"] == [
        "Line 1 nests 1,000 lists, quotes or indents; at most 32 are allowed."
    ]


@pytest.mark.django_db
def test_node_check_tree_accepts_an_area_moved_into_another(small_tree):
    # django-mptt leaves the moved area's tree id unused: gaps between tree ids are valid.
    Node.objects.move_node(node("Area A"), node("Area B"), "last-child")
    assert set(Node.objects.values_list("tree_id", flat=True)) == {2}
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_node_save_of_a_stale_instance_moved_elsewhere_keeps_the_tree_valid(small_tree):
    stale = node("Chapter Four")
    Node.objects.move_node(node("Chapter Four"), node("Section B1"), "first-child")
    stale.title = "Chapter Four, edited"
    stale.save()
    assert Node.objects.check_tree() == []
    assert [n.title for n in node("Section A2").get_children()] == ["Chapter Four, edited"]


@pytest.mark.django_db
def test_node_parent_change_of_a_stale_instance_keeps_the_tree_valid(small_tree):
    stale = node("Chapter Four")
    make("Added", node("Section A1"), Node.Kind.CHAPTER)
    stale.parent = node("Section B1")
    stale.save()
    assert Node.objects.check_tree() == []
    assert [n.title for n in node("Section B1").get_children()] == [
        "Chapter Five",
        "Chapter Six",
        "Chapter Four",
    ]


@pytest.mark.django_db(transaction=True)
def test_node_move_that_fails_on_save_changes_nothing(small_tree, monkeypatch):
    # The save fails after django-mptt moved the node's numbers: recording the old path.
    def fail(moved, taken):
        raise DatabaseError("the disk is full")

    monkeypatch.setattr(PathRedirect, "record", fail)
    before = tree_table()
    with pytest.raises(DatabaseError, match="the disk is full"):
        Node.objects.move_node(node("Chapter Four"), node("Section B1"), "last-child")
    assert tree_table() == before
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_node_move_keeps_a_body_the_limits_now_refuse(small_tree):
    # A body stored before the current limits is not rendered again by a move, which would
    # fail: the stored rendering is kept, as the body did not change.
    Node.objects.filter(title="Chapter Four").update(body="- " * 1000 + "x", body_html="<p>old</p>")
    Node.objects.move_node(node("Chapter Four"), node("Section B1"), "last-child")
    moved = node("Chapter Four")
    assert (moved.parent.title, moved.body_html) == ("Section B1", "<p>old</p>")


@pytest.mark.django_db
def test_node_delete_of_a_node_its_section_took_along_changes_nothing_more(small_tree):
    # The admin's "delete selected" deletes each selected node in turn, loaded beforehand.
    section, chapter = node("Section A1"), node("Chapter One")
    section.delete()
    before = tree_table()
    chapter.delete()
    assert tree_table() == before
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_field_problems_name_a_title_with_a_control_character(small_tree):
    chapter = node("Chapter One")
    chapter.title = "Chapter\tOne"
    assert chapter.field_problems() == [
        "the title holds a line break, a tab or another control character."
    ]
