"""Images and files in a browser: an image pasted into the editor, shown in the preview and
on the saved page at its size in light and dark; a phone fetches the small copy; uploads the
library refuses say why; an image that a page uses cannot be deleted."""

import base64
import re

import pytest
from playwright.sync_api import expect

from chapters.media import uploads
from chapters.models import MediaItem
from tests.browser.conftest import PHONE
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node, role_user
from tests.images import HTML_PAGE, SVG_WITH_SCRIPT, huge_png, image_bytes, png_upload

pytestmark = pytest.mark.browser

EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
CHAPTER_ONE = "/area-a/section-a1/chapter-one/"

PASTE = """
([name, base64]) => {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const data = new DataTransfer();
  data.items.add(new File([bytes], name, { type: "image/png" }));
  const body = document.getElementById("id_body");
  body.focus();
  const options = { clipboardData: data, bubbles: true, cancelable: true };
  body.dispatchEvent(new ClipboardEvent("paste", options));
}
"""


DROP = """
([name, base64]) => {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const data = new DataTransfer();
  data.items.add(new File([bytes], name, { type: "application/pdf" }));
  const body = document.getElementById("id_body");
  const options = { dataTransfer: data, bubbles: true, cancelable: true };
  body.dispatchEvent(new DragEvent("dragover", options));
  body.dispatchEvent(new DragEvent("drop", options));
}
"""


def shown_size(image):
    """Return the width and height an image is shown at, in CSS pixels."""
    box = image.bounding_box()
    return round(box["width"]), round(box["height"])


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_pasted_image_is_in_the_preview_and_on_the_saved_page_at_its_size(
    browse, small_tree, color_scheme, run_tasks
):
    page = browse(EDIT_ONE, user=role_user("ed", "Editor"), color_scheme=color_scheme)
    body = page.locator("#id_body")
    body.fill("Fused kernels:")
    body.press("Control+End")
    content = base64.b64encode(image_bytes(1200, 800)).decode()
    page.evaluate(PASTE, ["clipboard.png", content])
    dialog = page.locator("#media-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#media-title")).to_have_value("clipboard")
    page.fill("#media-alt", "Two kernels fused into one")
    page.get_by_role("button", name="Upload and insert").click()
    expect(dialog).to_be_hidden()
    expect(body).to_have_value(
        "Fused kernels:\n\n![Two kernels fused into one](image:clipboard.png)\n"
    )
    # Until its task has run, the preview shows the image's placeholder, at its size.
    placeholder = page.locator("#preview .media-processing img")
    expect(placeholder).to_have_attribute("alt", "Two kernels fused into one")
    expect(placeholder).to_have_attribute("width", "1200")
    run_tasks()
    body.press("Control+Enter")  # preview again, now that the image is ready
    preview_image = page.locator("#preview a.media-image img")
    expect(preview_image).to_have_attribute("alt", "Two kernels fused into one")
    expect(preview_image).to_have_attribute("width", "1200")
    preview_image.scroll_into_view_if_needed()
    # Property checks, not wait_for_function: its polling evaluates strings in the page,
    # which the Content-Security-Policy refuses (no 'unsafe-eval').
    expect(preview_image).to_have_js_property("complete", True)
    expect(preview_image).not_to_have_js_property("naturalWidth", 0)
    # As wide as the preview's column (narrower than the image), in proportion.
    column = page.evaluate("parseFloat(getComputedStyle(document.getElementById('preview')).width)")
    assert shown_size(preview_image) == (round(column), round(column * 800 / 1200))

    with page.expect_navigation():
        page.keyboard.press("Control+s")
    expect(page).to_have_url(re.compile(f"{CHAPTER_ONE}$"))
    image = page.locator("article div.body img")
    expect(image).to_have_attribute("alt", "Two kernels fused into one")
    image.scroll_into_view_if_needed()
    expect(image).to_have_js_property("complete", True)
    # The text column (70ch, about 640 px on a desktop) is narrower than the 960 px copy,
    # which fills it.
    column = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('article div.body')).width)"
    )
    assert 480 < column < 960
    assert shown_size(image) == (round(column), round(column * 800 / 1200))
    current = page.evaluate("document.querySelector('article div.body img').currentSrc")
    assert current.endswith("/media/clipboard.png/960.webp?v=1")
    assert node("Chapter One").body == (
        "Fused kernels:\n\n![Two kernels fused into one](image:clipboard.png)\n"
    )


