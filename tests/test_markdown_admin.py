"""The admin's Markdown folders: ZIPs downloaded for the wiki or a section, and uploaded back
with a dry run first."""

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile

from chapters.files.export import export_files
from chapters.files.folder import read_zip, zip_folder
from tests.helpers import edit, node, role_user, soup, tree_table

EXPORT = "/admin/chapters/node/markdown/"
IMPORT = "/admin/chapters/node/markdown/import/"


def upload(client, files, **options):
    """Post ``files`` as a ZIP to the import page; return the response."""
    archive = SimpleUploadedFile("wiki.zip", zip_folder(files), content_type="application/zip")
    return client.post(IMPORT, {"archive": archive, **options})


@pytest.mark.django_db
def test_admin_downloads_the_wiki_and_a_section_as_markdown_zips(admin_client, small_tree):
    response = admin_client.get(EXPORT)
    assert response["Content-Disposition"] == 'attachment; filename="curriculum-markdown.zip"'
    assert read_zip(response.content) == export_files()
    section = node("Section B1")
    response = admin_client.get(f"/admin/chapters/node/{section.pk}/markdown/")
    assert response["Content-Disposition"] == 'attachment; filename="section-b1-markdown.zip"'
    assert read_zip(response.content) == export_files(section)
    assert (
        admin_client.get(f"/admin/chapters/node/{node('Chapter Six').pk}/markdown/").status_code
        == 404
    )


@pytest.mark.django_db
def test_admin_list_and_section_form_link_to_the_markdown_views(admin_client, small_tree):
    tools = soup(admin_client.get("/admin/chapters/node/")).select(".object-tools a")
    assert {a.text: a["href"] for a in tools}["Export as Markdown"] == EXPORT
    assert {a.text: a["href"] for a in tools}["Import Markdown"] == IMPORT
    section = node("Section B1")
    tools = soup(admin_client.get(f"/admin/chapters/node/{section.pk}/change/"))
    links = [a["href"] for a in tools.select(".object-tools a")]
    assert f"/admin/chapters/node/{section.pk}/markdown/" in links


@pytest.mark.django_db
def test_admin_import_dry_run_lists_the_changes_then_the_import_makes_them(
    admin_client, small_tree
):
    files = export_files()
    files["area-b/index.md"] = files["area-b/index.md"].replace(b"Area B", b"Area Bee")
    page = soup(upload(admin_client, files, dry_run="on"))
    assert [li.text for li in page.select(".import-result li")] == ["changed area-b (title)"]
    assert "Dry run: nothing was changed." in page.select_one(".import-result").text
    assert node("Area B").pk
    page = soup(upload(admin_client, files))
    assert page.select_one(".import-result h2").text == "What the import changed"
    assert node("Area Bee").history.first().history_change_reason == "Imported"


@pytest.mark.django_db
def test_admin_import_lists_the_problems_and_changes_nothing(admin_client, small_tree):
    files = export_files()
    files["area-b/index.md"] = files["area-b/index.md"].replace(b"status: draft", b"status: x")
    page = soup(upload(admin_client, files))
    assert [li.text for li in page.select(".import-problems li")] == [
        "area-b/index.md line 3: the status “x” is not one of draft, review, published."
    ]
    archive = SimpleUploadedFile("wiki.zip", b"not a zip")
    page = soup(admin_client.post(IMPORT, {"archive": archive}))
    assert page.select_one(".import-problems li").text.startswith("The file is not a ZIP archive")


@pytest.mark.django_db
def test_admin_import_needs_the_permissions_to_add_and_change(
    client, small_tree, django_user_model
):
    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    client.force_login(viewer)
    assert client.get(IMPORT).status_code == 403
    assert client.get(EXPORT).status_code == 403


@pytest.mark.django_db
def test_an_editor_s_import_that_changes_or_publishes_published_pages_is_refused(
    client, small_tree
):
    edit("Chapter One", status="published", body="Published text.")
    edit("Chapter Five", status="published")
    client.force_login(role_user("ed", "Editor"))
    files = export_files()
    one, two = "area-a/section-a1/chapter-one.md", "area-a/section-a1/chapter-two.md"
    files[one] = files[one].replace(b"Published text.", b"Unreviewed text.")
    files[two] = files[two].replace(b"status: draft", b"status: published")
    files["area-b/section-b1/index.md"] = files["area-b/section-b1/index.md"].replace(
        b"slug: section-b1", b"slug: renamed"
    )
    files["area-a/index.md"] = files["area-a/index.md"].replace(b"Area A", b"Area Eh")
    before = tree_table()

    for dry_run in ({"dry_run": "on"}, {}):
        page = soup(upload(client, files, **dry_run))
        assert [li.text for li in page.select(".import-problems li")] == [
            f"{one} (SUMMARY.md line 5): it changes the published page "
            "/area-a/section-a1/chapter-one/. Only a reviewer may publish pages or change "
            "published ones.",
            f"{two} (SUMMARY.md line 6): it publishes /area-a/section-a1/chapter-two/. Only a "
            "reviewer may publish pages or change published ones.",
            "area-b/section-b1/index.md (SUMMARY.md line 11): it moves /area-b/section-b1/, with "
            "published pages under it. Only a reviewer may publish pages or change published "
            "ones.",
        ]

    assert tree_table() == before
    assert (node("Chapter One").body, node("Chapter Two").status) == ("Published text.", "draft")
    assert node("Area A").title == "Area A"
    client.force_login(role_user("rev", "Reviewer"))
    page = soup(upload(client, files))
    assert page.select_one(".import-result h2").text == "What the import changed"
    assert (node("Chapter One").body, node("Chapter Two").status) == (
        "Unreviewed text.",
        "published",
    )


@pytest.mark.django_db
def test_an_editor_imports_drafts_and_may_not_delete_or_add_published_pages(client, small_tree):
    edit("Chapter Six", status="published")
    editor = role_user("ed", "Editor")
    editor.user_permissions.add(Permission.objects.get(codename="delete_node"))
    client.force_login(editor)
    files = export_files()
    files["area-a/section-a1/chapter-two.md"] = (
        files["area-a/section-a1/chapter-two.md"] + b"\nMore.\n"
    )
    assert soup(upload(client, files)).select_one(".import-result li").text == (
        "changed area-a/section-a1/chapter-two (body)"
    )
    section = {k: v for k, v in files.items() if not k.startswith("area-b/section-b1/")}
    section["SUMMARY.md"] = b"".join(
        line + b"\n" for line in files["SUMMARY.md"].splitlines() if b"section-b1" not in line
    )
    problems = soup(upload(client, section, delete="on")).select(".import-problems li")
    assert [li.text for li in problems] == [
        "/area-b/section-b1/: it is not in the folder, so the import deletes it, and it is "
        "published or has published pages under it. Only a reviewer may publish pages or "
        "change published ones."
    ]
    assert node("Chapter Six").status == "published"
