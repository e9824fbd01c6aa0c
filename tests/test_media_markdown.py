"""The media library in bodies (chapters.markdown.mdx.media, MediaResolver, MediaUse): what
a reference renders to, what is recorded, the placeholders, the broken-links report, the
preview's warnings, and deleting an item that pages use."""

import pytest
from django.db.models import ProtectedError

from chapters.markdown import render_markdown
from chapters.media import processing, uploads
from chapters.models import MediaItem, MediaResolver, MediaUse, Node
from tests.helpers import edit, node, role_user, soup
from tests.images import image_bytes, png_upload, upload

FIGURE = (
    '<p><a class="media-image" href="/media/diagram.png?v=1">'
    '<img alt="Two kernels" height="800" loading="lazy" '
    'sizes="(max-width: 50rem) calc(100vw - 2rem), 48rem" src="/media/diagram.png?v=1" '
    'srcset="/media/diagram.png/480.webp?v=1 480w, /media/diagram.png/960.webp?v=1 960w, '
    '/media/diagram.png?v=1 1200w" width="1200"></a></p>'
)


def add(name="diagram.png", width=1200, height=800):
    """Add an image to the library and process it as its task does; return it."""
    user = role_user(f"up-{name}", "Editor")
    item = uploads.add(png_upload(name, width, height), title="T", alt="A", uploader=user)
    processing.process(item.pk, item.version)
    return MediaItem.objects.get(pk=item.pk)


@pytest.mark.django_db
def test_image_reference_renders_a_sized_lazy_responsive_image_linking_to_the_full_one(
    small_tree,
):
    item = add()
    edit("Chapter One", body="![Two kernels](image:diagram.png)")
    assert node("Chapter One").body_html == FIGURE
    assert [(use.source.title, use.text, use.problem) for use in item.uses.all()] == [
        ("Chapter One", "image:diagram.png", "")
    ]


@pytest.mark.django_db
def test_small_image_has_no_srcset_and_a_file_reference_is_a_download_link(small_tree):
    add("icon.png", 64, 32)
    uploads.add(upload("notes.pdf", b"%PDF-1.7\n"), title="Notes", alt="", uploader=None)
    edit("Chapter One", body="![An icon](image:icon.png) and [the notes](file:notes.pdf)")
    assert node("Chapter One").body_html == (
        '<p><a class="media-image" href="/media/icon.png?v=1"><img alt="An icon" height="32" '
        'loading="lazy" src="/media/icon.png?v=1" width="64"></a> and '
        '<a class="media-file" href="/media/notes.pdf?v=1">the notes</a></p>'
    )


@pytest.mark.django_db
def test_missing_or_wrong_references_are_visible_placeholders_and_broken_links(client, small_tree):
    uploads.add(upload("notes.pdf", b"%PDF-1.7\n"), title="Notes", alt="", uploader=None)
    edit(
        "Chapter One",
        body="![A plot](image:plot.png)\n\n![Notes](image:notes.pdf)\n\n[data](file:data.csv)",
    )
    assert node("Chapter One").body_html == (
        '<p><span class="media-missing" title="There is no image “plot.png” in the media '
        'library.">Image not available: A plot</span></p>\n'
        '<p><span class="media-missing" title="“notes.pdf” is a file, not an image: link to '
        'it with [text](file:notes.pdf).">Image not available: Notes</span></p>\n'
        '<p><span class="media-missing" title="There is no image or file “data.csv” in the '
        'media library.">data</span></p>'
    )
    client.force_login(role_user("ed", "Editor"))
    rows = soup(client.get("/links/broken/")).select("table.report tbody tr")
    assert [[td.text for td in row.select("td")][:3] for row in rows] == [
        ["Chapter One", "image:plot.png", "There is no image “plot.png” in the media library."],
        [
            "Chapter One",
            "image:notes.pdf",
            "“notes.pdf” is a file, not an image: link to it with [text](file:notes.pdf).",
        ],
        [
            "Chapter One",
            "file:data.csv",
            "There is no image or file “data.csv” in the media library.",
        ],
    ]


PLACEHOLDER = (
    '<p><span class="media-processing" title="This image is being prepared: it shows here in '
    'a moment."><img alt="Two kernels" height="{height}" loading="lazy" '
    'src="/media/diagram.png?v={version}" width="{width}"></span></p>'
)


@pytest.mark.django_db
def test_pages_show_a_sized_placeholder_until_the_task_has_processed_the_image(
    client, small_tree, run_tasks
):
    edit("Chapter One", body="![Two kernels](image:diagram.png)")
    run_tasks()
    assert "media-missing" in node("Chapter One").body_html
    uploads.add(png_upload(), title="T", alt="A", uploader=None)
    assert run_tasks() == 1
    assert node("Chapter One").body_html == FIGURE
    item = MediaItem.objects.get()
    assert MediaUse.objects.get().media == item
    uploads.replace(item, png_upload("b.png", 300, 200), uploader=None)
    edit("Chapter Two", body="![Two kernels](image:diagram.png)")
    assert node("Chapter Two").body_html == PLACEHOLDER.format(width=300, height=200, version=2)
    page = client.get("/area-a/section-a1/chapter-two/").content.decode()
    assert PLACEHOLDER.format(width=300, height=200, version=2) in page
    run_tasks()
    ready = (
        '<p><a class="media-image" href="/media/diagram.png?v=2"><img alt="Two kernels" '
        'height="200" loading="lazy" src="/media/diagram.png?v=2" width="300"></a></p>'
    )
    assert [node(title).body_html for title in ("Chapter One", "Chapter Two")] == [ready, ready]
    page = soup(client.get("/area-a/section-a1/chapter-two/"))
    assert page.select(".body .media-processing") == []


