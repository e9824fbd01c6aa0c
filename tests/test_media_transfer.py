"""The media library in exports, imports and backups (chapters.media.transfer): the Markdown
folder's media/, export_curriculum --media and import_curriculum --media."""

import json

import pytest
from django.core.management import call_command

from chapters.files.export import export_files
from chapters.files.folder import FolderError, read_directory, read_zip, zip_folder
from chapters.files.importer import import_folder
from chapters.media import uploads
from chapters.models import MediaItem, MediaUse, MediaVersion, Node
from tests.helpers import edit, node
from tests.images import HTML_PAGE, png_upload, upload

PDF = b"%PDF-1.7\n%%EOF\n"


def library(run_tasks):
    """Add an image that Chapter One shows and a PDF no page uses, processed by their
    tasks; return their bytes."""
    uploads.add(
        png_upload("diagram.png", 600, 400), title="Diagram", alt="Two kernels", uploader=None
    )
    uploads.add(upload("notes.pdf", PDF), title="Notes", alt="", uploader=None)
    run_tasks()
    edit("Chapter One", body="![Two kernels](image:diagram.png)")
    return {item.name: item.file.open().read() for item in MediaItem.objects.all()}


def forget_media():
    """Empty the library, as a database restored without it: the pages' references to it
    find nothing."""
    MediaUse.objects.update(media=None)
    MediaItem.objects.all().delete()


def rows():
    """Return each item's name, kind, title, alt text and size."""
    return list(
        MediaItem.objects.order_by("name").values_list("name", "kind", "title", "alt", "size")
    )


@pytest.mark.django_db
def test_markdown_folder_holds_the_library_and_brings_it_back(small_tree, run_tasks):
    stored = library(run_tasks)
    before = rows()
    files = export_files()
    assert sorted(path for path in files if path.startswith("media/")) == [
        "media/diagram.png", "media/media.json", "media/notes.pdf",
    ]  # fmt: skip
    assert json.loads(files["media/media.json"]) == [
        {"alt": "Two kernels", "kind": "image", "name": "diagram.png", "title": "Diagram"},
        {"alt": "", "kind": "file", "name": "notes.pdf", "title": "Notes"},
    ]
    assert files["media/diagram.png"] == stored["diagram.png"]
    html = node("Chapter One").body_html
    forget_media()
    result = import_folder(read_zip(zip_folder(files)))
    run_tasks()
    assert [str(change) for change in result.changes] == [
        "added media/diagram.png", "added media/notes.pdf",
    ]  # fmt: skip
    assert rows() == before
    assert node("Chapter One").body_html == html
    assert [use.media.name for use in MediaUse.objects.all()] == ["diagram.png"]
    again = import_folder(files)
    assert again.changes == []


@pytest.mark.django_db
def test_markdown_import_replaces_a_changed_file_and_refuses_a_bad_one(
    small_tree, tmp_path, run_tasks
):
    library(run_tasks)
    files = export_files()
    files["media/notes.pdf"] = b"%PDF-1.7\nnew\n"
    dry = import_folder(files, dry_run=True)
    assert [str(change) for change in dry.changes] == ["changed media/notes.pdf (replaced)"]
    assert MediaVersion.objects.count() == 0
    import_folder(files)
    assert MediaItem.objects.get(name="notes.pdf").version == 2
    files["media/notes.pdf"] = HTML_PAGE
    with pytest.raises(FolderError) as raised:
        import_folder(files)
    assert raised.value.problems == [
        "media/notes.pdf: “notes.pdf” holds HTML or XML, which is not accepted."
    ]
    folder = tmp_path / "folder"
    (folder / "media" / "deeper").mkdir(parents=True)
    (folder / "media" / "a.png").write_bytes(b"x")
    (folder / "media" / "deeper" / "b.png").write_bytes(b"x")
    (folder / "other.png").write_bytes(b"x")
    assert read_directory(folder) == {"media/a.png": b"x"}


@pytest.mark.django_db
def test_section_folder_holds_only_the_media_its_pages_use(small_tree, run_tasks):
    library(run_tasks)
    files = export_files(Node.objects.get(path="area-a"))
    assert sorted(path for path in files if path.startswith("media/")) == [
        "media/diagram.png", "media/media.json",
    ]  # fmt: skip


@pytest.mark.django_db
def test_export_curriculum_with_media_restores_into_an_empty_database(
    small_tree, tmp_path, run_tasks
):
    library(run_tasks)
    before, html = rows(), node("Chapter One").body_html
    exported = tmp_path / "export"
    call_command("export_curriculum", output=tmp_path / "wiki.json", media=exported / "media")
    assert sorted(path.name for path in (exported / "media").iterdir()) == [
        "diagram.png", "media.json", "notes.pdf",
    ]  # fmt: skip
    forget_media()
    Node.objects.all().delete()
    call_command("import_curriculum", tmp_path / "wiki.json", media=exported / "media", verbosity=0)
    run_tasks()
    assert rows() == before
    assert node("Chapter One").body_html == html
