"""The media library's models and uploads (chapters.models.media, chapters.media.uploads):
what is accepted, what is refused and why, what is stored."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, ImageFile

from chapters.media import processing, uploads
from chapters.models import MediaItem, MediaVersion
from tests.helpers import role_user, soup
from tests.images import (
    HTML_PAGE,
    SECRET,
    SVG_WITH_SCRIPT,
    huge_png,
    image_bytes,
    jpeg_segments,
    png_header,
    png_upload,
    upload,
    with_metadata,
)

STORED = ["480.webp", "960.webp", "diagram.png"]


def refusal(file):
    """Return the message of inspect's refusal of ``file``."""
    with pytest.raises(ValidationError) as raised:
        uploads.inspect(file)
    return raised.value.messages


@pytest.mark.django_db
def test_upload_of_an_image_stores_it_as_it_came_and_a_task_makes_its_copies(run_tasks):
    editor = role_user("ed", "Editor")
    content = image_bytes()
    item = uploads.add(
        upload("Fusion Diagram.PNG", content), title="", alt="Two kernels", uploader=editor
    )
    item = MediaItem.objects.get(pk=item.pk)
    assert (item.name, item.kind, item.title, item.alt, item.uploader) == (
        "fusion-diagram.png", "image", "Fusion Diagram.PNG", "Two kernels", editor,
    )  # fmt: skip
    original = "library/fusion-diagram.png/v1/unprocessed.png"
    assert (item.state, item.width, item.height, item.variants, item.version) == (
        "processing", 1200, 800, [], 1,
    )  # fmt: skip
    assert (item.content_type, item.file.name, item.original, item.size) == (
        "image/png", original, original, len(content),
    )  # fmt: skip
    assert default_storage.open(original).read() == content
    assert run_tasks() == 1
    item = MediaItem.objects.get(pk=item.pk)
    assert (item.state, item.width, item.height, item.variants, item.original) == (
        "ready", 1200, 800, [480, 960], "",
    )  # fmt: skip
    assert item.file.name == "library/fusion-diagram.png/v1/fusion-diagram.png"
    assert item.size == default_storage.size(item.file.name)
    assert sorted(default_storage.listdir("library/fusion-diagram.png/v1")[1]) == [
        "480.webp", "960.webp", "fusion-diagram.png",
    ]  # fmt: skip
    with default_storage.open(item.variant_path(480)) as copy:
        image = Image.open(copy)
        assert (image.format, image.size) == ("WEBP", (480, 320))
    assert item.get_absolute_url() == "/media/fusion-diagram.png"
    again = uploads.add(png_upload("fusion diagram.png"), title="T", alt="A", uploader=editor)
    assert again.name == "fusion-diagram-2.png"


@pytest.mark.django_db
def test_processing_twice_or_after_a_killed_run_gives_the_same_result(run_tasks):
    item = uploads.add(png_upload(), title="D", alt="A diagram", uploader=None)
    folder = "library/diagram.png/v1"
    # A run killed while writing: part of the file and of a copy written, nothing marked.
    default_storage.save(f"{folder}/diagram.png", ContentFile(b"\x89PNG partial"))
    default_storage.save(f"{folder}/480.webp", ContentFile(b"RIFF"))
    assert run_tasks() == 1
    done = MediaItem.objects.get()
    stored = {name: default_storage.open(f"{folder}/{name}").read() for name in STORED}
    assert Image.open(io.BytesIO(stored["diagram.png"])).size == (1200, 800)
    # A run killed after marking the version ready, before deleting the original.
    default_storage.save(f"{folder}/unprocessed.png", ContentFile(image_bytes()))
    MediaItem.objects.update(original=f"{folder}/unprocessed.png")
    processing.process(item.pk, 1)
    processing.process(item.pk, 1)
    again = MediaItem.objects.get()
    assert (again.state, again.file.name, again.size, again.variants, again.original) == (
        done.state, done.file.name, done.size, done.variants, "",
    )  # fmt: skip
    assert sorted(default_storage.listdir(folder)[1]) == sorted(STORED)
    assert {name: default_storage.open(f"{folder}/{name}").read() for name in STORED} == stored
    processing.process(item.pk + 1, 1)  # a deleted item: nothing to do


