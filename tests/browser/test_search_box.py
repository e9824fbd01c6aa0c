"""The header's search box in a browser: the top results as one types, the keyboard, and
the plain search page without JavaScript (static/js/search-box.js)."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CHAPTER = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"
SCREENS = "/work/plan/screens/search"


def test_search_box_shows_top_results_after_two_characters(browse, live_server, curriculum):
    page = browse(CHAPTER)
    box, results = page.locator("#site-search-q"), page.locator("#site-search-results")
    box.press_sequentially("q")
    page.wait_for_timeout(400)
    expect(results).to_be_hidden()
    box.press_sequentially("uant")
    expect(results.locator("[role=option]")).to_have_count(1)
    expect(box).to_have_attribute("aria-expanded", "true")
    option = results.locator("[role=option]").first
    expect(option.locator(".site-search-title")).to_have_text("Quantization")
    assert option.locator("mark").all_inner_texts() == ["Quantization"]
    expect(option.locator(".site-search-path")).to_have_text("ML Systems › Efficiency")
    page.screenshot(path=f"{SCREENS}/top-results.png")
    box.press("ArrowDown")
    expect(option).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", "site-search-results:0")
    box.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/ml-systems/efficiency/quantization/")


def test_search_box_arrows_wrap_and_escape_closes(browse, live_server, curriculum):
    page = browse(CHAPTER)
    box, results = page.locator("#site-search-q"), page.locator("#site-search-results")
    box.press_sequentially("tranformer")
    options = results.locator("[role=option]")
    expect(options).to_have_count(2)
    assert options.locator(".site-search-title").all_inner_texts() == [
        "Transformers",
        "Transformers and Language Models",
    ]
    box.press("ArrowUp")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    box.press("ArrowDown")
    expect(options.nth(0)).to_have_attribute("aria-selected", "true")
    box.press("Escape")
    expect(results).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).to_have_value("tranformer")
    box.press("Enter")  # nothing chosen: the form, the search page
    expect(page).to_have_url(f"{live_server.url}/search/?q=tranformer")
    expect(page.locator(".result-correction")).to_have_text(
        "No pages match “tranformer”. Showing results for “transformers”."
    )


def test_search_box_without_javascript_is_the_search_page(browse, live_server, curriculum):
    page = browse(CHAPTER, java_script=False)
    page.fill("#site-search-q", "backprop")
    page.press("#site-search-q", "Enter")
    expect(page).to_have_url(f"{live_server.url}/search/?q=backprop")
    assert page.locator(".result-title").all_inner_texts() == ["Backpropagation"]
