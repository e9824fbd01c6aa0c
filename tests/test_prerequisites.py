"""Prerequisites: a chapter's list of the chapters it builds on (chapters.models.prerequisites)."""

import pytest
from django.core.exceptions import ValidationError

from chapters import readiness
from chapters.edit import workflow
from chapters.history import revert
from chapters.models import Node, PendingChange
from tests.helpers import edit, form_values, node, role_user, soup

pytestmark = pytest.mark.django_db


EDIT_THREE = "/edit/area-a/section-a1/chapter-three/"


def ids(*titles):
    """Return the ids of the nodes titled ``titles``, in that order."""
    return [node(title).pk for title in titles]


def test_requires_stored_in_order_and_kept_by_a_rename(small_tree):
    edit("Chapter Three", requires=ids("Chapter Two", "Chapter One"))
    edit("Chapter One", title="Chapter 1", slug="chapter-1")
    assert node("Chapter Three").requires == ids("Chapter Two", "Chapter 1")


def test_requires_is_part_of_a_revision_and_a_revert_restores_it(small_tree):
    edit("Chapter Three", requires=ids("Chapter One"))
    edit("Chapter Three", requires=ids("Chapter Two"))
    first = node("Chapter Three").history.order_by("history_id")[1]
    assert first.requires == ids("Chapter One")
    assert revert(node("Chapter Three"), first) == []
    assert node("Chapter Three").requires == ids("Chapter One")


def test_requires_refuses_a_cycle_naming_it(small_tree):
    edit("Chapter Two", requires=ids("Chapter One"))
    edit("Chapter Three", requires=ids("Chapter Two"))
    with pytest.raises(ValidationError) as refused:
        edit("Chapter One", requires=ids("Chapter Three"))
    assert refused.value.message_dict == {
        "requires": [
            "These prerequisites would make a cycle: "
            "“Chapter One” → “Chapter Three” → “Chapter Two” → “Chapter One”."
        ]
    }
    assert node("Chapter One").requires == []


def test_requires_refuses_the_chapter_itself(small_tree):
    with pytest.raises(ValidationError) as refused:
        edit("Chapter One", requires=ids("Chapter One"))
    assert refused.value.messages == [
        "These prerequisites would make a cycle: “Chapter One” → “Chapter One”."
    ]


@pytest.mark.parametrize(
    ("requires", "message"),
    [
        (["1"], "“requires” is not a list of node ids."),
        ("1", "“requires” is not a list of node ids."),
        ([True], "“requires” is not a list of node ids."),
        ("twice", "“requires” names a chapter more than once."),
        ([999999], "No page has the id 999999."),
        ("section", "“Section A1” is a section; a prerequisite is a chapter."),
    ],
)
def test_requires_refuses_what_is_not_a_chapter(small_tree, requires, message):
    if requires == "twice":
        requires = ids("Chapter One", "Chapter One")
    elif requires == "section":
        requires = ids("Section A1")
    with pytest.raises(ValidationError) as refused:
        edit("Chapter Two", requires=requires)
    assert refused.value.messages == [message]


def test_requires_refused_on_a_section(small_tree):
    with pytest.raises(ValidationError) as refused:
        edit("Section A2", requires=ids("Chapter One"))
    assert refused.value.messages == ["Only a chapter has prerequisites."]


def test_requires_of_a_deleted_chapter_reported_as_a_broken_link(small_tree):
    edit("Chapter Three", requires=ids("Chapter One", "Chapter Two"))
    node("Chapter One").delete()
    three = node("Chapter Three")
    assert three.requires[1:] == ids("Chapter Two")
    rows = [(row.source.title, row.kind, row.text, row.problem) for row in readiness.broken_links()]
    assert rows == [
        ("Chapter Three", "requires", "Chapter One", "The prerequisite “Chapter One” was deleted.")
    ]
    three.title = "Chapter 3"
    three.save()
    assert Node.objects.get(pk=three.pk).requires == three.requires


def test_editor_shows_and_saves_prerequisites_as_paths(client, small_tree):
    edit("Chapter Three", requires=ids("Chapter Two"))
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    assert form["requires"] == "area-a/section-a1/chapter-two"
    form["requires"] = (
        "/area-a/section-a2/chapter-four/\r\nhttp://testserver/area-a/section-a1/chapter-one/"
    )
    response = client.post(EDIT_THREE, {**form, "save": "1"})
    assert response.status_code == 302
    assert node("Chapter Three").requires == ids("Chapter Four", "Chapter One")


