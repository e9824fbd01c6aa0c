"""Markdown folders: the export's files, round trips through an empty wiki, and edited
folders imported as exactly their edits."""

import re
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from chapters.files.export import export_files
from chapters.files.folder import (
    FolderError,
    read_directory,
    read_zip,
    write_directory,
    zip_folder,
)
from chapters.files.importer import import_folder
from chapters.models import Node
from tests.helpers import edit, node, tree_table

BODY = """\
## Vectors

A vector $v \\in \\mathbb{R}^n$ has a norm:

$$\\|v\\| = \\sqrt{\\sum_i v_i^2}$$

See [[Chapter Five]] and [[Area B/Section B1|the section]].

```python
print("норма")
```
"""


def revisions():
    """Return the number of revisions of each node, by pk."""
    counts = {}
    for pk in Node.history.values_list("id", flat=True):
        counts[pk] = counts.get(pk, 0) + 1
    return counts


def empty_the_wiki():
    """Remove every node and revision, as in a new database."""
    Node.objects.all().delete()
    Node.history.all().delete()


def texts(files):
    """Return the files as text, for readable comparisons."""
    return {path: data.decode("utf-8") for path, data in files.items()}


@pytest.mark.django_db
def test_export_writes_a_folder_per_section_a_file_per_chapter_and_the_summary(small_tree):
    edit("Chapter Two", title="Глава «два»: $x$", body="Line one\r\nLine two\r\n", status="review")
    Node.objects.filter(title="Глава «два»: $x$").update(
        updated=datetime(2026, 9, 1, 12, 30, 5, 250, tzinfo=UTC)
    )
    files = texts(export_files())
    chapter = node("Глава «два»: $x$")
    assert sorted(files) == [
        "SUMMARY.md",
        "area-a/index.md",
        "area-a/section-a1/chapter-one.md",
        "area-a/section-a1/chapter-three.md",
        "area-a/section-a1/chapter-two.md",
        "area-a/section-a1/index.md",
        "area-a/section-a2/chapter-four.md",
        "area-a/section-a2/index.md",
        "area-b/index.md",
        "area-b/section-b1/chapter-five.md",
        "area-b/section-b1/chapter-six.md",
        "area-b/section-b1/index.md",
    ]
    assert files["area-a/section-a1/chapter-two.md"] == (
        "---\n"
        "title: 'Глава «два»: $x$'\n"
        "status: review\n"
        "slug: chapter-two\n"
        "updated: 2026-09-01 12:30:05.000250+00:00\n"
        f"id: {chapter.pk}\n"
        "---\n"
        "\n"
        "Line one\n"
        "Line two\n"
    )
    assert files["area-a/index.md"] == (
        "---\ntitle: Area A\nstatus: draft\nslug: area-a\n"
        f"updated: 2026-08-09 12:00:00+00:00\nid: {node('Area A').pk}\n---\n"
    )
    assert files["SUMMARY.md"] == (
        "# Summary\n"
        "\n"
        "- [Area A](area-a/index.md)\n"
        "  - [Section A1](area-a/section-a1/index.md)\n"
        "    - [Chapter One](area-a/section-a1/chapter-one.md)\n"
        "    - [Глава «два»: $x$](area-a/section-a1/chapter-two.md)\n"
        "    - [Chapter Three](area-a/section-a1/chapter-three.md)\n"
        "  - [Section A2](area-a/section-a2/index.md)\n"
        "    - [Chapter Four](area-a/section-a2/chapter-four.md)\n"
        "- [Area B](area-b/index.md)\n"
        "  - [Section B1](area-b/section-b1/index.md)\n"
        "    - [Chapter Five](area-b/section-b1/chapter-five.md)\n"
        "    - [Chapter Six](area-b/section-b1/chapter-six.md)\n"
    )


@pytest.mark.django_db
def test_export_names_a_chapter_index_or_a_case_twin_apart_and_keeps_its_slug(load_outline):
    load_outline("Area\n  Section\n    Index\n    Intro\n")
    edit("Intro", slug="INDEX")
    files = texts(export_files())
    assert "area/section/index-2.md" in files
    assert "slug: INDEX\n" in files["area/section/INDEX-3.md"]
    assert "slug: index\n" in files["area/section/index-2.md"]