@pytest.mark.django_db
def test_an_image_that_failed_is_missing_from_pages_and_a_broken_link(small_tree, run_tasks):
    broken = image_bytes(300, 200)
    uploads.add(upload("diagram.png", broken[:300]), title="T", alt="A", uploader=None)
    edit("Chapter One", body="![Two kernels](image:diagram.png)")
    run_tasks()
    assert node("Chapter One").body_html == (
        '<p><span class="media-missing" title="“diagram.png” could not be read: its pixels are '
        'damaged. Replace it in the media library.">Image not available: Two kernels</span></p>'
    )
    assert MediaUse.objects.get().problem.startswith("“diagram.png” could not be read")


def test_raw_image_attributes_are_kept_only_as_the_extension_writes_them():
    html = render_markdown(
        '<img src="/a.png" srcset="https://elsewhere.example/x.png 1w" sizes="100vw" '
        'loading="eager" width="10" height="10px" onerror="alert(1)">'
    )
    assert html == '<p><img src="/a.png" width="10"></p>'


@pytest.mark.django_db
def test_image_inside_a_link_is_not_wrapped_again(small_tree):
    add("icon.png", 64, 32)
    edit("Chapter One", body="[![An icon](image:icon.png)](/area-a/)")
    assert node("Chapter One").body_html == (
        '<p><a href="/area-a/"><img alt="An icon" height="32" loading="lazy" '
        'src="/media/icon.png?v=1" width="64"></a></p>'
    )


@pytest.mark.django_db
def test_preview_lists_missing_media_and_warns_of_images_from_other_sites(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    body = "![A plot](image:plot.png) ![Remote](https://elsewhere.example/p.png)"
    result = client.post("/preview/", {"body": body, "node": node("Chapter One").pk}).json()
    assert result["broken"] == [
        {
            "text": "image:plot.png",
            "problem": "There is no image “plot.png” in the media library.",
        },
        {
            "text": "https://elsewhere.example/p.png",
            "problem": "readers' browsers will not show this image: pages load images from "
            "this site only (its Content-Security-Policy). Upload it to the media library "
            "instead.",
        },
    ]


@pytest.mark.django_db
def test_deleting_an_item_pages_use_is_refused_with_the_pages(client, small_tree):
    add()
    edit("Chapter One", body="![Two kernels](image:diagram.png)")
    edit("Chapter Two", body="[the diagram](file:diagram.png)")
    with pytest.raises(ProtectedError):
        MediaItem.objects.get().delete()
    client.force_login(role_user("ed", "Editor"))
    response = client.post("/media/diagram.png/delete/")
    assert response.status_code == 200
    alert = soup(response).select_one("[role=alert]")
    assert alert.p.text == (
        "“diagram.png” was not deleted: 2 pages use it. Remove it from these pages first:"
    )
    assert [(a.text, a["href"]) for a in alert.select("li a")] == [
        ("Chapter One", "/area-a/section-a1/chapter-one/"),
        ("Chapter Two", "/area-a/section-a1/chapter-two/"),
    ]
    assert MediaItem.objects.count() == 1
    edit("Chapter One", body="No image.")
    edit("Chapter Two", body="No file.")
    assert client.post("/media/diagram.png/delete/")["Location"] == "/media/"
    assert MediaItem.objects.count() == 0


@pytest.mark.django_db
def test_resolver_looks_every_reference_up_in_one_query(django_assert_num_queries):
    add("a.png")
    add("b.png")
    resolver = MediaResolver()
    body = "![A](image:a.png) ![B](image:b.png) [c](file:c.pdf) ![A again](image:a.png)"
    with django_assert_num_queries(1):
        resolver.prepare(body)
        html = render_markdown(body, resolve_media=resolver)
    assert html.count('class="media-image"') == 3
    assert [(use.kind, use.name, use.media and use.media.name) for use in resolver.uses()] == [
        ("image", "a.png", "a.png"),
        ("image", "b.png", "b.png"),
        ("file", "c.pdf", None),
    ]


@pytest.mark.django_db
def test_a_page_that_fails_to_render_after_an_upload_fails_the_task_not_the_upload(
    client, small_tree, monkeypatch, run_tasks, caplog
):
    edit("Chapter One", body="![Two kernels](image:diagram.png)")
    run_tasks()

    def fail(self):
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(Node, "refresh_body", fail)
    client.force_login(role_user("ed", "Editor"))
    response = client.post(
        "/media/upload/", {"file": png_upload(), "alt": "A"}, HTTP_ACCEPT="application/json"
    )
    assert (response.status_code, response.json()["name"]) == (201, "diagram.png")
    assert run_tasks() == 1
    assert "rendering failed" in caplog.text
    assert MediaItem.objects.get().state == "ready"
