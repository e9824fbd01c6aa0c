"""Markdown folders refused: each problem named with its file and line, the wiki unchanged;
unsafe ZIP archives refused before anything is extracted."""

import io
import stat
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from chapters.files import folder
from chapters.files.export import export_files
from chapters.files.folder import FolderError, read_directory, read_zip, write_directory
from chapters.files.importer import import_folder
from chapters.markdown import BODY_MAX_LENGTH
from chapters.models import Node
from tests.helpers import node

TWO = "area-a/section-a1/chapter-two.md"
SIX = "area-b/section-b1/chapter-six.md"


def problems_of(files, **options):
    """Import ``files``; return the problems it is refused with, checking nothing changed."""
    before = (export_files(), Node.history.count())
    with pytest.raises(FolderError) as refused:
        import_folder(files, **options)
    assert (export_files(), Node.history.count()) == before
    return refused.value.problems


def replace(files, path, old, new):
    """Replace text in one file of ``files``."""
    files[path] = files[path].replace(old.encode(), new.encode())


@pytest.fixture
def files(small_tree):
    """Return the small tree's export."""
    return export_files()


@pytest.mark.django_db
def test_front_matter_that_is_not_yaml_is_named_with_its_line(files):
    replace(files, TWO, "status: draft", "status: [draft")
    assert problems_of(files) == [
        f"{TWO} line 4: the front matter is not valid YAML: expected ',' or ']', but got ':'."
    ]


@pytest.mark.django_db
def test_front_matter_without_its_closing_line_or_with_a_name_twice(files):
    files[TWO] = b"---\ntitle: Two\n\nText.\n"
    replace(files, SIX, "status: draft", "status: draft\ntitle: Six")
    assert problems_of(files) == [
        f"{TWO} line 1: the front matter has no closing “---” line.",
        f"{SIX} line 4: “title” is given twice (first on line 2).",
    ]


@pytest.mark.django_db
def test_two_files_claiming_one_slug_are_named_both(files):
    replace(files, TWO, "slug: chapter-two", "slug: chapter-one")
    assert problems_of(files) == [
        f"{TWO} line 4: claims the slug “chapter-one”, as "
        "area-a/section-a1/chapter-one.md line 4 does; siblings cannot share a slug."
    ]


@pytest.mark.django_db
def test_two_files_claiming_one_id_are_named_both(files):
    replace(files, TWO, f"id: {node('Chapter Two').pk}", f"id: {node('Chapter Six').pk}")
    assert problems_of(files) == [
        f"{SIX} line 6: claims the id {node('Chapter Six').pk}, as {TWO} line 6 does."
    ]


@pytest.mark.django_db
def test_an_outline_naming_a_missing_file_or_one_twice(files):
    del files[TWO]
    replace(files, "SUMMARY.md", "chapter-six.md)", "chapter-five.md)")
    assert problems_of(files) == [
        f"SUMMARY.md line 6: names “{TWO}”, which is not in the folder.",
        "SUMMARY.md line 13: names “area-b/section-b1/chapter-five.md” again (first on line 12).",
        f"{SIX} is not listed in SUMMARY.md.",
    ]


@pytest.mark.django_db
def test_an_outline_nesting_a_file_under_a_section_it_is_not_in(files):
    replace(files, "SUMMARY.md", "    - [Chapter Four]", "  - [Chapter Four]")
    replace(files, "SUMMARY.md", "- [Area B]", "- [X](x.md)\n- [Area B]")
    files["x.md"] = b"Text.\n"
    assert problems_of(files) == [
        "SUMMARY.md line 9: “area-a/section-a2/chapter-four.md” is listed under "
        "“area-a/index.md” but is not in its folder “area-a/”.",
        "SUMMARY.md line 10: “x.md” is at the top of the folder; a chapter is in a section's "
        "folder.",
    ]


@pytest.mark.django_db
def test_an_outline_line_that_is_no_list_item_or_indented_oddly(files):
    replace(files, "SUMMARY.md", "- [Area B]", "Some text\n- [Area B]")
    replace(files, "SUMMARY.md", "    - [Chapter Four]", "   - [Chapter Four]")
    assert problems_of(files)[:2] == [
        "SUMMARY.md line 9: indent list items by 2 spaces per level.",
        "SUMMARY.md line 10: is not a list item linking to a file (“- [Title](file.md)”).",
    ]


@pytest.mark.django_db
def test_a_folder_holding_a_symbolic_link_is_refused_as_a_cycle_could_be_made(files, tmp_path):
    write_directory(files, tmp_path)
    (tmp_path / "area-a" / "loop").symlink_to(tmp_path)
    with pytest.raises(FolderError) as refused:
        read_directory(tmp_path)
    assert refused.value.problems == [
        "area-a/loop is a symbolic link; the folder may hold none (a link can make a cycle of "
        "folders)."
    ]


@pytest.mark.django_db
def test_a_body_over_the_limits_is_named_with_its_first_line(files):
    files[TWO] += b"x" * (BODY_MAX_LENGTH + 1)
    files[SIX] += b"\n" + b"[" * 2000 + b"\n"
    problems = problems_of(files)
    assert problems[0] == (
        f"{TWO} line 9: the body is {BODY_MAX_LENGTH + 39:,} characters long; the limit is "
        f"{BODY_MAX_LENGTH:,}."
    )
    assert problems[1].startswith(f"{SIX} line 9: the body cannot be rendered: ")
    assert len(problems) == 2


