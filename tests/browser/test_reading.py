"""Reading in a browser: keyboard, search, the table of contents, phones, dark mode, print,
and pages with JavaScript off."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE

pytestmark = pytest.mark.browser

CHAPTER_TWO = "/area-a/section-a1/chapter-two/"
LAST_CHAPTER = "/practice-fundamentals/career/pricing-and-contracts/"
LIGHT_TEXT, DARK_TEXT = "rgb(31, 35, 40)", "rgb(230, 237, 243)"


def expect_text_colour(page, colour):
    """Wait until the page's body text has the computed colour ``colour``."""
    expect(page.locator("body")).to_have_css("color", colour)


def press_to(page, key, url):
    """Press ``key`` and wait for the page at ``url`` to have loaded (with its scripts)."""
    with page.expect_navigation(url=url):
        page.keyboard.press(key)


def test_arrow_keys_go_to_the_previous_and_next_chapter(browse, live_server, small_tree):
    page = browse(CHAPTER_TWO)
    press_to(page, "ArrowRight", f"{live_server.url}/area-a/section-a1/chapter-three/")
    page.keyboard.press("ArrowRight")  # the last chapter of its section: no next
    press_to(page, "ArrowLeft", f"{live_server.url}{CHAPTER_TWO}")
    press_to(page, "ArrowLeft", f"{live_server.url}/area-a/section-a1/chapter-one/")


def test_arrow_keys_in_a_field_stay_in_the_field(browse, live_server, small_tree):
    page = browse(CHAPTER_TWO)
    page.fill("#site-search-q", "kernel")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Alt+ArrowRight")
    page.wait_for_timeout(300)  # time enough for a navigation to start
    assert page.url == f"{live_server.url}{CHAPTER_TWO}"
    assert page.input_value("#site-search-q") == "kernel"


def test_slash_focuses_the_header_search_box_and_searches(browse, live_server, small_tree):
    page = browse(CHAPTER_TWO)
    page.keyboard.press("/")
    expect(page.locator("#site-search-q")).to_be_focused()
    page.keyboard.type("Five")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/search/?q=Five")
    assert page.input_value("#site-search-q") == "Five"  # without the "/"
    assert page.locator(".result-title").all_inner_texts() == ["Chapter Five"]


def test_skip_link_is_the_first_stop_and_moves_to_the_content(browse, small_tree):
    page = browse(CHAPTER_TWO)
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    expect(skip).to_be_focused()
    assert skip.inner_text() == "Skip to content"
    assert skip.bounding_box()["y"] >= 0  # moved into view when focused
    assert skip.evaluate("link => getComputedStyle(link).outlineStyle") == "solid"
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("Tab")  # the next stop is in the content: the breadcrumb
    assert page.evaluate("document.activeElement.textContent") == "Wiki"


def test_table_of_contents_opens_the_path_to_the_page(browse, small_tree):
    page = browse("/area-a/section-a2/chapter-four/")
    toc = page.locator(".sidebar")
    for title, visible in [
        ("Section A1", True),
        ("Chapter One", False),  # Section A1 is closed
        ("Chapter Four", True),
        ("Area B", True),
        ("Section B1", False),  # Area B is closed
    ]:
        link = toc.get_by_role("link", name=title, exact=True)
        assert link.is_visible() is visible, title
    expect(toc.locator('[aria-current="page"]')).to_have_text("Chapter Four")


def test_table_of_contents_collapses_and_opens_each_section(browse, small_tree):
    page = browse("/area-a/section-a2/chapter-four/")
    toc = page.locator(".sidebar")
    toc.locator("summary", has_text="Contents of “Section A1”").click()
    expect(toc.get_by_role("link", name="Chapter One")).to_be_visible()
    toc.locator("summary", has_text="Contents of “Area A”").click()
    expect(toc.get_by_role("link", name="Section A1")).to_be_hidden()
    expect(toc.get_by_role("link", name="Chapter Four")).to_be_hidden()
    toc.locator("summary", has_text="Contents of “Area B”").press("Enter")  # by keyboard
    expect(toc.get_by_role("link", name="Section B1")).to_be_visible()


def test_table_of_contents_scrolls_the_current_page_into_view(browse, curriculum):
    page = browse(LAST_CHAPTER, viewport={"width": 1280, "height": 300})  # a table taller than that
    sidebar = page.locator(".sidebar")
    current = sidebar.locator('[aria-current="page"]')
    expect(current).to_have_text("Pricing and Contracts")
    assert sidebar.evaluate("sidebar => sidebar.scrollTop") > 0
    box, view = current.bounding_box(), sidebar.bounding_box()
    assert view["y"] <= box["y"] and box["y"] + box["height"] <= view["y"] + view["height"]
    assert page.evaluate("window.scrollY") == 0  # the sidebar scrolled, not the page


