"""The media library's views (chapters.media.views): files served with the headers of their
kind, the library's pages, uploading, replacing and deleting, and who may."""

import pytest
from django.core.files.storage import default_storage
from django.template.defaultfilters import filesizeformat
from django.urls import reverse

from chapters.media import processing, uploads
from chapters.models import RESERVED_ROOT_SLUGS, MediaItem, MediaVersion
from tests.helpers import role_user, run_with_environment, soup
from tests.images import (
    HTML_PAGE,
    SECRET,
    SVG_WITH_SCRIPT,
    huge_png,
    png_upload,
    upload,
    with_metadata,
)


def uploader():
    """Return the editor who uploads the tests' items."""
    from django.contrib.auth import get_user_model

    found = get_user_model().objects.filter(username="uploader").first()
    return found or role_user("uploader", "Editor")


def add_image(name="diagram.png", width=1200, height=800, alt="A diagram"):
    """Add an image to the library as an editor and process it as its task does; return it."""
    editor = uploader()
    item = uploads.add(png_upload(name, width, height), title="Diagram", alt=alt, uploader=editor)
    processing.process(item.pk, item.version)
    return MediaItem.objects.get(pk=item.pk)


def add_file(name="notes.pdf", content=b"%PDF-1.7\n%%EOF\n"):
    """Add a file to the library as an editor; return it."""
    editor = uploader()
    return uploads.add(upload(name, content), title="Notes", alt="", uploader=editor)


def test_media_urls_are_reserved():
    assert "media" in RESERVED_ROOT_SLUGS
    assert reverse("chapters:media-file", args=["a.png"]) == "/media/a.png"
    assert reverse("chapters:media-variant", args=["a.png", 480]) == "/media/a.png/480.webp"
    assert reverse("chapters:media-detail", args=["a.png"]) == "/media/a.png/"
    assert reverse("chapters:media-upload") == "/media/upload/"


@pytest.mark.django_db
def test_image_is_served_inline_and_its_copies_as_webp(client):
    item = add_image()
    response = client.get("/media/diagram.png")
    assert response.status_code == 200
    assert {name: response[name] for name in ("Content-Type", "Content-Disposition")} == {
        "Content-Type": "image/png",
        "Content-Disposition": 'inline; filename="diagram.png"',
    }
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Cache-Control"] == "public, max-age=300"
    assert b"".join(response.streaming_content) == item.file.open().read()
    copy = client.get("/media/diagram.png/480.webp?v=1")
    assert (copy.status_code, copy["Content-Type"], copy["Cache-Control"]) == (
        200, "image/webp", "public, max-age=31536000, immutable",
    )  # fmt: skip
    assert client.get("/media/diagram.png/1920.webp").status_code == 404
    assert client.get("/media/missing.png").status_code == 404
    again = client.get("/media/diagram.png", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    plain = client.get("/media/diagram.png", HTTP_ACCEPT_ENCODING="gzip")
    assert ("Content-Encoding" in plain, plain["Content-Length"]) == (False, str(item.size))


@pytest.mark.django_db
def test_an_image_being_processed_is_served_as_a_grey_placeholder_kept_by_no_one(client, run_tasks):
    item = uploads.add(upload("photo.jpg", with_metadata("JPEG")), title="", alt="A", uploader=None)
    response = client.get("/media/photo.jpg?v=1")
    assert (response.status_code, response.content.decode()) == (
        200,
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="400" viewBox="0 0 200 400">'
        '<rect width="100%" height="100%" fill="#d8dce2"/></svg>',
    )
    assert {name: response[name] for name in ("Content-Type", "Cache-Control")} == {
        "Content-Type": "image/svg+xml",
        "Cache-Control": "max-age=0, no-cache, no-store, must-revalidate, private",
    }
    assert "ETag" not in response
    assert client.get("/media/photo.jpg/480.webp?v=1").status_code == 404
    run_tasks()
    served = client.get("/media/photo.jpg?v=1")
    content = b"".join(served.streaming_content)
    assert (served["Content-Type"], SECRET in content) == ("image/jpeg", False)
    assert content == default_storage.open(MediaItem.objects.get(pk=item.pk).file.name).read()


@pytest.mark.django_db
def test_file_is_served_as_a_sandboxed_download(client):
    add_file()
    response = client.get("/media/notes.pdf")
    assert {
        name: response[name]
        for name in (
            "Content-Type", "Content-Disposition", "X-Content-Type-Options",
            "Content-Security-Policy",
        )
    } == {
        "Content-Type": "application/pdf",
        "Content-Disposition": 'attachment; filename="notes.pdf"',
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox; default-src 'none'",
    }  # fmt: skip


@pytest.mark.django_db
def test_library_and_uploads_are_for_editors_only(client, django_user_model):
    add_image()
    assert client.get("/media/")["Location"] == "/accounts/login/?next=/media/"
    json_headers = {"HTTP_ACCEPT": "application/json"}
    assert client.post("/media/upload/", {"file": png_upload()}, **json_headers).json() == {
        "error": "You may not upload images or files."
    }
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))
    assert client.get("/media/").status_code == 403
    assert client.get("/media/diagram.png/").status_code == 403
    assert client.post("/media/diagram.png/delete/").status_code == 403
    assert client.post("/media/upload/", {"file": png_upload()}).status_code == 403
    assert list(MediaItem.objects.values_list("name", flat=True)) == ["diagram.png"]
    assert client.get("/media/diagram.png").status_code == 200  # readers see the file


