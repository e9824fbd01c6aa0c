"""Diagrams in the browser: Graphviz's drawn on the server, Mermaid's drawn by the bundled
Mermaid in its frame, on the chapter page and the print page, under the wiki's
Content-Security-Policy (``browse`` fails a test on any console error, a refused inline
style included); and Graphviz's in the book's PDF."""

import subprocess

import pytest
from playwright.sync_api import expect

from chapters.books.content import book_of
from chapters.books.pdf import render_pdf
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node, role_user

pytestmark = pytest.mark.browser

CHAPTER_FOUR = "/area-a/section-a2/chapter-four/"
DIAGRAMS = (
    "Two diagrams.\n\n"
    '```dot\ndigraph { label="Kernels"; Load -> Fuse }\n```\n\n'
    "```mermaid\nflowchart LR\n  Read --> Write\n```\n"
)


def test_chapter_draws_a_dot_and_a_mermaid_diagram_under_the_policy(browse, small_tree):
    edit("Chapter Four", body=DIAGRAMS)
    page = browse(CHAPTER_FOUR)
    dot = page.locator(".body .diagram-dot svg")
    expect(dot).to_have_attribute("aria-label", "Kernels")
    assert dot.locator("g.node title").all_text_contents() == ["Load", "Fuse"]
    mermaid = page.locator(".body .diagram-mermaid svg")
    expect(mermaid).to_have_attribute("role", "img")
    assert mermaid.locator("g.node").count() == 2
    assert "Read" in mermaid.text_content() and "Write" in mermaid.text_content()
    expect(page.locator(".body pre.mermaid")).to_have_count(0)
    expect(page.locator("body.diagrams-drawn")).to_have_count(1)
    expect(page.locator("iframe")).to_have_count(0)  # the frame goes once it has drawn


def test_mermaid_source_shows_without_javascript(browse, small_tree):
    edit("Chapter Four", body=DIAGRAMS)
    page = browse(CHAPTER_FOUR, java_script=False)
    expect(page.locator(".body pre.mermaid")).to_have_text("flowchart LR\n  Read --> Write\n")
    expect(page.locator(".body .diagram-dot svg g.node")).to_have_count(2)


def test_pages_without_mermaid_load_no_diagram_script(browse, small_tree):
    edit("Chapter Four", body="```dot\ndigraph { a -> b }\n```\n")
    page = browse(CHAPTER_FOUR)
    scripts = page.eval_on_selector_all("script[src]", "s => s.map(e => e.getAttribute('src'))")
    assert [src for src in scripts if "diagrams" in src or "mermaid" in src] == []


def test_wide_diagrams_scroll_in_their_own_boxes_on_a_phone(browse, small_tree):
    chain = " -> ".join(f"n{i}" for i in range(12))
    flow = " --> ".join(f"n{i}" for i in range(12))
    edit(
        "Chapter Four",
        body=(
            f"```dot\ndigraph {{ rankdir=LR; {chain} }}\n```\n\n"
            f"```mermaid\nflowchart LR\n  {flow}\n```\n"
        ),
    )
    page = browse(CHAPTER_FOUR, viewport={"width": 360, "height": 740})
    expect(page.locator("body.diagrams-drawn")).to_have_count(1)
    boxes = page.locator(".body .diagram")
    assert boxes.evaluate_all("bs => bs.map(b => b.scrollWidth > b.clientWidth)") == [True, True]
    for index in range(2):
        expect(boxes.nth(index)).to_have_attribute("tabindex", "0")
    assert page.evaluate("document.documentElement.scrollWidth") == 360


def test_print_page_draws_both_diagrams(browse, small_tree, live_server):
    edit("Chapter Four", body=DIAGRAMS)
    page = browse("/print/area-a/")
    page.evaluate(
        "window.print = () => { document.body.dataset.printedDiagrams ="
        " document.querySelectorAll('.diagram-mermaid svg').length; }"
    )
    page.get_by_role("button", name="Print").click()  # prints once the diagrams are drawn
    expect(page.locator("body[data-printed-diagrams]")).to_have_attribute(
        "data-printed-diagrams", "1"
    )
    expect(page.locator(".print-chapter .diagram-mermaid svg")).to_have_count(1)
    expect(page.locator(".print-chapter .diagram-dot svg")).to_have_count(1)
    page.emulate_media(media="print")
    assert (
        page.locator(".print-chapter .diagram-dot").evaluate("d => getComputedStyle(d).breakInside")
        == "avoid"
    )
    assert page.pdf()[:5] == b"%PDF-"


def test_book_pdf_holds_the_dot_diagram_and_the_mermaid_source(small_tree, tmp_path):
    edit("Chapter Four", body=DIAGRAMS)
    pdf = tmp_path / "chapter.pdf"
    pdf.write_bytes(render_pdf(book_of(node("Chapter Four"))))
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # The diagram drawn: its labels, each where it is drawn, and not its tooltips as text.
    assert lines[lines.index("Two diagrams.") + 1 : lines.index("Two diagrams.") + 4] == [
        "Load",
        "Fuse",
        "Kernels",
    ]
    assert "Load->Fuse" not in text
    assert "Read --> Write" in lines


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_chapter_with_diagrams_has_no_accessibility_violations(browse, small_tree, color_scheme):
    failing = "```dot\ndigraph {\n```\n"
    edit("Chapter Four", body=f"{DIAGRAMS}\n{failing}")
    page = browse(CHAPTER_FOUR, color_scheme=color_scheme)
    expect(page.locator("body.diagrams-drawn")).to_have_count(1)
    expect(page.locator(".body .diagram-failed .diagram-message")).to_have_text(
        "Diagram not drawn: Graphviz could not read it: syntax error in line 2."
    )
    assert violations(page) == []


def test_mermaid_diagram_that_cannot_be_read_keeps_its_source_and_says_why(browse, small_tree):
    edit("Chapter Four", body="```mermaid\nflowchart LR\n  A -->\n```\n\nAfter.\n")
    page = browse(CHAPTER_FOUR)
    expect(page.locator("body.diagrams-drawn")).to_have_count(1)
    failed = page.locator(".body .diagram-failed")
    expect(failed.locator("pre.mermaid")).to_have_text("flowchart LR\n  A -->\n")
    expect(failed.locator(".diagram-message")).to_have_text(
        "Diagram not drawn: Mermaid could not read it: Parse error on line 4."
    )
    expect(page.locator(".body p").last).to_have_text("After.")


def test_editor_preview_draws_both_diagrams_again_as_the_text_changes(browse, small_tree):
    page = browse("/edit/area-a/section-a2/chapter-four/", user=role_user("ed", "Editor"))
    page.fill("#id_body", DIAGRAMS)
    preview = page.locator("#preview")
    expect(preview.locator(".diagram-dot svg g.node")).to_have_count(2)
    expect(preview.locator(".diagram-mermaid svg g.node")).to_have_count(2)
    page.fill("#id_body", DIAGRAMS.replace("Read --> Write", "Read --> Check --> Write"))
    expect(preview.locator(".diagram-mermaid svg g.node")).to_have_count(3)
    expect(page.locator("iframe.mermaid-frame")).to_have_count(0)
    # One diagram in the page, one stylesheet of Mermaid's kept.
    assert page.evaluate("document.adoptedStyleSheets.length") == 1
