"""The media library's models and uploads (chapters.models.media, chapters.media.uploads):
what is accepted, what is refused and why, what is stored."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from PIL import Image

from chapters.media import uploads
from chapters.models import MediaItem, MediaVersion
from tests.helpers import role_user
from tests.images import (
    HTML_PAGE,
    SVG_WITH_SCRIPT,
    huge_png,
    image_bytes,
    png_upload,
    upload,
)


def refusal(file):
    """Return the message of inspect's refusal of ``file``."""
    with pytest.raises(ValidationError) as raised:
        uploads.inspect(file)
    return raised.value.messages


@pytest.mark.django_db
def test_upload_of_an_image_stores_it_with_its_copies_under_a_stable_name():
    editor = role_user("ed", "Editor")
    item = uploads.add(
        png_upload("Fusion Diagram.PNG"), title="", alt="Two kernels", uploader=editor
    )
    item = MediaItem.objects.get(pk=item.pk)
    assert (item.name, item.kind, item.title, item.alt, item.uploader) == (
        "fusion-diagram.png", "image", "Fusion Diagram.PNG", "Two kernels", editor,
    )  # fmt: skip
    assert (item.width, item.height, item.variants, item.version) == (1200, 800, [480, 960], 1)
    assert (item.content_type, item.file.name) == (
        "image/png", "library/fusion-diagram.png/v1/fusion-diagram.png",
    )  # fmt: skip
    assert item.size == default_storage.size(item.file.name)
    with default_storage.open(item.variant_path(480)) as copy:
        image = Image.open(copy)
        assert (image.format, image.size) == ("WEBP", (480, 320))
    assert item.get_absolute_url() == "/media/fusion-diagram.png"
    again = uploads.add(png_upload("fusion diagram.png"), title="T", alt="A", uploader=editor)
    assert again.name == "fusion-diagram-2.png"


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


@pytest.mark.django_db
def test_exif_is_stripped_and_the_image_turned_upright():
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to show
    exif[0x8825] = {2: (48.0, 51.0, 0.0)}  # GPS latitude
    content = image_bytes(400, 200, format_name="JPEG", exif=exif)
    assert Image.open(io.BytesIO(content)).getexif()[0x0112] == 6
    inspected = uploads.inspect(upload("photo.jpg", content))
    stored = Image.open(io.BytesIO(inspected.content))
    assert (stored.format, stored.size, dict(stored.getexif())) == ("JPEG", (200, 400), {})
    assert (inspected.width, inspected.height) == (200, 400)


def test_a_20000_by_20000_png_is_refused_before_its_pixels_are_decoded():
    assert refusal(upload("huge.png", huge_png())) == [
        "“huge.png” has too many pixels: at most 40,000,000 pixels (width × height) are "
        "accepted. Scale it down and upload it again."
    ]


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
def test_replacing_keeps_the_name_and_the_old_version_in_history():
    editor, other = role_user("ed", "Editor"), role_user("other", "Editor")
    item = uploads.add(png_upload(), title="Diagram", alt="A diagram", uploader=editor)
    first = item.file.name
    uploads.replace(item, upload("new.jpg", image_bytes(300, 200, "JPEG")), uploader=other)
    item = MediaItem.objects.get(pk=item.pk)
    assert (item.name, item.version, item.content_type, item.width, item.variants) == (
        "diagram.png", 2, "image/jpeg", 300, [],
    )  # fmt: skip
    assert (item.file.name, item.uploader) == ("library/diagram.png/v2/diagram.png", other)
    old = MediaVersion.objects.get(item=item)
    assert (old.version, old.file.name, old.width, old.uploader) == (1, first, 1200, editor)
    assert default_storage.exists(first)
    with pytest.raises(ValidationError) as raised:
        uploads.replace(item, upload("notes.txt", b"text"), uploader=editor)
    assert raised.value.messages == ["“diagram.png” is an image: replace it with an image."]


@pytest.mark.django_db(transaction=True)
def test_deleting_an_unused_item_deletes_its_files():
    editor = role_user("ed", "Editor")
    item = uploads.add(png_upload(), title="Diagram", alt="A diagram", uploader=editor)
    uploads.replace(item, png_upload(), uploader=editor)
    paths = [*item.stored_paths(), *MediaVersion.objects.get().stored_paths()]
    assert all(default_storage.exists(path) for path in paths)
    item.delete()
    assert (MediaItem.objects.count(), MediaVersion.objects.count()) == (0, 0)
    assert [path for path in paths if default_storage.exists(path)] == []


def test_animation_is_kept_animated_within_a_limit_on_all_its_frames(settings):
    frames = [Image.new("RGB", (100, 100), (i * 20, 0, 0)) for i in range(6)]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=100)
    inspected = uploads.inspect(upload("spin.gif", buffer.getvalue()))
    stored = Image.open(io.BytesIO(inspected.content))
    assert (stored.format, stored.n_frames, inspected.variants) == ("GIF", 6, {})
    settings.MEDIA_MAX_PIXELS = 100 * 100
    assert refusal(upload("spin.gif", buffer.getvalue())) == [
        "“spin.gif” is an animation of 6 frames of 100 × 100 pixels: all its frames together "
        "may have at most 4 × 10,000 pixels. Make it smaller or shorter."
    ]