@pytest.mark.django_db
def test_curriculum_exported_imported_into_an_empty_wiki_exports_the_same_bytes(curriculum):
    edit("Proofs and Logic", body=BODY.replace("\n", "\r\n"), title="Доказательства и логика")
    before, table = export_files(), tree_table()
    pks = list(Node.objects.values_list("pk", "path"))
    empty_the_wiki()
    result = import_folder(read_zip(zip_folder(before)))
    assert len(result.changes) == 222 and {c.action for c in result.changes} == {"added"}
    assert export_files() == before
    assert tree_table() == table
    assert list(Node.objects.values_list("pk", "path")) == pks
    assert set(Node.history.values_list("history_change_reason", flat=True)) == {"Imported"}
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_import_of_an_unchanged_export_writes_nothing(curriculum):
    before = revisions()
    result = import_folder(export_files(), delete=True)
    assert (result.changes, result.unchanged, result.kept) == ([], 222, 0)
    assert revisions() == before


@pytest.mark.django_db
def test_edited_folder_imports_as_exactly_its_edits(small_tree, tmp_path):
    edit("Chapter One", body=BODY)
    write_directory(export_files(), tmp_path)
    before = revisions()
    untouched = {node(t).pk for t in ("Area A", "Section A1", "Section A2", "Chapter Four")}
    summary = (tmp_path / "SUMMARY.md").read_text()
    a1, b1 = tmp_path / "area-a" / "section-a1", tmp_path / "area-b" / "section-b1"
    # A rename: a new title and slug, the file renamed with it.
    three = (a1 / "chapter-three.md").read_text()
    (a1 / "chapter-three.md").unlink()
    (a1 / "третья.md").write_text(
        three.replace("title: Chapter Three", "title: Третья глава").replace(
            "slug: chapter-three", "slug: третья"
        )
    )
    # A move: Chapter Five into Section A1, before Chapter One.
    (b1 / "chapter-five.md").rename(a1 / "chapter-five.md")
    # A deletion: Chapter Six.
    (b1 / "chapter-six.md").unlink()
    # A new chapter, without front matter but its title in SUMMARY.md, in Section B1.
    (b1 / "线性代数.md").write_text("Math: $\\alpha$ and [[Третья глава]].\n")
    # An edit of a body.
    one = (a1 / "chapter-one.md").read_text()
    (a1 / "chapter-one.md").write_text(one.replace("has a norm", "has a length"))
    summary = (
        summary.replace(
            "    - [Chapter One](area-a/section-a1/chapter-one.md)\n",
            "    - [Chapter Five](area-a/section-a1/chapter-five.md)\n"
            "    - [Chapter One](area-a/section-a1/chapter-one.md)\n",
        )
        .replace(
            "    - [Chapter Three](area-a/section-a1/chapter-three.md)\n",
            "    - [Третья глава](area-a/section-a1/третья.md)\n",
        )
        .replace(
            "    - [Chapter Five](area-b/section-b1/chapter-five.md)\n"
            "    - [Chapter Six](area-b/section-b1/chapter-six.md)\n",
            "    - [线性代数](area-b/section-b1/线性代数.md)\n",
        )
    )
    (tmp_path / "SUMMARY.md").write_text(summary)
    five = node("Chapter Five").pk
    call_command("import_markdown", str(tmp_path), "--delete", stdout=None)
    assert tree_table() == (
        "Area A [section] area-a\n"
        "  Section A1 [section] area-a/section-a1\n"
        "    Chapter Five [chapter] area-a/section-a1/chapter-five\n"
        "    Chapter One [chapter] area-a/section-a1/chapter-one\n"
        "    Chapter Two [chapter] area-a/section-a1/chapter-two\n"
        "    Третья глава [chapter] area-a/section-a1/третья\n"
        "  Section A2 [section] area-a/section-a2\n"
        "    Chapter Four [chapter] area-a/section-a2/chapter-four\n"
        "Area B [section] area-b\n"
        "  Section B1 [section] area-b/section-b1\n"
        "    线性代数 [chapter] area-b/section-b1/线性代数"
    )
    assert node("Chapter One").body == BODY.rstrip("\n").replace("has a norm", "has a length")
    assert node("Chapter Five").pk == five
    new = node("线性代数")
    assert new.body == "Math: $\\alpha$ and [[Третья глава]]."
    assert '<math alttext="\\alpha" display="inline">' in new.body_html
    assert f'href="{node("Третья глава").get_absolute_url()}"' in new.body_html
    after = revisions()
    assert {pk: after.get(pk) for pk in untouched} == {pk: before[pk] for pk in untouched}
    changed = [node(t).pk for t in ("Chapter One", "Chapter Five", "Третья глава")]
    assert {pk: after[pk] - before[pk] for pk in changed} == dict.fromkeys(changed, 1)
    latest = [Node.history.filter(id=pk).latest("history_id") for pk in [*changed, new.pk]]
    reason = f"Imported from {tmp_path}"
    assert {revision.history_change_reason for revision in latest} == {reason}
    assert Node.objects.filter(title="Chapter Six").count() == 0
    deleted = Node.history.get(title="Chapter Six", history_type="-")
    assert deleted.history_change_reason == reason
    # Exported again, the folder is the edited one, but for the dates of the edits and what
    # the new chapter's front matter did not give.
    again, edited = texts(export_files()), texts(read_directory(tmp_path))
    assert again.keys() == edited.keys()
    edits = ("Chapter One", "Chapter Five", "Третья глава")
    dated = {node(title).path.split("/")[-1] + ".md" for title in edits}
    for path, text in edited.items():
        if path.rpartition("/")[2] in dated:
            assert re.sub("updated: .*", "", again[path]) == re.sub("updated: .*", "", text)
        elif "线性代数" not in path:
            assert again[path] == text, path