@pytest.mark.django_db
def test_image_is_named_by_its_content_and_an_image_needs_alt_text():
    editor = role_user("ed", "Editor")
    jpeg = upload("photo.png", image_bytes(format_name="JPEG"))
    assert uploads.add(jpeg, title="Photo", alt="A photo", uploader=editor).name == "photo.jpg"
    with pytest.raises(ValidationError) as raised:
        uploads.add(png_upload(), title="Diagram", alt="  ", uploader=editor)
    assert raised.value.message_dict == {
        "alt": ["Describe the image for readers who cannot see it."]
    }
    assert list(MediaItem.objects.values_list("name", flat=True)) == ["photo.jpg"]


def processed(content, name="photo"):
    """Upload ``content``, run its task; return the item and the bytes it stores."""
    item = uploads.add(upload(name, content), title="", alt="A photo", uploader=None)
    processing.process(item.pk, item.version)
    item = MediaItem.objects.get(pk=item.pk)
    with default_storage.open(item.file.name) as handle:
        return item, handle.read()


@pytest.mark.django_db
def test_exif_xmp_and_a_jpeg_comment_are_stripped_and_the_photo_turned_upright():
    content = with_metadata("JPEG", 400, 200)
    tables = [0xDB, 0xDB, 0xC0, 0xC4, 0xC4, 0xC4, 0xC4]  # quantization, frame, Huffman
    assert (SECRET in content, jpeg_segments(content)) == (True, [0xE0, 0xE1, 0xE1, 0xFE, *tables])
    item = uploads.add(upload("photo.jpg", content), title="", alt="A photo", uploader=None)
    assert (item.state, item.width, item.height) == ("processing", 200, 400)
    processing.process(item.pk, item.version)
    item = MediaItem.objects.get(pk=item.pk)
    stored = default_storage.open(item.file.name).read()
    image = Image.open(io.BytesIO(stored))
    assert (image.format, image.size, dict(image.getexif()), SECRET in stored) == (
        "JPEG", (200, 400), {}, False,
    )  # fmt: skip
    assert jpeg_segments(stored) == [0xE0, *tables]  # JFIF, then the tables: no EXIF, XMP, COM
    assert (item.width, item.height, item.variants) == (200, 400, [])


@pytest.mark.django_db
@pytest.mark.parametrize("format_name", ["PNG", "WEBP", "GIF"])
def test_metadata_of_pngs_webps_and_gif_comments_is_stripped(format_name):
    content = with_metadata(format_name, 600, 300)
    assert SECRET in content
    item, stored = processed(content)
    image = Image.open(io.BytesIO(stored))
    assert (image.format, image.size, SECRET in stored, item.variants) == (
        format_name, (600, 300), False, [480],
    )  # fmt: skip
    assert sorted(set(image.info) - {"transparency", "background", "duration", "loop"}) == (
        ["version"] if format_name == "GIF" else []
    )


@pytest.mark.django_db
def test_an_animated_gif_keeps_its_frames_and_loses_every_frame_s_comment():
    content = with_metadata("GIF", 100, 100, frames=3)
    assert content.count(SECRET) == 1
    item, stored = processed(content)
    image = Image.open(io.BytesIO(stored))
    comments = []
    for frame in range(image.n_frames):
        image.seek(frame)
        comments.append(image.info.get("comment"))
    assert (image.n_frames, comments, SECRET in stored, item.variants) == (3, [None] * 3, False, [])


