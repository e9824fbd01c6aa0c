"""The outline in a browser (issue 27): a branch opened in place, a page dragged and dropped,
moved by keyboard, and an editor's move of a published chapter going to review; axe."""

import pytest
from playwright.sync_api import expect

from chapters.models import PendingChange
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node, role_user

pytestmark = pytest.mark.browser


def titles(parent):
    """Return the titles of the pages directly in the section titled ``parent``."""
    return [child.title for child in node(parent).get_children()]


def row(page, title):
    """Return the outline's row of the page titled ``title``."""
    return page.locator(f".outline-row[data-title='{title}']")


def test_a_branch_opens_in_place_and_a_page_is_dragged_into_another_section(browse, small_tree):
    page = browse("/outline/area-a/", user=role_user("ed", "Editor"))
    branch = row(page, "Section A1").locator(".outline-branch")
    expect(branch).to_be_hidden()
    page.get_by_role("link", name="Open “Section A1”").click()
    expect(branch.locator(".outline-title")).to_have_text(
        ["Chapter One", "Chapter Two", "Chapter Three"]
    )
    page.get_by_role("link", name="Open “Section A2”").click()

    row(page, "Chapter One").locator(".outline-handle").drag_to(
        row(page, "Chapter Four").locator(".outline-line"),
        target_position={"x": 200, "y": 28},  # the lower third: after it
    )
    expect(page.locator("#outline-status")).to_have_text(
        "“Chapter One” moved after “Chapter Four”."
    )
    expect(row(page, "Section A2").locator(".outline-title")).to_have_text(
        ["Section A2", "Chapter Four", "Chapter One"]
    )
    assert titles("Section A2") == ["Chapter Four", "Chapter One"]
    assert titles("Section A1") == ["Chapter Two", "Chapter Three"]


def test_the_keyboard_moves_a_page_up_down_in_and_out(browse, small_tree):
    page = browse("/outline/area-a/section-a1/", user=role_user("ed", "Editor"))
    handle = row(page, "Chapter One").locator(".outline-handle")
    handle.focus()
    page.keyboard.press("Alt+ArrowDown")
    expect(page.locator("#outline-status")).to_have_text("“Chapter One” moved after “Chapter Two”.")
    expect(page.locator(".outline-tree > .outline-row .outline-title")).to_have_text(
        ["Chapter Two", "Chapter One", "Chapter Three"]
    )
    expect(handle).to_be_focused()
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator(".outline-tree > .outline-row .outline-title")).to_have_text(
        ["Chapter One", "Chapter Two", "Chapter Three"]
    )
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#outline-status")).to_have_text(
        "“Chapter One” is first in its section already."
    )
    assert titles("Section A1") == ["Chapter One", "Chapter Two", "Chapter Three"]

    area = browse("/outline/area-a/", user=role_user("ed2", "Editor"))
    row(area, "Section A2").locator(".outline-handle").focus()
    area.keyboard.press("Alt+ArrowRight")
    expect(area.locator("#outline-status")).to_have_text("“Section A2” moved into “Section A1”.")
    expect(row(area, "Section A1").locator(".outline-branch > .outline-row")).to_have_count(4)
    assert titles("Section A1")[-1] == "Section A2"
    area.keyboard.press("Alt+ArrowLeft")
    expect(
        area.locator(".outline-tree > .outline-row > .outline-line .outline-title")
    ).to_have_text(["Section A1", "Section A2"])
    assert titles("Area A") == ["Section A1", "Section A2"]


def test_an_editor_s_move_of_a_published_chapter_goes_to_review(browse, small_tree):
    edit("Chapter One", status="published")
    page = browse("/outline/area-a/section-a1/", user=role_user("ed", "Editor"))
    row(page, "Chapter One").locator(".outline-handle").focus()
    page.keyboard.press("Alt+ArrowDown")
    status = page.locator("#outline-status")
    expect(status).to_contain_text("Your change waits for a reviewer")
    change = PendingChange.objects.get()
    expect(status.get_by_role("link", name="See the change")).to_have_attribute(
        "href", f"/review/{change.pk}/"
    )
    expect(page.locator(".outline-tree > .outline-row .outline-title")).to_have_text(
        ["Chapter One", "Chapter Two", "Chapter Three"]
    )
    assert titles("Section A1") == ["Chapter One", "Chapter Two", "Chapter Three"]
    assert (change.target.title, change.position) == ("Chapter Two", "right")


def test_the_outline_works_without_javascript(browse, small_tree):
    page = browse("/outline/area-a/section-a1/", user=role_user("ed", "Editor"), java_script=False)
    actions = row(page, "Chapter Three").locator(".outline-actions")
    actions.locator("summary").click()
    actions.get_by_role("button", name="Move up").click()
    expect(page.locator(".messages")).to_have_text("“Chapter Three” moved before “Chapter Two”.")
    assert titles("Section A1") == ["Chapter One", "Chapter Three", "Chapter Two"]


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_the_outline_has_no_accessibility_violations(browse, small_tree, color_scheme):
    page = browse("/outline/area-a/", user=role_user("ed", "Editor"), color_scheme=color_scheme)
    page.get_by_role("link", name="Open “Section A1”").click()
    expect(row(page, "Section A1").locator(".outline-branch .outline-row")).to_have_count(3)
    row(page, "Chapter One").locator(".outline-actions summary").click()
    assert violations(page) == []