def test_phone_keeps_the_table_of_contents_in_a_drawer_behind_a_button(browse, small_tree):
    page = browse("/area-a/section-a2/chapter-four/", viewport=PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    toc, button = page.locator("#toc"), page.get_by_role("button", name="Contents")
    expect(toc).to_be_hidden()
    expect(button).to_have_attribute("aria-expanded", "false")
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(toc).to_be_visible()
    drawer = page.get_by_role("dialog", name="Contents")
    expect(drawer).to_have_attribute("aria-modal", "true")
    expect(drawer).to_have_css("transform", "none")  # slid in
    box = drawer.bounding_box()  # over the page, from its left edge, the window's height
    assert (box["x"], box["y"], box["height"]) == (0, 0, PHONE["height"])
    expect(toc.locator('[aria-current="page"]')).to_be_focused()
    page.keyboard.press("Escape")
    expect(toc).to_be_hidden()
    expect(button).to_be_focused()


def test_desktop_shows_the_table_of_contents_without_a_button(browse, small_tree):
    page = browse("/area-a/section-a2/chapter-four/")
    expect(page.locator("#toc")).to_be_visible()
    expect(page.get_by_role("button", name="Contents")).to_be_hidden()
    main, sidebar = page.locator("main").bounding_box(), page.locator(".sidebar").bounding_box()
    assert sidebar["x"] + sidebar["width"] <= main["x"]  # beside the page, on its left


def test_dark_mode_follows_the_system_setting(browse, small_tree):
    light = browse(CHAPTER_TWO, color_scheme="light")
    dark = browse(CHAPTER_TWO, color_scheme="dark")
    expect_text_colour(light, LIGHT_TEXT)
    expect_text_colour(dark, DARK_TEXT)
    expect(light.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "false")
    expect(dark.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "true")


def test_dark_mode_toggle_is_remembered(browse, small_tree):
    page = browse(CHAPTER_TWO, color_scheme="light")
    toggle = page.get_by_role("button", name="Dark mode")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect_text_colour(page, DARK_TEXT)
    page.goto("/area-b/")  # another page, later
    expect_text_colour(page, DARK_TEXT)
    assert page.evaluate("localStorage.getItem('theme')") == "dark"
    page.get_by_role("button", name="Dark mode").click()  # back to the system's colours
    expect_text_colour(page, LIGHT_TEXT)
    assert page.evaluate("localStorage.getItem('theme')") is None
    page.reload()
    expect_text_colour(page, LIGHT_TEXT)


def test_light_choice_is_remembered_on_a_dark_system(browse, small_tree):
    page = browse(CHAPTER_TWO, color_scheme="dark")
    page.get_by_role("button", name="Dark mode").click()
    page.reload()
    expect_text_colour(page, LIGHT_TEXT)
    expect(page.get_by_role("button", name="Dark mode")).to_have_attribute("aria-pressed", "false")


def test_print_shows_the_body_without_navigation_and_with_link_targets(
    browse, live_server, small_tree
):
    page = browse("/area-a/section-a1/")
    page.emulate_media(media="print")
    for selector in [".site-header", ".sidebar", ".breadcrumb", ".history-link", ".site-footer"]:
        expect(page.locator(selector)).to_be_hidden()
    link = page.locator(".children a", has_text="Chapter One")
    after = link.evaluate("a => getComputedStyle(a, '::after').content")
    assert after == f'" ({live_server.url}/area-a/section-a1/chapter-one/)"'
    header = page.locator(".print-header")
    expect(header).to_be_visible()
    today = page.evaluate(
        "new Date().toLocaleDateString('en-US', {year: 'numeric', month: 'short', day: 'numeric'})"
    )
    expect(header).to_have_text(
        f"Curriculum Wiki · {live_server.url}/area-a/section-a1/ · Printed {today}"
    )
    expect_text_colour(page, "rgb(0, 0, 0)")


def test_pages_work_without_javascript(browse, small_tree):
    page = browse("/area-a/section-a2/chapter-four/", java_script=False, color_scheme="dark")
    expect_text_colour(page, DARK_TEXT)  # the system's setting still applies
    for name in ["Dark mode", "Contents"]:  # the toggles need JavaScript
        expect(page.get_by_role("button", name=name)).to_be_hidden()
    expect(page.get_by_label("Filter the chapters")).to_be_hidden()  # so does the filter
    toc = page.locator("#toc")
    expect(toc.get_by_role("link", name="Chapter One")).to_be_hidden()
    toc.locator("summary", has_text="Contents of “Section A1”").click()
    expect(toc.get_by_role("link", name="Chapter One")).to_be_visible()
    page.fill("#site-search-q", "Five")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=Five$"))

    phone = browse("/area-a/section-a2/chapter-four/", java_script=False, viewport=PHONE)
    toc = phone.locator("#toc")
    expect(toc).to_be_visible()  # after the page's content
    assert toc.bounding_box()["y"] > phone.locator("main").bounding_box()["y"]