@pytest.mark.django_db
def test_upload_endpoint_answers_json_and_refuses_with_the_reason(client):
    client.force_login(role_user("ed", "Editor"))
    json_headers = {"HTTP_ACCEPT": "application/json"}
    response = client.post(
        "/media/upload/", {"file": png_upload("Kernel Map.png", 300, 200), "alt": "A map"},
        **json_headers,
    )  # fmt: skip
    assert (response.status_code, response.json()) == (
        201,
        {
            "name": "kernel-map.png",
            "title": "Kernel Map.png",
            "alt": "A map",
            "kind": "image",
            "state": "processing",
            "url": "/media/kernel-map.png",
            "thumbnail": "/media/kernel-map.png?v=1",
            "markdown": "![A map](image:kernel-map.png)",
        },
    )
    refusals = {
        "huge.png": huge_png(),
        "cat.png": HTML_PAGE,
        "drawing.svg": SVG_WITH_SCRIPT,
    }
    answers = {
        name: client.post(
            "/media/upload/", {"file": upload(name, content), "alt": "x"}, **json_headers
        )
        for name, content in refusals.items()
    }
    assert {name: (r.status_code, r.json()["error"]) for name, r in answers.items()} == {
        "huge.png": (
            200,
            "“huge.png” has too many pixels: at most 100,000,000 pixels (width × height) are "
            "accepted. Scale it down and upload it again.",
        ),
        "cat.png": (200, "“cat.png” holds HTML or XML, which is not accepted."),
        "drawing.svg": (
            200,
            "“drawing.svg” is an SVG image, which can hold scripts: SVG is not accepted. "
            "Export the drawing as PNG or WebP and upload that.",
        ),
    }
    no_alt = client.post("/media/upload/", {"file": png_upload()}, **json_headers)
    assert (no_alt.status_code, no_alt.json()) == (
        200, {"error": "Describe the image for readers who cannot see it."},
    )  # fmt: skip
    assert list(MediaItem.objects.values_list("name", flat=True)) == ["kernel-map.png"]


@pytest.mark.django_db
def test_upload_needs_the_csrf_token(django_user_model):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(role_user("ed", "Editor"))
    response = client.post("/media/upload/", {"file": png_upload(), "alt": "A"})
    assert response.status_code == 403
    assert MediaItem.objects.count() == 0


@pytest.mark.django_db
def test_library_lists_searches_and_uploads_with_a_plain_form(client):
    add_image("diagram.png", alt="Kernel fusion")
    add_file("notes.pdf")
    client.force_login(role_user("ed", "Editor"))
    names = [
        a.select_one(".media-name").text
        for a in soup(client.get("/media/")).select(".media-grid a")
    ]
    assert names == ["notes.pdf", "diagram.png"]
    assert "private" in client.get("/media/")["Cache-Control"]
    found = soup(client.get("/media/?q=fusion")).select(".media-grid .media-name")
    assert [name.text for name in found] == ["diagram.png"]
    picker = client.get("/media/?q=notes", HTTP_ACCEPT="application/json").json()
    assert [item["markdown"] for item in picker["items"]] == ["[Notes](file:notes.pdf)"]
    response = client.post("/media/upload/", {"file": png_upload("new.png"), "alt": "New"})
    assert response["Location"] == "/media/new.png/"
    refused = client.post("/media/upload/", {"file": upload("x.png", HTML_PAGE)})
    assert refused.status_code == 200
    assert [li.text for li in soup(refused).select(".media-upload .errors li")] == [
        "“x.png” holds HTML or XML, which is not accepted."
    ]


