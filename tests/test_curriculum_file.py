"""The curriculum file: its format, importing into a tree that holds nodes, refusing bad files."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from chapters.curriculum_file import export_curriculum, import_curriculum
from chapters.models import Link, Node, PathRedirect
from chapters.outline import SCAFFOLD_BODY
from tests.helpers import node, tree_table

DATE = "2026-08-09T12:00:00+00:00"


def entry(path, kind="section", **fields):
    """Return one node of a curriculum file, its parent and slug taken from ``path``."""
    parent, _, slug = path.rpartition("/")
    return {
        "body": "",
        "kind": kind,
        "parent": parent or None,
        "path": path,
        "slug": slug,
        "status": "draft",
        "title": slug.replace("-", " ").title(),
        "updated": DATE,
        **fields,
    }


def write(tmp_path, nodes, name="import.json"):
    """Write a curriculum file holding ``nodes``; return its path as a string."""
    file = tmp_path / name
    document = {"format": "curriculum-wiki", "version": 1, "nodes": nodes}
    file.write_text(json.dumps(document), encoding="utf-8")
    return str(file)


def state():
    """Return everything an import may change: the export, and the counts of derived rows."""
    return (
        export_curriculum(),
        Node.history.count(),
        PathRedirect.objects.count(),
        Link.objects.count(),
    )


@pytest.mark.django_db
def test_export_writes_the_format_version_and_nodes_in_tree_order(small_tree):
    chapter = node("Chapter Two")
    chapter.body, chapter.status, chapter.title = "Ünïcode — “quotes”\n", "review", "Chapter 2"
    chapter.save()
    Node.objects.filter(pk=chapter.pk).update(
        updated=datetime(2026, 9, 1, 14, 30, 5, 250, tzinfo=timezone.get_fixed_timezone(120))
    )
    text = export_curriculum()
    nodes = json.loads(text)["nodes"]
    assert [n["path"] for n in nodes] == list(Node.objects.values_list("path", flat=True))
    assert nodes[3] == {
        "body": "Ünïcode — “quotes”\n",
        "kind": "chapter",
        "parent": "area-a/section-a1",
        "path": "area-a/section-a1/chapter-two",
        "slug": "chapter-two",
        "status": "review",
        "title": "Chapter 2",
        "updated": "2026-09-01T12:30:05.000250+00:00",
    }
    assert text.startswith(
        '{\n  "format": "curriculum-wiki",\n  "nodes": [\n    {\n      "body": "",\n'
        '      "kind": "section",\n      "parent": null,\n      "path": "area-a",\n'
        '      "slug": "area-a",\n      "status": "draft",\n      "title": "Area A",\n'
        f'      "updated": "{DATE}"\n    }},\n'
    )
    assert '"body": "Ünïcode — “quotes”\\n",' in text
    assert text.endswith('    }\n  ],\n  "version": 1\n}\n')


@pytest.mark.django_db
def test_export_command_writes_stdout_or_the_output_file_alike(tmp_path, capsys, small_tree):
    call_command("export_curriculum")
    printed = capsys.readouterr().out
    call_command("export_curriculum", "-o", str(tmp_path / "out.json"))
    assert capsys.readouterr().out == f"Wrote {tmp_path / 'out.json'}.\n"
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == printed == export_curriculum()


@pytest.mark.django_db
def test_import_updates_nodes_by_path_adds_the_rest_and_leaves_the_others_alone(
    tmp_path, capsys, small_tree
):
    file = write(
        tmp_path,
        [
            entry("area-a"),
            entry("area-a/section-a2", title="Section A2, renamed"),
            entry("area-a/section-a2/chapter-four", "chapter", body="## New\n", status="published"),
            entry("area-a/section-a2/chapter-seven", "chapter"),
            entry("area-a/section-a1"),
            entry("area-a/section-a1/chapter-three", "chapter", body=SCAFFOLD_BODY),
            entry("area-a/section-a1/chapter-one", "chapter", body=SCAFFOLD_BODY),
            entry("area-c"),
            entry("area-c/section-c1"),
        ],
        name="edited.json",
    )
    call_command("import_curriculum", file)
    assert capsys.readouterr().out == (
        f"Imported {file}: 3 added, 4 changed, 2 unchanged; 5 not in the file, left as they were.\n"
    )
    assert tree_table() == (
        "Area A [section] area-a\n"
        "  Section A2, renamed [section] area-a/section-a2\n"
        "    Chapter Four [chapter] area-a/section-a2/chapter-four\n"
        "    Chapter Seven [chapter] area-a/section-a2/chapter-seven\n"
        "  Section A1 [section] area-a/section-a1\n"
        "    Chapter Two [chapter] area-a/section-a1/chapter-two\n"
        "    Chapter Three [chapter] area-a/section-a1/chapter-three\n"
        "    Chapter One [chapter] area-a/section-a1/chapter-one\n"
        "Area C [section] area-c\n"
        "  Section C1 [section] area-c/section-c1\n"
        "Area B [section] area-b\n"
        "  Section B1 [section] area-b/section-b1\n"
        "    Chapter Five [chapter] area-b/section-b1/chapter-five\n"
        "    Chapter Six [chapter] area-b/section-b1/chapter-six"
    )
    four = node("Chapter Four")
    assert (four.status, four.body_html) == (
        "published",
        '<h2 id="new">New<a class="headerlink" href="#new" title="Link to this heading">'
        "&para;</a></h2>",
    )
    imported = Node.history.filter(history_change_reason="Imported from edited.json")
    assert sorted(imported.values_list("title", flat=True)) == [
        "Area C",
        "Chapter Four",
        "Chapter One",
        "Chapter Seven",
        "Section A1",
        "Section A2, renamed",
        "Section C1",
    ]
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_import_dates_new_nodes_and_newer_content_as_the_file_and_older_content_now(
    tmp_path, small_tree
):
    before = timezone.now()
    file = write(
        tmp_path,
        [
            entry("area-b"),
            entry("area-b/section-b1"),
            entry(
                "area-b/section-b1/chapter-five",
                "chapter",
                body="Newer",
                updated="2027-01-02T03:04:05Z",
            ),
            entry("area-b/section-b1/chapter-six", "chapter", body="Edited offline"),
            entry(
                "area-b/section-b1/chapter-eight", "chapter", updated="2020-05-06T07:08:09+02:00"
            ),
        ],
    )
    import_curriculum(Path(file).read_bytes(), source="import.json")
    five, six, eight = node("Chapter Five"), node("Chapter Six"), node("Chapter Eight")
    assert five.updated == datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert eight.updated == datetime(2020, 5, 6, 5, 8, 9, tzinfo=UTC)
    assert six.updated >= before
    for chapter in (five, six, eight):
        latest = chapter.history.first()
        assert (latest.history_date, latest.updated, latest.body) == (
            chapter.updated,
            chapter.updated,
            chapter.body,
        )
        assert latest.history_change_reason == "Imported from import.json"


@pytest.mark.django_db
def test_import_of_the_databases_own_export_changes_nothing(tmp_path, capsys, small_tree):
    exported = tmp_path / "same.json"
    exported.write_text(export_curriculum(), encoding="utf-8")
    before = state()
    call_command("import_curriculum", str(exported))
    assert capsys.readouterr().out == (
        f"Imported {exported}: 0 added, 0 changed, 11 unchanged; 0 not in the file, left as "
        "they were.\n"
    )
    assert state() == before


@pytest.mark.django_db
def test_import_resolves_a_wiki_link_to_a_node_later_in_the_file(tmp_path, db, run_tasks):
    file = write(
        tmp_path,
        [
            entry("area"),
            entry("area/first", "chapter", body="See [[Second]]."),
            entry("area/second", "chapter"),
        ],
    )
    call_command("import_curriculum", file, verbosity=0)
    run_tasks()  # links mend after the commit
    assert (
        node("First").body_html == '<p>See <a class="wikilink" href="/area/second/">Second</a>.</p>'
    )


def bad_file_cases():
    """Yield (id, file bytes or nodes, expected problem lines) for files that must be refused."""
    long_title = "T" * 201
    yield (
        "not-utf-8",
        b'{"format": "curriculum-wiki", "nodes": [], "version": 1, "x": "\xff"}',
        ["The file is not UTF-8 text (invalid start byte at byte 63)."],
    )
    yield (
        "bad-json",
        b'{"format": "curriculum-wiki", "nodes": [',
        ["The file is not valid JSON: Expecting value: line 1 column 41 (char 40)."],
    )
    yield (
        "not-an-object",
        b"[]",
        [
            "The file is not a curriculum file: it must be an object with exactly “format”, "
            "“version” and “nodes”."
        ],
    )
    yield (
        "other-format",
        b'{"format": "other", "nodes": [], "version": 1}',
        ["The file is not a curriculum file: its “format” is not “curriculum-wiki”."],
    )
    yield (
        "version-2",
        b'{"format": "curriculum-wiki", "nodes": [], "version": 2}',
        ["The file is version 2; this wiki reads version 1."],
    )
    yield (
        "nodes-not-a-list",
        b'{"format": "curriculum-wiki", "nodes": {}, "version": 1}',
        ["The file's “nodes” is not a list."],
    )
    yield "entry-not-an-object", ["area"], ["nodes[0]: is not an object."]
    missing = entry("area")
    del missing["title"], missing["updated"]
    yield "missing-fields", [missing], ["nodes[0] “area”: lacks the fields “title”, “updated”."]
    yield "unknown-field", [entry("area", pk=1)], ["nodes[0] “area”: has the unknown field “pk”."]
    yield (
        "not-a-string",
        [entry("area", status=None, body=3)],
        [
            "nodes[0] “area”: “body” is not a string.",
            "nodes[0] “area”: “status” is not a string.",
        ],
    )
    yield (
        "unknown-parent",
        [entry("area"), entry("elsewhere/section")],
        [
            "nodes[1] “elsewhere/section”: its parent “elsewhere” is neither in the file nor in "
            "the database."
        ],
    )
    yield (
        "cycle",
        [entry("a", parent="a/b"), entry("a/b")],
        [
            "nodes[0] “a”: the path is not the parent's path and the slug (“a/b/a”).",
            "nodes[0] “a”: is its own ancestor (“a” → “a/b” → “a”).",
            "nodes[1] “a/b”: is its own ancestor (“a/b” → “a” → “a/b”).",
        ],
    )
    yield (
        "siblings-one-slug",
        [entry("area"), entry("area/sec"), entry("area/sec", title="Again")],
        [
            "nodes[2] “area/sec”: nodes[1] “area/sec” has the same path; siblings cannot share the "
            "slug “sec”."
        ],
    )
    yield (
        "unknown-status",
        [entry("area", status="done")],
        ["nodes[0] “area”: the status “done” is not one of draft, review, published."],
    )
    yield (
        "unknown-kind",
        [entry("area", kind="part")],
        ["nodes[0] “area”: the kind “part” is not one of section, chapter."],
    )
    yield (
        "title-too-long",
        [entry("area", title=long_title)],
        ["nodes[0] “area”: the title is 201 characters long; the limit is 200."],
    )
    yield "blank-title", [entry("area", title="  ")], ["nodes[0] “area”: the title is blank."]
    yield (
        "date-without-timezone",
        [entry("area", updated="2026-08-09T12:00:00")],
        [
            "nodes[0] “area”: “updated” “2026-08-09T12:00:00” has no timezone (end it with Z or "
            "+00:00)."
        ],
    )
    yield (
        "not-a-date",
        [entry("area", updated="yesterday")],
        ["nodes[0] “area”: “updated” “yesterday” is not an ISO 8601 date and time."],
    )
    yield (
        "path-not-parent-and-slug",
        [entry("area"), entry("area/sec", slug="other")],
        ["nodes[1] “area/sec”: the path is not the parent's path and the slug (“area/other”)."],
    )
    yield (
        "invalid-slug",
        [entry("area"), entry("area/a b")],
        ["nodes[1] “area/a b”: the slug “a b” is not a slug (letters, digits, “-” or “_”)."],
    )
    yield (
        "reserved-slug",
        [entry("admin")],
        ["nodes[0] “admin”: the slug “admin” is reserved for the site's own URLs."],
    )
    yield (
        "chapter-with-children",
        [entry("area"), entry("area/ch", "chapter"), entry("area/ch/x")],
        [
            "nodes[2] “area/ch/x”: its parent nodes[1] “area/ch” is a chapter; chapters cannot "
            "have children."
        ],
    )
    yield (
        "top-level-chapter",
        [entry("loose", "chapter")],
        ["nodes[0] “loose”: a chapter must belong to a section."],
    )
    yield (
        "child-before-parent",
        [entry("area/sec"), entry("area")],
        ["nodes[0] “area/sec”: comes before its parent, nodes[1] “area”; list parents first."],
    )
    yield (
        "under-a-chapter-in-the-database",
        [entry("area-a/section-a1/chapter-one/x")],
        [
            "nodes[0] “area-a/section-a1/chapter-one/x”: its parent "
            "“area-a/section-a1/chapter-one” is a chapter in the database; chapters cannot "
            "have children."
        ],
    )
    yield (
        "section-with-children-made-a-chapter",
        [entry("area-b"), entry("area-b/section-b1", "chapter")],
        [
            "nodes[1] “area-b/section-b1”: is a chapter in the file but has children in the "
            "database that the file does not hold (“area-b/section-b1/chapter-five”)."
        ],
    )
    yield (
        "body-too-deep",
        [entry("area", body="- " * 1000 + "x")],
        [
            "nodes[0] “area”: the body cannot be rendered: Line 1 nests 1,000 lists, quotes or "
            "indents; at most 32 are allowed."
        ],
    )
    yield (
        "nul-and-surrogate",
        [entry("area", body="a\x00b", title="\ud800")],
        [
            "nodes[0] “area”: “body” holds a NUL or a lone surrogate, which no database stores.",
            "nodes[0] “area”: “title” holds a NUL or a lone surrogate, which no database stores.",
        ],
    )
    yield (
        "several-problems",
        [entry("area", status="done"), entry("area/x", updated="2026-08-09")],
        [
            "nodes[0] “area”: the status “done” is not one of draft, review, published.",
            "nodes[1] “area/x”: “updated” “2026-08-09” has no timezone (end it with Z or +00:00).",
        ],
    )


BAD_FILES = list(bad_file_cases())


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "problems"), [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES]
)
def test_import_of_a_bad_file_names_every_problem_and_changes_nothing(
    tmp_path, small_tree, content, problems
):
    if isinstance(content, bytes):
        file = tmp_path / "bad.json"
        file.write_bytes(content)
        file = str(file)
    else:
        file = write(tmp_path, content, name="bad.json")
    before = state()
    with pytest.raises(CommandError) as error:
        call_command("import_curriculum", file)
    assert str(error.value) == "\n".join(
        [f"{file} was not imported; nothing was changed:", *(f"- {p}" for p in problems)]
    )
    assert state() == before


@pytest.mark.django_db
def test_import_of_a_missing_file_fails_clearly(tmp_path):
    with pytest.raises(
        CommandError, match=r"^Cannot read .*/missing.json: No such file or directory\.$"
    ):
        call_command("import_curriculum", str(tmp_path / "missing.json"))


@pytest.mark.django_db
def test_import_of_a_bad_file_changes_nothing_even_after_valid_entries(tmp_path, small_tree):
    before = state()
    nodes = [
        entry("area-z"),
        entry("area-z/ok", "chapter", status="published"),
        entry("area-z/bad", "chapter", status="x"),
    ]
    with pytest.raises(CommandError, match="nodes\\[2\\] “area-z/bad”"):
        call_command("import_curriculum", write(tmp_path, nodes))
    assert state() == before
    assert not Node.objects.filter(path__startswith="area-z").exists()


@pytest.mark.django_db
def test_export_costs_one_query(curriculum, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert export_curriculum().count('"path": ') == 222


@pytest.mark.django_db
def test_import_puts_a_new_first_sibling_before_the_next_one_without_moving_others(
    tmp_path, capsys, small_tree
):
    file = write(
        tmp_path, [entry("area-a"), entry("area-a/section-a0"), entry("area-a/section-a1")]
    )
    call_command("import_curriculum", file)
    assert capsys.readouterr().out.startswith(f"Imported {file}: 1 added, 0 changed, 2 unchanged;")
    assert [n.title for n in node("Area A").get_children()] == [
        "Section A0",
        "Section A1",
        "Section A2",
    ]
