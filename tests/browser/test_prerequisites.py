"""Prerequisites in the browser (chapters/prerequisites.py, static/js/progress.js): "Before
this" with the reader's ticks, "A path to this chapter" without the chapters done, an area's
graph drawn and coloured by the reader's progress, axe on each, and the screenshots
docs/images/learners/ keeps."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node

pytestmark = pytest.mark.browser

ONE = "/area-a/section-a1/chapter-one/"
THREE = "/area-a/section-a1/chapter-three/"


def requires(title, *titles):
    """Give the chapter ``title`` the prerequisites ``titles``, in order."""
    edit(title, requires=[node(each).pk for each in titles])


def mark_done(page):
    """Press "Mark as done" and wait until the page says it is done."""
    page.get_by_role("button", name="Mark as done").click()
    expect(page.locator(".done-button")).to_have_text("Done ✓")


def test_prerequisites_before_this_with_a_tick_the_path_and_the_graph(browse, small_tree):
    requires("Chapter Two", "Chapter Four")
    requires("Chapter Three", "Chapter One", "Chapter Two")
    page = browse(ONE)
    mark_done(page)
    page.goto(THREE)
    before = page.locator(".before-this")
    expect(before.locator(".done-tick")).to_have_count(1)
    assert before.locator("a").all_inner_texts() == ["Chapter One", "Chapter Two"]
    assert before.locator("a:has(+ .done-tick)").all_inner_texts() == ["Chapter One"]
    assert before.locator(".done-tick").inner_text() == "✓\n(done)"
    page.locator(".prerequisite-path summary").click()
    expect(page.locator(".prerequisite-path li:visible")).to_have_count(2)
    assert page.locator(".prerequisite-path li:visible").all_inner_texts() == [
        "Chapter Four",
        "Chapter Two",
    ]
    assert violations(page) == []

    page.get_by_role("link", name="Prerequisites in Area A").click()
    graph = page.locator("figure.prerequisite-graph svg")
    expect(graph).to_be_visible()
    box = graph.bounding_box()
    assert box["width"] > 200 and box["height"] > 50
    done = page.locator("a.prerequisite-node.is-done")
    expect(done).to_have_count(1)
    assert done.get_attribute("href") == ONE
    fill = done.locator("path").first.evaluate("path => getComputedStyle(path).fill")
    assert fill != "none"
    assert page.locator("a.prerequisite-node:not(.is-done)").count() == 3
    assert violations(page) == []
    page.set_viewport_size(PHONE)  # the graph scrolls in its own box, never the page
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    page.set_viewport_size(DESKTOP)
    page.locator("a.prerequisite-node[href='/area-a/section-a2/chapter-four/']").click()
    expect(page).to_have_url(f"{page.url.split('/area-a')[0]}/area-a/section-a2/chapter-four/")


ML = "/ml-systems"
EDGES = {
    "GPU Execution and Memory": ["GPU Architecture"],
    "CUDA Programming": ["GPU Execution and Memory"],
    "GPU Kernel Optimization": ["CUDA Programming"],
    "Tensor Runtimes": ["GPU Execution and Memory"],
    "ML Compiler Foundations": ["Tensor Runtimes"],
    "Graph Optimization and Kernel Fusion": ["ML Compiler Foundations", "GPU Kernel Optimization"],
    "Inference Runtimes": ["Graph Optimization and Kernel Fusion"],
    "Quantization": ["Inference Runtimes"],
}


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_prerequisites_screenshots(browse, curriculum, color_scheme):
    """The seed chapter's "Before this" with a tick, and ML Systems' graph with the chapters
    done filled in (docs/images/learners/ keeps those looked at)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for title, titles in EDGES.items():
        requires(title, *titles)
    page = browse(f"{ML}/gpu-computing/gpu-architecture/", color_scheme=color_scheme)
    mark_done(page)
    page.goto(f"{ML}/runtimes-and-frameworks/tensor-runtimes/")
    mark_done(page)
    page.goto(f"{ML}/ml-compilers/ml-compiler-foundations/")
    mark_done(page)
    page.goto(f"{ML}/ml-compilers/graph-optimization-and-kernel-fusion/")
    expect(page.locator(".before-this .done-tick")).to_have_count(1)
    page.locator(".prerequisite-path summary").click()
    page.screenshot(path=SCREENSHOTS / f"learners-prerequisites-chapter-{color_scheme}.png")
    assert violations(page) == []
    page.goto("/prerequisites/ml-systems/")
    expect(page.locator("a.prerequisite-node.is-done")).to_have_count(3)
    page.screenshot(
        path=SCREENSHOTS / f"learners-prerequisites-graph-{color_scheme}.png", full_page=True
    )
    assert violations(page) == []