@pytest.mark.django_db
def test_dry_run_lists_the_changes_with_their_paths_and_writes_nothing(small_tree, tmp_path):
    files = export_files()
    before = (export_files(), revisions())
    summary = files["SUMMARY.md"].decode()
    files["SUMMARY.md"] = (
        summary.replace("    - [Chapter Two](area-a/section-a1/chapter-two.md)\n", "")
        .replace(
            "    - [Chapter Four](area-a/section-a2/chapter-four.md)\n",
            "    - [Chapter Four](area-a/section-a2/chapter-four.md)\n"
            "    - [New](area-a/section-a2/new.md)\n",
        )
        .encode()
    )
    del files["area-a/section-a1/chapter-two.md"]
    files["area-a/section-a2/new.md"] = b"---\nstatus: published\n---\n\nHello.\n"
    files["area-b/index.md"] = files["area-b/index.md"].replace(b"Area B", b"Area Bee")
    files["area-a/section-a1/chapter-three.md"] = files["area-a/section-a1/chapter-three.md"] + (
        b"\nMore.\n"
    )
    result = import_folder(files, delete=True, dry_run=True)
    assert [str(change) for change in result.changes] == [
        "deleted area-a/section-a1/chapter-two",
        "changed area-a/section-a1/chapter-three (body)",
        "changed area-b (title)",
        "added area-a/section-a2/new",
    ]
    assert (export_files(), revisions()) == before


@pytest.mark.django_db
def test_import_without_delete_keeps_nodes_not_in_the_folder(small_tree):
    files = export_files()
    files["SUMMARY.md"] = files["SUMMARY.md"].replace(
        b"    - [Chapter Six](area-b/section-b1/chapter-six.md)\n", b""
    )
    del files["area-b/section-b1/chapter-six.md"]
    result = import_folder(files)
    assert (result.changes, result.kept) == ([], 1)
    assert node("Chapter Six").path == "area-b/section-b1/chapter-six"


@pytest.mark.django_db
def test_import_by_someone_who_may_not_publish_adds_no_published_page(small_tree):
    files = export_files()
    files["SUMMARY.md"] += b"    - [Chapter Seven](area-b/section-b1/chapter-seven.md)\n"
    files["area-b/section-b1/chapter-seven.md"] = (
        b"---\ntitle: Chapter Seven\nstatus: published\n---\n\nNew.\n"
    )
    before = tree_table()

    with pytest.raises(FolderError) as refused:
        import_folder(files, publish=False)

    assert refused.value.problems == [
        "area-b/section-b1/chapter-seven.md (SUMMARY.md line 14): it adds “Chapter Seven”, "
        "published. Only a reviewer may publish pages or change published ones."
    ]
    assert tree_table() == before
    assert [change.path for change in import_folder(files).changes] == [
        "area-b/section-b1/chapter-seven"
    ]