@pytest.mark.django_db
def test_replace_keeps_the_url_and_lists_the_old_version(client, run_tasks):
    add_image()
    client.force_login(role_user("ed", "Editor"))
    response = client.post("/media/diagram.png/replace/", {"file": png_upload("b.png", 600, 300)})
    assert response["Location"] == "/media/diagram.png/"
    page = soup(client.get("/media/diagram.png/"))
    assert [p.text for p in page.select(".media-state")] == [
        "Processing: the image is being prepared (its metadata removed, its smaller copies "
        "made). Pages show a placeholder of its size until it is ready; reload this page in a "
        "moment."
    ]
    assert page.select(".media-facts dd")[-1].text == "Processing"
    run_tasks()
    item = MediaItem.objects.get()
    facts = soup(client.get("/media/diagram.png/")).select(".media-facts dd")
    assert [dd.text for dd in facts][3:5] == [
        f"600 × 300 pixels, {filesizeformat(item.size)}",
        "image/png",
    ]
    versions = soup(client.get("/media/diagram.png/")).select("h2 + ul li")
    assert versions[-1].text.startswith("Version 1: 1200 × 800 pixels, ")
    assert versions[-1].a["href"] == "/media/diagram.png/v1"
    old = client.get("/media/diagram.png/v1")
    assert (old["Content-Type"], old["Content-Disposition"], old["Cache-Control"]) == (
        "image/png",
        'attachment; filename="diagram-v1.png"',
        "max-age=0, no-cache, no-store, must-revalidate, private",
    )
    assert b"".join(old.streaming_content) == MediaVersion.objects.get().file.open().read()
    assert client.get("/media/diagram.png/v2").status_code == 404
    assert client.get("/media/diagram.png/480.webp").status_code == 200
    refused = client.post("/media/diagram.png/replace/", {"file": upload("x.txt", b"text")})
    assert [li.text for li in soup(refused).select(".errors li")] == [
        "“diagram.png” is an image: replace it with an image."
    ]
    client.logout()
    assert client.get("/media/diagram.png/v1").status_code == 302


@pytest.mark.django_db
def test_editors_pages_link_to_the_library(client, small_tree):
    chapter = "/area-a/section-a1/chapter-one/"
    assert "/media/" not in {a["href"] for a in soup(client.get(chapter)).select("a")}
    client.force_login(role_user("ed", "Editor"))
    links = soup(client.get(chapter)).select(".page-actions a")
    assert [(a.text, a["href"]) for a in links] == [("Media library", "/media/")]


def test_media_settings_come_from_the_environment():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'wiki.settings'; "
        "from django.conf import settings as s; "
        "storage = s.STORAGES['default']; "
        "print(s.MEDIA_ROOT, s.MEDIA_MAX_SIZE, s.MEDIA_MAX_PIXELS, storage['BACKEND'], "
        "storage.get('OPTIONS', {}).get('bucket_name'))"
    )
    local = run_with_environment(code, DJANGO_SECRET_KEY="k", DJANGO_MEDIA_ROOT="/srv/media")
    assert local.split() == [
        "/srv/media", "20971520", "100000000", "django.core.files.storage.FileSystemStorage",
        "None",
    ]  # fmt: skip
    s3 = run_with_environment(
        code, DJANGO_SECRET_KEY="k", WIKI_MEDIA_S3_BUCKET="wiki-media", WIKI_MEDIA_MAX_SIZE="1000",
        WIKI_MEDIA_MAX_PIXELS="10",
    )  # fmt: skip
    assert s3.split()[1:] == ["1000", "10", "storages.backends.s3.S3Storage", "wiki-media"]
