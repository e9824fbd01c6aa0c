"""The import commands (import_markdown, import_curriculum): the user they import as and the
source's git commit, in each revision's summary."""

import subprocess

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from chapters.files.export import export_files
from chapters.files.folder import write_directory
from chapters.models import Node
from tests.helpers import node
from tests.test_curriculum_file import entry, write


def git(folder, *args):
    """Run git in ``folder`` as a test user; return its output, stripped."""
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.org"]
    done = subprocess.run(
        ["git", "-C", str(folder), *identity, *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def imported_revisions():
    """Return the author and summary of every revision an import recorded, newest first."""
    found = Node.history.filter(history_change_reason__startswith="Imported")
    return [(str(r.history_user), r.history_change_reason) for r in found]


@pytest.mark.django_db
def test_the_import_command_records_its_user_and_the_folder_s_git_commit(
    small_tree, tmp_path, django_user_model
):
    django_user_model.objects.create_user("importer")
    write_directory(export_files(), tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "The curriculum")
    commit = git(tmp_path, "rev-parse", "HEAD")
    two = tmp_path / "area-a/section-a1/chapter-two.md"
    two.write_text(two.read_text() + "\nFrom git.\n")
    (tmp_path / "area-b/index.md").write_text(
        (tmp_path / "area-b/index.md").read_text().replace("Area B", "Area Bee")
    )

    call_command("import_markdown", str(tmp_path), "--user", "importer", verbosity=0)

    reason = f"Imported from {tmp_path} at {commit}"
    assert imported_revisions() == [("importer", reason), ("importer", reason)]


@pytest.mark.django_db
def test_the_import_command_outside_git_names_the_folder_even_without_git(
    small_tree, tmp_path, monkeypatch
):
    write_directory(export_files(), tmp_path)
    two = tmp_path / "area-a/section-a1/chapter-two.md"
    two.write_text(two.read_text() + "\nNot in git.\n")
    call_command("import_markdown", str(tmp_path), verbosity=0)
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    two.write_text(two.read_text() + "\nNo git at all.\n")
    call_command("import_markdown", str(tmp_path), verbosity=0)

    assert imported_revisions() == [
        ("None", f"Imported from {tmp_path}"),
        ("None", f"Imported from {tmp_path}"),
    ]


@pytest.mark.django_db
def test_the_import_command_refuses_a_user_who_does_not_exist(small_tree, tmp_path):
    write_directory(export_files(), tmp_path)

    with pytest.raises(CommandError) as error:
        call_command("import_markdown", str(tmp_path), "--user", "nobody")

    assert str(error.value) == "There is no user “nobody”; nothing was imported."


@pytest.mark.django_db
def test_a_folder_imported_twice_by_the_command_imports_both_edits(small_tree, tmp_path):
    write_directory(export_files(), tmp_path)
    two = tmp_path / "area-a/section-a1/chapter-two.md"
    two.write_text(two.read_text() + "\nFirst.\n")
    call_command("import_markdown", str(tmp_path), verbosity=0)
    two.write_text(two.read_text() + "\nSecond.\n")

    call_command("import_markdown", str(tmp_path), verbosity=0)

    assert node("Chapter Two").body.endswith("First.\n\nSecond.")


@pytest.mark.django_db
def test_the_import_command_records_its_user_and_the_file_s_git_commit(
    tmp_path, small_tree, django_user_model
):
    django_user_model.objects.create_user("importer")
    file = write(tmp_path, [entry("area-a", title="Area A, renamed")])
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "The file")
    commit = git(tmp_path, "rev-parse", "HEAD")

    call_command("import_curriculum", file, "--user", "importer", verbosity=0)

    latest = Node.history.filter(id=node("Area A, renamed").pk).first()
    assert (str(latest.history_user), latest.history_change_reason) == (
        "importer",
        f"Imported from import.json at {commit}",
    )
    with pytest.raises(CommandError) as error:
        call_command("import_curriculum", file, "--user", "nobody")
    assert str(error.value) == "There is no user “nobody”; nothing was imported."