def test_dropped_file_and_a_picked_image_are_written_at_the_cursor(browse, small_tree):
    uploads.add(png_upload("diagram.png"), title="Diagram", alt="A diagram", uploader=None)
    page = browse(EDIT_ONE, user=role_user("ed", "Editor"))
    body = page.locator("#id_body")
    body.fill("Notes: ")
    content = base64.b64encode(b"%PDF-1.7\n%%EOF\n").decode()
    page.evaluate(DROP, ["Lecture Notes.pdf", content])
    expect(page.locator("#media-title")).to_have_value("Lecture Notes")
    page.get_by_role("button", name="Upload and insert").click()
    expect(body).to_have_value("Notes: [Lecture Notes](file:lecture-notes.pdf)")
    expect(page.locator("#preview a.media-file")).to_have_attribute(
        "href", "/media/lecture-notes.pdf?v=1"
    )
    body.press("Control+End")
    page.get_by_role("button", name="Image or file").click()
    page.fill("#media-search", "diagram")
    picked = page.locator("#media-picker button", has_text="diagram.png")
    expect(page.locator("#media-picker button")).to_have_count(1)
    picked.click()
    expect(body).to_have_value(
        "Notes: [Lecture Notes](file:lecture-notes.pdf)\n\n![A diagram](image:diagram.png)\n"
    )


def test_phone_fetches_the_small_copy(browse, small_tree, run_tasks):
    uploads.add(png_upload("diagram.png", 1600, 900), title="D", alt="A diagram", uploader=None)
    run_tasks()
    edit("Chapter One", body="![A diagram](image:diagram.png)")
    requested = []
    page = browse("/", viewport=PHONE)
    page.on("request", lambda request: "/media/" in request.url and requested.append(request.url))
    page.goto(CHAPTER_ONE)
    image = page.locator("article div.body img")
    image.scroll_into_view_if_needed()
    expect(image).to_have_js_property("complete", True)
    assert [url.removeprefix(page.url.split(CHAPTER_ONE)[0]) for url in requested] == [
        "/media/diagram.png/480.webp?v=1"
    ]
    # The phone's column: the window less 1rem of padding on each side.
    assert shown_size(image) == (358, round(358 * 900 / 1600))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "huge.png",
            huge_png(),
            "“huge.png” has too many pixels: at most 100,000,000 pixels (width × height) are "
            "accepted. Scale it down and upload it again.",
        ),
        ("cat.png", HTML_PAGE, "“cat.png” holds HTML or XML, which is not accepted."),
        (
            "drawing.svg",
            SVG_WITH_SCRIPT,
            "“drawing.svg” is an SVG image, which can hold scripts: SVG is not accepted. "
            "Export the drawing as PNG or WebP and upload that.",
        ),
    ],
    ids=["huge", "html-as-png", "svg-with-script"],
)
def test_refused_uploads_say_why(browse, small_tree, name, content, message):
    page = browse(EDIT_ONE, user=role_user("ed", "Editor"))
    page.get_by_role("button", name="Image or file").click()
    page.set_input_files("#media-file", {"name": name, "mimeType": "image/png", "buffer": content})
    page.fill("#media-alt", "Something")
    page.get_by_role("button", name="Upload and insert").click()
    expect(page.locator("#media-dialog .media-error")).to_have_text(message)
    assert MediaItem.objects.count() == 0
    expect(page.locator("#id_body")).to_have_value(node("Chapter One").body)


def test_deleting_an_image_in_use_is_refused(browse, small_tree):
    uploads.add(png_upload("diagram.png"), title="Diagram", alt="A diagram", uploader=None)
    edit("Chapter One", body="![A diagram](image:diagram.png)")
    page = browse("/media/diagram.png/", user=role_user("ed", "Editor"))
    page.get_by_role("button", name="Delete “diagram.png”").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(
        "“diagram.png” was not deleted: 1 page uses it. Remove it from this page first:"
    )
    expect(alert.get_by_role("link", name="Chapter One")).to_have_attribute("href", CHAPTER_ONE)
    assert MediaItem.objects.count() == 1


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_media_pages_have_no_accessibility_violations(browse, small_tree, color_scheme, run_tasks):
    editor = role_user("ed", "Editor")
    uploads.add(png_upload("diagram.png"), title="Diagram", alt="A diagram", uploader=editor)
    run_tasks()
    edit(
        "Chapter One",
        body="![A diagram](image:diagram.png)\n\n![A plot](image:plot.png)\n\n[notes](file:n.pdf)",
    )
    pages = {
        "a page with images": CHAPTER_ONE,
        "the library": "/media/",
        "an item": "/media/diagram.png/",
        "broken links": "/links/broken/",
    }
    found = {}
    for name, path in pages.items():
        page = browse(path, color_scheme=color_scheme, user=editor)
        found[name] = violations(page)
    page = browse(EDIT_ONE, color_scheme=color_scheme, user=editor)
    page.get_by_role("button", name="Image or file").click()
    expect(page.locator("#media-picker button")).to_have_count(1)
    found["the editor's window"] = violations(page)
    assert found == {name: [] for name in [*pages, "the editor's window"]}