@pytest.mark.django_db
def test_a_damaged_image_fails_in_a_process_that_imported_weasyprint(run_tasks, monkeypatch):
    # WeasyPrint sets Pillow's LOAD_TRUNCATED_IMAGES as it is imported, in every process
    # that builds books: the workers that also process images.
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    content = image_bytes(300, 200)
    damaged = content[: len(content) // 2] + b"\x00" * 64
    uploads.add(upload("cut.png", damaged), title="", alt="Cut", uploader=None)
    assert run_tasks() == 1
    assert MediaItem.objects.get().state == "failed"
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True


@pytest.mark.django_db
def test_an_image_whose_pixels_cannot_be_decoded_fails_and_is_not_served(client, run_tasks):
    content = image_bytes(300, 200)
    damaged = content[: len(content) // 2] + b"\x00" * 64
    item = uploads.add(upload("cut.png", damaged), title="", alt="Cut", uploader=None)
    assert (item.state, item.width, item.height) == ("processing", 300, 200)
    assert run_tasks() == 1
    item = MediaItem.objects.get()
    assert (item.state, item.file.name, item.variants) == (
        "failed", "library/cut.png/v1/unprocessed.png", [],
    )  # fmt: skip
    assert client.get("/media/cut.png").status_code == 404
    client.force_login(role_user("ed", "Editor"))
    listed = soup(client.get("/media/")).select_one(".media-grid li")
    assert (listed.img, listed.select_one(".media-state").text) == (None, "Failed")
    assert [p.text for p in soup(client.get("/media/cut.png/")).select("[role=alert]")] == [
        "Failed: the image's pixels could not be decoded, so pages show it as missing. Replace "
        "it with an image that opens."
    ]
    picker = client.get("/media/", HTTP_ACCEPT="application/json").json()["items"]
    assert [(item["state"], item["thumbnail"]) for item in picker] == [("failed", "")]


def test_a_20000_by_20000_png_is_refused_before_its_pixels_are_decoded():
    assert refusal(upload("huge.png", huge_png())) == [
        "“huge.png” has too many pixels: at most 100,000,000 pixels (width × height) are "
        "accepted. Scale it down and upload it again."
    ]
    assert refusal(upload("wide.png", png_header(10_001, 10_000))) == [
        "“wide.png” is 10,001 × 10,000 pixels: at most 100,000,000 pixels (width × height) "
        "are accepted. Scale it down and upload it again."
    ]


@pytest.mark.django_db
def test_a_100_megapixel_image_is_accepted_from_its_header_and_processed_by_the_task(
    run_tasks,
):
    # A header and no pixels at all: the request reads no pixel.
    inspected = uploads.inspect(upload("header.png", png_header(10_000, 10_000)))
    assert (inspected.kind, inspected.width, inspected.height) == ("image", 10_000, 10_000)
    item = uploads.add(
        upload("scan.png", huge_png(10_000, 10_000)), title="", alt="A scan", uploader=None
    )
    assert (item.state, item.width, item.height, item.variants) == (
        "processing",
        10_000,
        10_000,
        [],
    )
    assert run_tasks() == 1
    item = MediaItem.objects.get()
    assert (item.state, item.width, item.height, item.variants) == (
        "ready", 10_000, 10_000, [480, 960, 1920],
    )  # fmt: skip
    with default_storage.open(item.variant_path(1920)) as copy:
        assert Image.open(copy).size == (1920, 1920)


def test_an_image_over_the_wiki_s_own_pixel_limit_is_refused_with_its_size(settings):
    settings.MEDIA_MAX_PIXELS = 100 * 100
    assert refusal(png_upload("big.png", 200, 100)) == [
        "“big.png” is 200 × 100 pixels: at most 10,000 pixels (width × height) are accepted. "
        "Scale it down and upload it again."
    ]


def test_a_file_over_the_size_limit_is_refused(settings):
    settings.MEDIA_MAX_SIZE = 1000
    assert refusal(upload("notes.txt", b"x" * 1001)) == [
        "“notes.txt” is 1001\xa0bytes: at most 1000\xa0bytes can be uploaded."
    ]


def test_html_named_png_svg_and_unknown_types_are_refused_by_their_content():
    assert refusal(upload("cat.png", HTML_PAGE, "image/png")) == [
        "“cat.png” holds HTML or XML, which is not accepted."
    ]
    svg_refused = [
        "“drawing.svg” is an SVG image, which can hold scripts: SVG is not accepted. "
        "Export the drawing as PNG or WebP and upload that."
    ]
    assert refusal(upload("drawing.svg", SVG_WITH_SCRIPT, "image/svg+xml")) == svg_refused
    assert refusal(upload("drawing.svg", b"plain text")) == svg_refused
    assert refusal(upload("notes.txt", SVG_WITH_SCRIPT[21:])) == [
        "“notes.txt” is an SVG image, which can hold scripts: SVG is not accepted. "
        "Export the drawing as PNG or WebP and upload that."
    ]
    assert refusal(upload("cat.png", b"just text")) == [
        "“cat.png” is named like an image but does not hold one."
    ]
    assert refusal(upload("tool.exe", b"MZ\x90\x00\x03\x00")) == [
        "“tool.exe” is not of a type the library accepts: images (PNG, JPEG, WebP, GIF, "
        "AVIF), PDF, ZIP and text files."
    ]
    bmp = io.BytesIO()
    Image.new("RGB", (4, 4)).save(bmp, format="BMP")
    assert refusal(upload("old.png", bmp.getvalue())) == [
        "“old.png” is a BMP image: PNG, JPEG, WebP, GIF and AVIF are accepted."
    ]


def test_files_are_typed_by_content_and_keep_known_extensions():
    def found(name, content):
        inspected = uploads.inspect(upload(name, content))
        return inspected.kind, inspected.extension, inspected.content_type

    assert found("paper.bin", b"%PDF-1.7\n...") == ("file", "pdf", "application/pdf")
    assert found("lab.ipynb", b'{"cells": []}') == ("file", "ipynb", "text/plain; charset=utf-8")
    assert found("notes.exe", b"plain notes") == ("file", "txt", "text/plain; charset=utf-8")
    assert found("slides.pdf", b"PK\x03\x04rest") == ("file", "zip", "application/zip")


@pytest.mark.django_db
def test_replacing_keeps_the_name_and_the_old_version_in_history(run_tasks):
    editor, other = role_user("ed", "Editor"), role_user("other", "Editor")
    item = uploads.add(png_upload(), title="Diagram", alt="A diagram", uploader=editor)
    run_tasks()
    first = MediaItem.objects.get().file.name
    uploads.replace(item, upload("new.jpg", image_bytes(300, 200, "JPEG")), uploader=other)
    item = MediaItem.objects.get(pk=item.pk)
    assert (item.name, item.version, item.state, item.content_type, item.width) == (
        "diagram.png", 2, "processing", "image/jpeg", 300,
    )  # fmt: skip
    assert (item.file.name, item.uploader) == ("library/diagram.png/v2/unprocessed.png", other)
    assert run_tasks() == 1
    item = MediaItem.objects.get(pk=item.pk)
    assert (item.state, item.file.name, item.variants) == (
        "ready", "library/diagram.png/v2/diagram.png", [],
    )  # fmt: skip
    old = MediaVersion.objects.get(item=item)
    assert (old.version, old.state, old.file.name, old.width, old.uploader) == (
        1, "ready", first, 1200, editor,
    )  # fmt: skip
    assert default_storage.exists(first)
    with pytest.raises(ValidationError) as raised:
        uploads.replace(item, upload("notes.txt", b"text"), uploader=editor)
    assert raised.value.messages == ["“diagram.png” is an image: replace it with an image."]


@pytest.mark.django_db
def test_a_version_replaced_before_it_was_processed_is_processed_in_the_history(run_tasks):
    item = uploads.add(png_upload(), title="Diagram", alt="A diagram", uploader=None)
    uploads.replace(item, png_upload("b.png", 600, 300), uploader=None)
    old = MediaVersion.objects.get()
    assert (old.version, old.state, old.file.name) == (
        1, "processing", "library/diagram.png/v1/unprocessed.png",
    )  # fmt: skip
    assert run_tasks() == 2
    old = MediaVersion.objects.get()
    item = MediaItem.objects.get()
    assert [
        (row.version, row.state, row.file.name, row.width, row.original) for row in (old, item)
    ] == [
        (1, "ready", "library/diagram.png/v1/diagram.png", 1200, ""),
        (2, "ready", "library/diagram.png/v2/diagram.png", 600, ""),
    ]


@pytest.mark.django_db(transaction=True)
def test_deleting_an_unused_item_deletes_its_files(run_tasks):
    editor = role_user("ed", "Editor")
    item = uploads.add(png_upload(), title="Diagram", alt="A diagram", uploader=editor)
    run_tasks()
    uploads.replace(item, png_upload(), uploader=editor)
    paths = [*item.stored_paths(), *MediaVersion.objects.get().stored_paths()]
    assert paths == [
        "library/diagram.png/v2/unprocessed.png",
        "library/diagram.png/v1/diagram.png",
        "library/diagram.png/v1/480.webp",
        "library/diagram.png/v1/960.webp",
    ]
    assert all(default_storage.exists(path) for path in paths)
    item.delete()
    assert (MediaItem.objects.count(), MediaVersion.objects.count()) == (0, 0)
    assert [path for path in paths if default_storage.exists(path)] == []


@pytest.mark.django_db
def test_animation_is_kept_animated_within_a_limit_on_all_its_frames(settings):
    frames = [Image.new("RGB", (100, 100), (i * 20, 0, 0)) for i in range(6)]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=100)
    item, stored = processed(buffer.getvalue(), "spin.gif")
    image = Image.open(io.BytesIO(stored))
    assert (item.name, image.format, image.n_frames, item.variants) == ("spin.gif", "GIF", 6, [])
    settings.MEDIA_MAX_PIXELS = 100 * 100
    assert refusal(upload("spin.gif", buffer.getvalue())) == [
        "“spin.gif” is an animation of 6 frames of 100 × 100 pixels: all its frames together "
        "may have at most 4 × 10,000 pixels. Make it smaller or shorter."
    ]
