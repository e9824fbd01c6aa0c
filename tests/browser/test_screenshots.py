"""Screenshots of the home page, a chapter, a section and search results, at desktop and phone
widths, light and dark, and of the phone's contents drawer.

Saved to screenshots/<database>/ (git ignores it) for people to look at; the test checks
that each was written at its viewport's size.
"""

import struct

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from chapters.models import Node, Notification, PendingChange
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.helpers import edit, node, role_user

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


def test_screenshots_of_the_editors_loop(browse, small_tree):
    """The review queue, a change with a comment on a line, a sent-back banner, the
    notifications and the outline with a branch open, at desktop and phone widths (issue 27;
    docs/images/editing/ keeps those looked at)."""
    edit("Chapter One", status="published", body="First line.\n\nSecond line.")
    author, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")
    first = Node.history.filter(id=node("Chapter One").pk).first()
    waiting = PendingChange.objects.create(
        node=node("Chapter One"), base_revision=first.history_id, title="Chapter One",
        status="published", parent=node("Section A1"), summary="Clearer", author=author,
        body="First line.\n\nSecond line, clearer.",
    )  # fmt: skip
    waiting.comments.create(author=reviewer, line="new-3", text="Clearer how? Say what it is for.")
    returned = PendingChange.objects.create(
        node=node("Chapter Two"), title="Chapter Two",
        base_revision=Node.history.filter(id=node("Chapter Two").pk).first().history_id,
        status="published", parent=node("Section A1"), body="Draft.", author=author,
        state="sent_back", reviewer=reviewer, comment="Add an example before the definition.",
        decided=timezone.now(),
    )  # fmt: skip
    Notification.objects.create(
        recipient=reviewer, key="a", subject="A change to “Chapter One” by ed waits for review",
        body=".\n", url=waiting.get_absolute_url(),
    )  # fmt: skip
    Notification.objects.create(
        recipient=reviewer, key="b", subject="“Chapter Five” was changed by ed", body=".\n",
        url="/area-b/section-b1/chapter-five/", read=timezone.now(),
    )  # fmt: skip
    shots = {
        "queue": (reviewer, "/review/"),
        "change": (reviewer, waiting.get_absolute_url()),
        "notifications": (reviewer, "/notifications/"),
        "sent-back": (author, "/area-a/section-a1/chapter-two/"),
        "outline": (author, "/outline/area-a/"),
    }
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = {}
    for name, (user, path) in shots.items():
        for width_name, viewport in VIEWPORTS.items():
            page = browse(path, user=user, viewport=viewport)
            if name == "outline":
                page.get_by_role("link", name="Open “Section A1”").click()
                expect(page.locator(".outline-branch .outline-row")).to_have_count(3)
            target = SCREENSHOTS / f"editing-{name}-{width_name}.png"
            page.screenshot(path=target, full_page=True)
            saved[target.name] = png_size(target)[0]
    assert returned.state == "sent_back"
    assert saved == {
        f"editing-{name}-{width_name}.png": viewport["width"]
        for name in shots
        for width_name, viewport in VIEWPORTS.items()
    }


DIAGRAMS = (
    "A kernel's way from the graph to the device, drawn by Graphviz on the server:\n\n"
    '```dot\ndigraph {\n  label="Compiling a model"; rankdir=LR; node [shape=box];\n'
    '  Model -> Fused -> Lowered -> Kernel;\n  Model -> Kernel [style=dashed, label="eager"];\n}\n'
    "```\n\nThe same steps as a Mermaid flowchart, drawn in the browser:\n\n"
    "```mermaid\nflowchart LR\n  G[Model] --> F[Fused]\n  F --> L[Lowered]\n"
    "  L --> K[Kernel]\n  G -. eager .-> K\n```\n"
)


def test_screenshots_of_diagrams(browse, small_tree):
    """A chapter with a Graphviz and a Mermaid diagram, at desktop and phone widths, light and
    dark (issue 29; docs/images/learners/ keeps those looked at)."""
    edit("Chapter Four", body=DIAGRAMS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = {}
    for width_name, viewport in VIEWPORTS.items():
        for scheme in ["light", "dark"]:
            page = browse(
                "/area-a/section-a2/chapter-four/", viewport=viewport, color_scheme=scheme
            )
            expect(page.locator("body.diagrams-drawn")).to_have_count(1)
            target = SCREENSHOTS / f"diagrams-{width_name}-{scheme}.png"
            page.screenshot(path=target, full_page=True)
            saved[target.name] = png_size(target)[0]
    assert saved == {
        f"diagrams-{width_name}-{scheme}.png": viewport["width"]
        for width_name, viewport in VIEWPORTS.items()
        for scheme in ["light", "dark"]
    }