@pytest.mark.django_db
def test_import_matches_by_id_through_a_move_and_a_new_slug(small_tree):
    files = export_files()
    two = files.pop("area-a/section-a1/chapter-two.md")
    files["area-b/section-b1/deux.md"] = two.replace(b"slug: chapter-two", b"slug: deux")
    files["SUMMARY.md"] = (
        files["SUMMARY.md"]
        .replace(b"    - [Chapter Two](area-a/section-a1/chapter-two.md)\n", b"")
        .replace(
            b"[Chapter Six](area-b/section-b1/chapter-six.md)\n",
            b"[Chapter Six](area-b/section-b1/chapter-six.md)\n"
            b"    - [Two](area-b/section-b1/deux.md)\n",
        )
    )
    pk = node("Chapter Two").pk
    result = import_folder(files)
    assert [str(c) for c in result.changes] == [
        "moved area-b/section-b1/deux (from area-a/section-a1/chapter-two; slug)"
    ]
    assert Node.objects.get(pk=pk).path == "area-b/section-b1/deux"
    assert Node.objects.get(pk=pk).title == "Chapter Two"


@pytest.mark.django_db
def test_import_ignoring_ids_matches_by_place(small_tree):
    files = export_files()
    files["area-a/section-a1/chapter-two.md"] = files["area-a/section-a1/chapter-two.md"].replace(
        f"id: {node('Chapter Two').pk}".encode(), f"id: {node('Chapter Six').pk}".encode()
    )
    del files["area-b/section-b1/chapter-six.md"]
    files["SUMMARY.md"] = files["SUMMARY.md"].replace(
        b"    - [Chapter Six](area-b/section-b1/chapter-six.md)\n", b""
    )
    result = import_folder(files, use_ids=False)
    assert (result.changes, result.kept) == ([], 1)


@pytest.mark.django_db
def test_section_folder_keeps_the_folders_above_and_imports_back_into_its_place(small_tree):
    files = export_files(node("Section A1"))
    assert sorted(files) == [
        "SUMMARY.md",
        "area-a/section-a1/chapter-one.md",
        "area-a/section-a1/chapter-three.md",
        "area-a/section-a1/chapter-two.md",
        "area-a/section-a1/index.md",
    ]
    assert files["SUMMARY.md"].decode() == (
        "---\nsection: area-a/section-a1\n---\n# Summary\n\n"
        "- [Section A1](area-a/section-a1/index.md)\n"
        "  - [Chapter One](area-a/section-a1/chapter-one.md)\n"
        "  - [Chapter Two](area-a/section-a1/chapter-two.md)\n"
        "  - [Chapter Three](area-a/section-a1/chapter-three.md)\n"
    )
    files["SUMMARY.md"] = files["SUMMARY.md"].replace(
        b"  - [Chapter Three](area-a/section-a1/chapter-three.md)\n", b""
    )
    del files["area-a/section-a1/chapter-three.md"]
    result = import_folder(files, delete=True)
    assert [str(c) for c in result.changes] == ["deleted area-a/section-a1/chapter-three"]
    assert Node.objects.count() == 10


@pytest.mark.django_db
def test_export_command_refuses_a_folder_with_files_unless_replacing(small_tree, tmp_path):
    (tmp_path / "old.md").write_text("old")
    (tmp_path / ".git").mkdir()
    with pytest.raises(CommandError, match="is not empty"):
        call_command("export_markdown", str(tmp_path))
    call_command("export_markdown", str(tmp_path), "--replace")
    assert not (tmp_path / "old.md").exists() and (tmp_path / ".git").is_dir()
    assert read_directory(tmp_path) == export_files()