def test_editor_names_each_line_that_is_no_page_and_the_cycle(client, small_tree):
    edit("Chapter Two", requires=ids("Chapter Three"))
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    form["requires"] = "area-a/nowhere\narea-a/section-a1/chapter-one\n\narea-b/x"
    page = soup(client.post(EDIT_THREE, {**form, "save": "1"}))
    assert [li.text for li in page.select(".editor-field-requires .errors li")] == [
        "Line 1: no page is at “area-a/nowhere”.",
        "Line 4: no page is at “area-b/x”.",
    ]
    form["requires"] = "area-a/section-a1/chapter-two"
    page = soup(client.post(EDIT_THREE, {**form, "save": "1"}))
    assert [li.text for li in page.select(".editor-field-requires .errors li")] == [
        "These prerequisites would make a cycle: “Chapter Three” → “Chapter Two” → “Chapter Three”."
    ]
    assert node("Chapter Three").requires == []


def test_editor_of_a_published_page_proposes_prerequisites_for_review(client, small_tree):
    edit("Chapter Three", status="published")
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    form["requires"] = "area-a/section-a1/chapter-one"
    client.post(EDIT_THREE, {**form, "save": "1"})
    change = PendingChange.objects.get()
    assert (change.requires, node("Chapter Three").requires) == (ids("Chapter One"), [])
    again = form_values(soup(client.get(EDIT_THREE)), "editor")  # the change, taken up
    assert again["requires"] == "area-a/section-a1/chapter-one"
    reviewer = role_user("rev", "Reviewer")
    client.force_login(reviewer)
    rows = soup(client.get(change.get_absolute_url())).select(".diff-fields tbody tr")
    assert [[cell.text for cell in row.select("th, td")] for row in rows] == [
        ["Prerequisites", "(none)", "Chapter One"]
    ]
    workflow.approve(change, reviewer, "http://testserver/")
    assert node("Chapter Three").requires == ids("Chapter One")


