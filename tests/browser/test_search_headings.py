"""Search results open at their heading, in a browser: from the search page and from the
header's list as one types (issue 26, "Results"; chapters/search/sections.py)."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import violations
from tests.helpers import edit
from tests.test_search_headings import KERNELS

pytestmark = pytest.mark.browser

CHAPTER = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"


@pytest.fixture
def kernels(curriculum):
    """Give the kernel fusion chapter a long intro, then three sections: their headings are
    below the first screen."""
    intro = "".join(f"Paragraph {number} of the introduction.\n\n" for number in range(60))
    edit("Graph Optimization and Kernel Fusion", body=intro + KERNELS)


def at_heading(page, live_server, heading_id):
    """Check that the page opened at the heading ``heading_id``: the URL's fragment, the
    :target, and the heading on screen."""
    expect(page).to_have_url(f"{live_server.url}{CHAPTER}#{heading_id}")
    # Waited for, as the URL changes before the new page's heading is parsed.
    expect(page.locator(":target")).to_have_attribute("id", heading_id)
    expect(page.locator(f"#{heading_id}")).to_be_in_viewport()


def test_a_search_result_opens_the_page_at_its_heading(browse, live_server, kernels):
    page = browse("/search/?q=compilers+fuse")
    link = page.locator("ol.results h2.result-title a").first
    expect(link).to_have_text("Graph Optimization and Kernel Fusion, at › Fusion in compilers")
    assert violations(page) == []
    link.click()
    at_heading(page, live_server, "fusion-in-compilers")


def test_the_list_as_one_types_names_the_heading_and_opens_at_it(browse, live_server, kernels):
    page = browse("/")
    box = page.locator("#site-search-q")
    box.press_sequentially("overhead")
    option = page.locator("#site-search-results [role=option]").first
    expect(option.locator(".site-search-heading")).to_have_text(", at › Launch overhead")
    assert option.locator(".site-search-heading mark").all_inner_texts() == ["overhead"]
    assert violations(page) == []
    option.click()
    at_heading(page, live_server, "launch-overhead")