@pytest.mark.django_db
def test_an_unknown_status_a_bad_slug_or_id_and_an_unknown_name(files):
    replace(files, TWO, "status: draft", "status: finished")
    replace(files, SIX, "slug: chapter-six", "slug: chapter six\ncolour: red")
    replace(files, "area-b/index.md", f"id: {node('Area B').pk}", "id: first")
    assert problems_of(files) == [
        f"{TWO} line 3: the status “finished” is not one of draft, review, published.",
        "area-b/index.md line 6: “id” is not a whole number.",
        f"{SIX} line 5: “colour” is not a name the front matter knows (title, status, slug, "
        "updated, id, requires).",
        f"{SIX} line 4: the slug “chapter six” is not a slug (letters, digits, “-” or “_”).",
    ]


@pytest.mark.django_db
def test_a_date_without_a_timezone_and_a_title_that_is_not_text(files):
    replace(files, TWO, "updated: 2026-08-09 12:00:00+00:00", "updated: 2026-08-09 12:00:00")
    replace(files, SIX, "title: Chapter Six", "title: 6")
    assert problems_of(files) == [
        f"{TWO} line 5: “updated” “2026-08-09T12:00:00” has no timezone (end it with Z or +00:00).",
        f"{SIX} line 2: “title” is not text (put it in quotes).",
        f"{SIX} line 2: the title is blank.",
    ]


@pytest.mark.django_db
def test_a_move_the_tree_refuses_is_named_with_its_file(files):
    del files["area-b/index.md"], files["area-b/section-b1/index.md"]
    summary = files["SUMMARY.md"].decode().split("- [Area B]")[0]
    files["SUMMARY.md"] = summary.encode()
    files["area-a/section-a2/chapter-four.md"] = files["area-a/section-a2/chapter-four.md"]
    replace(files, TWO, "slug: chapter-two", "slug: admin")
    del files["area-b/section-b1/chapter-five.md"], files[SIX]
    assert import_folder(files).kept == 4
    files["SUMMARY.md"] += b"- [Admin](admin/index.md)\n"
    files["admin/index.md"] = b"---\ntitle: Admin\n---\n"
    assert problems_of(files) == [
        "admin/index.md (SUMMARY.md line 10): “admin” is reserved for the site's own URLs."
    ]


@pytest.mark.django_db
def test_import_command_lists_every_problem_and_says_nothing_changed(files, tmp_path):
    replace(files, TWO, "status: draft", "status: finished")
    write_directory(files, tmp_path)
    with pytest.raises(CommandError) as refused:
        call_command("import_markdown", str(tmp_path))
    assert str(refused.value) == (
        f"{tmp_path} was not imported; nothing was changed:\n"
        f"- {TWO} line 3: the status “finished” is not one of draft, review, published."
    )


def archive(*entries):
    """Return a ZIP of ``(ZipInfo or name, bytes)`` entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        for info, data in entries:
            zipped.writestr(info, data)
    return buffer.getvalue()


def refusal(data):
    with pytest.raises(FolderError) as refused:
        read_zip(data)
    return refused.value.problems


def test_zip_with_absolute_or_climbing_paths_is_refused():
    assert refusal(archive(("/etc/x.md", b""), ("a/../../x.md", b""), ("C:/x.md", b""))) == [
        "“/etc/x.md” is not a path inside the archive's folder.",
        "“a/../../x.md” is not a path inside the archive's folder.",
        "“C:/x.md” is not a path inside the archive's folder.",
    ]


def test_zip_with_a_symbolic_link_is_refused():
    link = zipfile.ZipInfo("area/loop.md")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    assert refusal(archive((link, b"../.."))) == [
        "“area/loop.md” is a symbolic link; the archive may hold none."
    ]


def test_zip_with_too_many_files_is_refused(monkeypatch):
    monkeypatch.setattr(folder, "MAX_FILES", 3)
    data = archive(*((f"{n}.txt", b"") for n in range(4)))
    assert refusal(data) == ["The archive holds 4 entries; the limit is 3."]


def test_zip_bomb_is_refused_by_its_declared_size_before_it_is_unpacked(monkeypatch):
    monkeypatch.setattr(folder, "MAX_BYTES", 1_000_000)
    data = archive(("bomb.bin", b"\0" * 2_000_000))
    assert len(data) < 10_000
    assert refusal(data) == ["The folder's files hold 2,000,000 bytes; the limit is 1,000,000."]


def test_zip_lying_about_its_sizes_is_found_damaged():
    data = bytearray(archive(("a.md", b"x" * 5000)))
    header = data.index(b"PK\x03\x04")
    # The local header's and the central directory's uncompressed size: declare 10 bytes.
    data[header + 22 : header + 26] = (10).to_bytes(4, "little")
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    assert refusal(bytes(data))[0].startswith("The archive is damaged")


def test_zip_of_a_folder_is_read_from_inside_it_and_skips_hidden_files():
    data = archive(
        ("wiki/SUMMARY.md", b"# Summary\n"),
        ("wiki/.git/x.md", b""),
        ("__MACOSX/wiki/._SUMMARY.md", b""),
        ("wiki/photo.png", b"\x89PNG"),
    )
    assert read_zip(data) == {"SUMMARY.md": b"# Summary\n"}