def test_editor_merges_prerequisites_changed_meanwhile_and_saves(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    edit("Chapter Three", requires=ids("Chapter One"))
    response = client.post(EDIT_THREE, {**form, "body": "Mine.", "save": "1"})
    assert response.status_code == 302
    assert (node("Chapter Three").body, node("Chapter Three").requires) == (
        "Mine.",
        ids("Chapter One"),
    )


def test_admin_saves_prerequisites(admin_client, small_tree):
    three = node("Chapter Three")
    url = f"/admin/chapters/node/{three.pk}/change/"
    form = form_values(soup(admin_client.get(url)), "node_form")
    assert form["requires"] == ""
    form["requires"] = "area-b/section-b1/chapter-five"
    response = admin_client.post(url, form)
    assert response.status_code == 302
    assert node("Chapter Three").requires == ids("Chapter Five")


def test_editor_offers_a_choice_when_both_changed_prerequisites(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    edit("Chapter Three", requires=ids("Chapter One"))
    form["requires"] = "area-a/section-a1/chapter-two"
    page = soup(client.post(EDIT_THREE, {**form, "save": "1"}))
    choices = page.select(".editor-field-requires input[type=radio]")
    assert [(c["value"], c.parent.text.strip()) for c in choices] == [
        ("area-a/section-a1/chapter-two", "Yours: area-a/section-a1/chapter-two"),
        ("area-a/section-a1/chapter-one", "Theirs: area-a/section-a1/chapter-one"),
    ]
    merged = form_values(page, "editor")
    merged["requires"] = "area-a/section-a1/chapter-two"
    assert client.post(EDIT_THREE, {**merged, "save": "1"}).status_code == 302
    assert node("Chapter Three").requires == ids("Chapter Two")


def test_chapter_page_shows_before_this_and_the_path_in_reading_order(client, small_tree):
    edit("Chapter Two", requires=ids("Chapter Four"))
    edit("Chapter Four", requires=ids("Chapter Five"))
    edit("Chapter Three", requires=ids("Chapter Two", "Chapter One"))
    page = soup(client.get("/area-a/section-a1/chapter-three/"))
    nav = page.select_one("nav.prerequisites")
    assert " ".join(nav.select_one(".before-this").text.split()) == (
        "Before this: Chapter Two, Chapter One"
    )
    assert [(a["href"], a["data-chapter"]) for a in nav.select(".before-this a")] == [
        ("/area-a/section-a1/chapter-two/", str(node("Chapter Two").pk)),
        ("/area-a/section-a1/chapter-one/", str(node("Chapter One").pk)),
    ]
    assert [li.text for li in nav.select(".prerequisite-path li")] == [
        "Chapter Five",
        "Chapter Four",
        "Chapter Two",
        "Chapter One",
    ]
    assert nav.select_one(".prerequisite-graph-link a")["href"] == "/prerequisites/area-a/"
    assert page.select_one("article.page > h1 ~ nav.prerequisites") is nav


def test_chapter_page_without_prerequisites_shows_none(client, small_tree):
    page = soup(client.get("/area-a/section-a1/chapter-three/"))
    assert page.select("nav.prerequisites") == []


def test_chapter_page_with_prerequisites_costs_two_queries_more(
    client, small_tree, django_assert_num_queries
):
    from tests.test_views import QUERIES_PER_CACHED_PAGE, QUERIES_PER_CHAPTER_PAGE

    edit("Chapter Three", requires=ids("Chapter One"))
    client.get("/area-a/section-a1/chapter-two/")  # the contents, kept for the version
    with django_assert_num_queries(QUERIES_PER_CHAPTER_PAGE + 2):
        client.get("/area-a/section-a1/chapter-three/")
    with django_assert_num_queries(QUERIES_PER_CACHED_PAGE):
        client.get("/area-a/section-a1/chapter-three/")


def test_chapter_page_is_the_same_for_every_anonymous_reader(client, small_tree):
    from django.test import Client

    edit("Chapter Three", requires=ids("Chapter One"))
    first = client.get("/area-a/section-a1/chapter-three/")
    second = Client().get("/area-a/section-a1/chapter-three/")
    assert first.content == second.content
    assert first["Cache-Control"] == second["Cache-Control"]


def test_chapter_page_leaves_out_a_deleted_prerequisite(client, small_tree):
    edit("Chapter Three", requires=ids("Chapter One", "Chapter Two"))
    node("Chapter One").delete()
    page = soup(client.get("/area-a/section-a1/chapter-three/"))
    assert [a.text for a in page.select(".before-this a")] == ["Chapter Two"]


def test_area_graph_drawn_with_links_to_chapters(client, small_tree):
    edit("Chapter Two", requires=ids("Chapter One"))
    edit("Chapter Four", requires=ids("Chapter Two", "Chapter Five"))
    response = client.get("/prerequisites/area-a/")
    assert response.status_code == 200
    page = soup(response)
    svg = page.select_one("figure.prerequisite-graph svg")
    assert svg["aria-label"] == "Prerequisites in Area A"
    assert [(a["href"], a.select_one("title").text) for a in svg.select("a.prerequisite-node")] == [
        ("/area-a/section-a1/chapter-one/", "Chapter One"),
        ("/area-a/section-a1/chapter-two/", "Chapter Two"),
        ("/area-a/section-a2/chapter-four/", "Chapter Four"),
        ("/area-b/section-b1/chapter-five/", "Chapter Five"),
    ]
    assert [g.select_one("title").text for g in svg.select("g.edge")] == [
        "n{}->n{}".format(*ids("Chapter One", "Chapter Two")),
        "n{}->n{}".format(*ids("Chapter Two", "Chapter Four")),
        "n{}->n{}".format(*ids("Chapter Five", "Chapter Four")),
    ]
    assert [" ".join(li.text.split()) for li in page.select(".prerequisite-list li")] == [
        "Chapter Two: after Chapter One",
        "Chapter Four: after Chapter Two, Chapter Five",
    ]


def test_area_graph_without_graphviz_is_a_list(client, small_tree, monkeypatch):
    monkeypatch.setattr("chapters.markdown.graphviz.shutil.which", lambda name: None)
    edit("Chapter Two", requires=ids("Chapter One"))
    page = soup(client.get("/prerequisites/area-a/"))
    assert page.select("article svg") == []
    assert page.select_one(".diagram-error").text == (
        "Graphviz could not draw the graph on this server (it may not be installed), "
        "so here it is as a list."
    )
    assert [" ".join(li.text.split()) for li in page.select(".prerequisite-list li")] == [
        "Chapter Two: after Chapter One"
    ]


def test_area_graph_of_an_area_without_prerequisites_and_of_no_area(client, small_tree):
    page = soup(client.get("/prerequisites/area-b/"))
    assert page.select_one("article p").text == "No chapter of Area B names a prerequisite yet."
    assert client.get("/prerequisites/nowhere/").status_code == 404


THREE_MD = "area-a/section-a1/chapter-three.md"


def test_markdown_folder_writes_and_reads_requires(small_tree):
    from chapters.files.export import export_files
    from chapters.files.importer import import_folder

    edit("Chapter Three", requires=ids("Chapter Two", "Chapter Five"))
    files = export_files()
    text = files[THREE_MD].decode()
    assert text.split("---\n")[1].splitlines()[-3:] == [
        "requires:",
        "- area-a/section-a1/chapter-two",
        "- area-b/section-b1/chapter-five",
    ]
    edit("Chapter Three", requires=[])
    # Without its date, the file replaces the site's change (the stale rule).
    lines = [line for line in text.splitlines() if not line.startswith("updated:")]
    files[THREE_MD] = "\n".join([*lines, ""]).encode()
    import_folder(files)
    assert node("Chapter Three").requires == ids("Chapter Two", "Chapter Five")
    assert export_files()[THREE_MD].decode().endswith(text.split("updated:")[1].split("\n", 1)[1])


def test_markdown_folder_requires_a_chapter_added_later_in_the_same_import(small_tree):
    from chapters.files.export import export_files
    from chapters.files.importer import import_folder

    files = export_files()
    files["area-b/section-b1/chapter-seven.md"] = b"---\ntitle: Chapter Seven\n---\n\nSeven.\n"
    seven = b"    - [Chapter Seven](area-b/section-b1/chapter-seven.md)\n"
    six = b"(area-b/section-b1/chapter-six.md)\n"
    files["SUMMARY.md"] = files["SUMMARY.md"].replace(six, six + seven)
    files[THREE_MD] = files[THREE_MD].replace(
        b"\n---\n", b"\nrequires: [area-b/section-b1/chapter-seven]\n---\n", 1
    )
    import_folder(files)
    assert node("Chapter Three").requires == ids("Chapter Seven")


def test_markdown_folder_names_a_bad_requires_with_its_file_and_line(small_tree):
    from chapters.files.export import export_files
    from chapters.files.folder import FolderError
    from chapters.files.importer import import_folder

    files = export_files()
    files[THREE_MD] = files[THREE_MD].replace(b"\n---\n", b"\nrequires: area-a\n---\n", 1)
    with pytest.raises(FolderError) as refused:
        import_folder(files)
    assert refused.value.problems == [f"{THREE_MD} line 7: “requires” is not a list of page paths."]
    files = export_files()
    files[THREE_MD] = files[THREE_MD].replace(b"\n---\n", b"\nrequires: [area-a/nowhere]\n---\n", 1)
    with pytest.raises(FolderError) as refused:
        import_folder(files)
    assert refused.value.problems == [
        f"{THREE_MD} line 7: “requires” names “area-a/nowhere”, where there is no page."
    ]
    assert node("Chapter Three").requires == []


def test_curriculum_file_writes_and_reads_requires(small_tree):
    import json

    from chapters.curriculum_file import export_curriculum, import_curriculum

    edit("Chapter Three", requires=ids("Chapter Two", "Chapter Five"))
    text = export_curriculum()
    nodes = {each["path"]: each for each in json.loads(text)["nodes"]}
    assert nodes["area-a/section-a1/chapter-three"]["requires"] == [
        "area-a/section-a1/chapter-two",
        "area-b/section-b1/chapter-five",
    ]
    assert "requires" not in nodes["area-a/section-a1/chapter-two"]
    edit("Chapter Three", requires=[])
    import_curriculum(text.encode())
    assert node("Chapter Three").requires == ids("Chapter Two", "Chapter Five")
    again = {each["path"]: each for each in json.loads(export_curriculum())["nodes"]}
    assert again["area-a/section-a1/chapter-three"]["requires"] == [
        "area-a/section-a1/chapter-two",
        "area-b/section-b1/chapter-five",
    ]


def test_curriculum_file_names_a_bad_requires(small_tree):
    import json

    from chapters.curriculum_file import CurriculumFileError, export_curriculum, import_curriculum

    document = json.loads(export_curriculum())
    three = next(n for n in document["nodes"] if n["title"] == "Chapter Three")
    three["requires"] = "area-a"
    with pytest.raises(CurriculumFileError) as refused:
        import_curriculum(json.dumps(document).encode())
    assert refused.value.problems == [
        "nodes[4] “area-a/section-a1/chapter-three”: “requires” is not a list of page paths."
    ]
    three["requires"] = ["area-a/section-a1/chapter-three"]
    with pytest.raises(CurriculumFileError) as refused:
        import_curriculum(json.dumps(document).encode())
    assert refused.value.problems == [
        "nodes[4] “area-a/section-a1/chapter-three”: These prerequisites would make a cycle: "
        "“Chapter Three” → “Chapter Three”."
    ]


def test_api_reads_and_edits_requires_by_id(client, small_tree):
    three = node("Chapter Three")
    client.force_login(role_user("ed", "Editor"))
    assert client.get(f"/api/pages/{three.pk}/").json()["requires"] == []
    base = Node.history.filter(id=three.pk).first().history_id
    url = f"/api/pages/{three.pk}/"
    answer = client.patch(
        url, {"base_revision": base, "requires": [999999]}, content_type="application/json"
    )
    assert answer.json()["fields"] == {"requires": ["Line 1: no page is at “#999999”."]}
    answer = client.patch(
        url,
        {"base_revision": base, "requires": ids("Chapter Two", "Chapter One")},
        content_type="application/json",
    )
    assert answer.status_code == 200
    assert client.get(url).json()["requires"] == ids("Chapter Two", "Chapter One")
    base = Node.history.filter(id=three.pk).first().history_id
    client.patch(url, {"base_revision": base, "body": "x"}, content_type="application/json")
    assert node("Chapter Three").requires == ids("Chapter Two", "Chapter One")


def test_check_tree_reports_a_cycle_and_a_list_that_is_not_of_ids(small_tree):
    one, two, three = ids("Chapter One", "Chapter Two", "Chapter Three")
    Node.objects.filter(pk=one).update(requires=[two])
    Node.objects.filter(pk=two).update(requires=[one])
    Node.objects.filter(pk=three).update(requires=["x"])
    assert Node.objects.check_tree() == [
        f"“Chapter Three” (pk {three}): “requires” is not a list of node ids.",
        f"“Chapter One” (pk {one}): its prerequisites make a cycle: "
        "“Chapter One” → “Chapter Two” → “Chapter One”.",
    ]


def test_revert_leaves_out_a_prerequisite_deleted_since(small_tree):
    edit("Chapter Three", requires=ids("Chapter One", "Chapter Two"))
    edit("Chapter Three", requires=[])
    revision = node("Chapter Three").history.order_by("history_id")[1]
    node("Chapter One").delete()
    assert revert(node("Chapter Three"), revision) == [
        "A prerequisite it named has been deleted, so it is left out."
    ]
    assert node("Chapter Three").requires == ids("Chapter Two")


def test_comparing_revisions_shows_the_prerequisites_by_title(small_tree):
    from chapters.history import compare

    edit("Chapter Three", requires=ids("Chapter One"))
    edit("Chapter Three", requires=ids("Chapter Two", "Chapter One"))
    old, new = node("Chapter Three").history.order_by("history_id")[1:3]
    assert [(c.label, c.old, c.new) for c in compare(old, new)["fields"]] == [
        ("Prerequisites", "Chapter One", "Chapter Two, Chapter One")
    ]


def test_editor_draft_keeps_the_prerequisites_as_typed(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_THREE)), "editor")
    form["requires"] = "area-a/section-a1/chapter-one\nnowhere"
    client.post("/drafts/edit/area-a/section-a1/chapter-three/", form)
    restored = form_values(soup(client.get(f"{EDIT_THREE}?restore=draft")), "editor")
    assert restored["requires"] == "area-a/section-a1/chapter-one\nnowhere"
