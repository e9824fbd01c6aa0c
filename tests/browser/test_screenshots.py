"""Screenshots of the home page, a chapter, a section and search results, at desktop and phone
widths, light and dark, and of the phone's contents drawer.

Saved to screenshots/<database>/ (git ignores it) for people to look at; the test checks
that each was written at its viewport's size.
"""

import struct

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS

pytestmark = pytest.mark.browser

PAGES = {
    "home": "/",
    "chapter": "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/",
    "section": "/ml-systems/ml-compilers/",
    "search": "/search/?q=kernel",
}
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}


def png_size(path):
    """Return the (width, height) of a PNG file, from its IHDR chunk."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_screenshots_of_the_readers_pages(browse, curriculum):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = {}
    for page_name, path in PAGES.items():
        for width_name, viewport in VIEWPORTS.items():
            for scheme in ["light", "dark"]:
                page = browse(path, viewport=viewport, color_scheme=scheme)
                target = SCREENSHOTS / f"{page_name}-{width_name}-{scheme}.png"
                page.screenshot(path=target)
                saved[target.name] = png_size(target)
    for scheme in ["light", "dark"]:
        page = browse(PAGES["chapter"], viewport=PHONE, color_scheme=scheme)
        page.get_by_role("button", name="Contents").click()
        expect(page.get_by_role("dialog", name="Contents")).to_have_css("transform", "none")
        target = SCREENSHOTS / f"drawer-phone-{scheme}.png"
        page.screenshot(path=target)
        saved[target.name] = png_size(target)
    assert saved == {
        **{
            f"{page_name}-{width_name}-{scheme}.png": (viewport["width"], viewport["height"])
            for page_name in PAGES
            for width_name, viewport in VIEWPORTS.items()
            for scheme in ["light", "dark"]
        },
        "drawer-phone-light.png": (PHONE["width"], PHONE["height"]),
        "drawer-phone-dark.png": (PHONE["width"], PHONE["height"]),
    }
