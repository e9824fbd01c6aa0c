"""The media library in the admin (chapters.media.admin): uploading, replacing, refusing,
and deleting an item that pages use."""

import pytest

from chapters.media import uploads
from chapters.models import MediaItem, MediaVersion
from tests.helpers import edit, role_user, soup
from tests.images import HTML_PAGE, png_upload, upload


@pytest.mark.django_db
def test_admin_uploads_and_replaces_through_the_library(client, run_tasks):
    client.force_login(role_user("ed", "Editor"))
    response = client.post(
        "/admin/chapters/mediaitem/add/",
        {"upload": png_upload("Kernel Map.png"), "title": "Map", "alt": "A map"},
    )
    assert response.status_code == 302
    item = MediaItem.objects.get()
    assert (item.name, item.title, item.alt, item.width) == ("kernel-map.png", "Map", "A map", 1200)
    listed = soup(client.get("/admin/chapters/mediaitem/"))
    assert [td.text for td in listed.select("td.field-state")] == ["Processing"]
    run_tasks()
    listed = soup(client.get("/admin/chapters/mediaitem/"))
    assert [td.text for td in listed.select("td.field-state")] == ["Ready"]
    change = f"/admin/chapters/mediaitem/{item.pk}/change/"
    response = client.post(
        change,
        {
            "upload": png_upload("x.png", 300, 200),
            "title": "Map 2",
            "alt": "A map",
            "uses-TOTAL_FORMS": 0,
            "uses-INITIAL_FORMS": 0,
            "versions-TOTAL_FORMS": 0,
            "versions-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302
    item = MediaItem.objects.get()
    assert (item.name, item.title, item.width, item.version) == ("kernel-map.png", "Map 2", 300, 2)
    assert MediaVersion.objects.get().width == 1200


@pytest.mark.django_db
def test_admin_refuses_what_the_library_refuses(client):
    client.force_login(role_user("ed", "Editor"))
    refused = client.post(
        "/admin/chapters/mediaitem/add/", {"upload": upload("cat.png", HTML_PAGE), "title": "x"}
    )
    no_alt = client.post("/admin/chapters/mediaitem/add/", {"upload": png_upload(), "title": "x"})
    assert [li.text for li in soup(refused).select(".errorlist li")] == [
        "“cat.png” holds HTML or XML, which is not accepted."
    ]
    assert [li.text for li in soup(no_alt).select(".errorlist li")] == [
        "Describe the image for readers who cannot see it."
    ]
    assert MediaItem.objects.count() == 0


@pytest.mark.django_db
def test_admin_refuses_to_delete_an_item_pages_use_and_lists_them(client, small_tree):
    admin_user = role_user("ad", "Admin")
    item = uploads.add(png_upload(), title="D", alt="A diagram", uploader=admin_user)
    edit("Chapter One", body="![A diagram](image:diagram.png)")
    client.force_login(admin_user)
    page = soup(client.get(f"/admin/chapters/mediaitem/{item.pk}/delete/"))
    assert [li.text for li in page.select("#content ul li")] == [
        "Media use: “Chapter One” (/area-a/section-a1/chapter-one/)"
    ]
    client.post(f"/admin/chapters/mediaitem/{item.pk}/delete/", {"post": "yes"})
    client.post(
        "/admin/chapters/mediaitem/",
        {"action": "delete_selected", "_selected_action": [item.pk], "post": "yes"},
    )
    assert MediaItem.objects.count() == 1