@pytest.mark.django_db
def test_import_command_lists_the_changes_and_counts_them(small_tree, tmp_path, capsys):
    files = export_files()
    files["area-b/index.md"] = files["area-b/index.md"].replace(b"Area B", b"Area Bee")
    (tmp_path / "wiki.zip").write_bytes(zip_folder(files))
    call_command("import_markdown", str(tmp_path / "wiki.zip"), "--dry-run")
    assert capsys.readouterr().out == (
        "changed area-b (title)\n"
        "Would import " + str(tmp_path / "wiki.zip") + ": 0 added, 1 changed, 0 moved, "
        "0 deleted, 10 unchanged.\n"
        "Dry run: nothing was changed.\n"
    )
    assert node("Area B").title == "Area B"


@pytest.mark.django_db
def test_an_older_export_leaves_a_later_site_edit_alone_and_imports_its_own_edits(small_tree):
    files = export_files()
    edit("Chapter Two", body="Written on the site after the export.")
    three = "area-a/section-a1/chapter-three.md"
    files[three] += b"\nImported addition.\n"

    result = import_folder(files)

    assert [str(change) for change in result.changes] == [
        "changed area-a/section-a1/chapter-three (body)"
    ]
    assert node("Chapter Two").body == "Written on the site after the export."
    assert node("Chapter Three").body.endswith("Imported addition.")


@pytest.mark.django_db
def test_an_older_export_that_changes_what_the_site_changed_since_is_refused(small_tree):
    files = export_files()
    edit("Chapter Two", body="Written on the site after the export.")
    two = "area-a/section-a1/chapter-two.md"
    files[two] += b"\nWritten in the file.\n"

    with pytest.raises(FolderError) as error:
        import_folder(files)

    site = Node.history.filter(id=node("Chapter Two").pk).first().history_date
    exported = Node.history.filter(id=node("Chapter Two").pk)[1].history_date
    assert error.value.problems == [
        f"{two} (SUMMARY.md line 6): “Chapter Two” was changed on the site at "
        f"{site:%Y-%m-%d %H:%M:%S} UTC, after this file's “updated” ({exported:%Y-%m-%d %H:%M:%S}"
        " UTC), and the file changes its body too. Export it again and make your change there, "
        "or delete the file's “updated” line to replace the site's change."
    ]
    assert node("Chapter Two").body == "Written on the site after the export."


@pytest.mark.django_db
def test_an_older_export_that_changes_only_the_title_is_imported_over_a_site_body_edit(
    small_tree,
):
    files = export_files()
    edit("Chapter Two", body="Written on the site after the export.")
    two = "area-a/section-a1/chapter-two.md"
    files[two] = files[two].replace(b"title: Chapter Two", b"title: Chapter Two, Renamed")

    result = import_folder(files)

    assert [str(change) for change in result.changes] == [
        "changed area-a/section-a1/chapter-two (title)"
    ]
    renamed = node("Chapter Two, Renamed")
    assert (renamed.body, renamed.slug) == ("Written on the site after the export.", "chapter-two")


@pytest.mark.django_db
def test_an_older_export_that_renames_a_page_the_site_renamed_since_is_refused(small_tree):
    files = export_files()
    edit("Chapter Two", title="Renamed on the site", body="Written on the site.")
    two = "area-a/section-a1/chapter-two.md"
    files[two] = files[two].replace(b"title: Chapter Two", b"title: Renamed in the file")

    with pytest.raises(FolderError) as error:
        import_folder(files)

    site = Node.history.filter(id=node("Renamed on the site").pk).first().history_date
    exported = Node.history.filter(id=node("Renamed on the site").pk)[1].history_date
    assert error.value.problems == [
        f"{two} (SUMMARY.md line 6): “Renamed on the site” was changed on the site at "
        f"{site:%Y-%m-%d %H:%M:%S} UTC, after this file's “updated” ({exported:%Y-%m-%d %H:%M:%S}"
        " UTC), and the file changes its title too. Export it again and make your change "
        "there, or delete the file's “updated” line to replace the site's change."
    ]


@pytest.mark.django_db
def test_a_folder_edited_and_imported_twice_imports_both_edits(small_tree):
    files = export_files()
    two = "area-a/section-a1/chapter-two.md"
    files[two] += b"\nFirst.\n"
    import_folder(files)
    files[two] += b"\nSecond.\n"

    import_folder(files)

    assert node("Chapter Two").body.endswith("First.\n\nSecond.")
