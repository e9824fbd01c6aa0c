"""The reader's layout in a browser (issue 29, "The reader, finished"): wide tables and
formulas scroll in their own box, code's own fonts, the unpublished chapters' legend, the
pager on one row, the phone's search box, the breadcrumb's wrapping, a filter that forgives
typos, "On this page" beside the text from 1,000 px up."""

import pytest
from playwright.sync_api import expect

from chapters.models import Node
from tests.browser.conftest import PHONE
from tests.browser.test_accessibility import violations
from tests.browser.test_reader import shown_names
from tests.helpers import edit

pytestmark = pytest.mark.browser

CHAPTER_FOUR = "/area-a/section-a2/chapter-four/"
NARROW = {"width": 360, "height": 740}
LAPTOP = {"width": 1000, "height": 800}

# A long chapter: headings for "On this page", a five-column table of long words, a formula
# wider than a phone, inline code in a paragraph.
WIDE_BODY = "\n\n".join(
    [
        "## Measurements\n\n" + "The kernel `fused_matmul_relu` runs once per batch. " * 3,
        "| Configuration | Throughput | Latency | Memory footprint | Utilisation |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| unfused_baseline_reference | 1,234,567 tokens/s | 12.345 ms | 23,456 MiB | 87.6 % |\n"
        "| fused_matmul_relu_epilogue | 2,345,678 tokens/s | 6.789 ms | 12,345 MiB | 93.2 % |",
        "## The formula\n\n$$\n"
        + " + ".join(f"\\frac{{\\partial L}}{{\\partial w_{{{n}}}}} x_{{{n}}}" for n in range(6))
        + "\n$$",
        "## Discussion\n\n" + "A paragraph of text to read. " * 40,
    ]
)


def test_wide_table_and_formula_scroll_in_their_own_box_at_360_px(browse, small_tree):
    edit("Chapter Four", body=WIDE_BODY)
    page = browse(CHAPTER_FOUR, viewport=NARROW)
    table, formula = page.locator(".body table"), page.locator('.body math[display="block"]')
    expect(table).to_have_count(1)
    expect(formula).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    expect(page.get_by_role("table")).to_have_count(1)  # still a table to screen readers
    expect(page.get_by_role("columnheader")).to_have_count(5)
    for box in (table, formula):  # each wider than its box, which scrolls
        scroll, client = box.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert scroll > client
        assert client <= 360 - 2 * 16
        assert box.evaluate("el => getComputedStyle(el).overflowX") == "auto"


def test_wide_table_and_formula_pass_axe_on_a_phone(browse, small_tree):
    edit("Chapter Four", body=WIDE_BODY)
    page = browse(CHAPTER_FOUR, viewport=NARROW)
    assert violations(page) == []


def test_wide_table_and_formula_are_tab_stops_only_while_they_scroll(browse, small_tree):
    edit("Chapter Four", body=WIDE_BODY)
    page = browse(CHAPTER_FOUR, viewport=NARROW)
    boxes = page.locator('.body table, .body math[display="block"]')
    assert boxes.evaluate_all("all => all.map((el) => el.getAttribute('tabindex'))") == ["0", "0"]
    page.set_viewport_size({"width": 1600, "height": 900})
    expect(boxes.first).not_to_have_attribute("tabindex", "0")
    assert boxes.evaluate_all("all => all.map((el) => el.getAttribute('tabindex'))") == [None, None]


def test_code_has_its_own_fonts_and_inline_code_nearly_the_texts_size(browse, small_tree):
    edit("Chapter Four", body=WIDE_BODY + "\n\n```python\nfused = relu(a @ b)\n```\n")
    page = browse(CHAPTER_FOUR)
    style = "el => [getComputedStyle(el).fontFamily, getComputedStyle(el).fontSize]"
    mono = (
        'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", '
        '"DejaVu Sans Mono", monospace'
    )
    assert page.locator(".body p").first.evaluate(style)[1] == "16px"
    assert page.locator(".body p code").first.evaluate(style) == [mono, "14.4px"]  # was 11.7
    assert page.locator(".body pre code").evaluate(style) == [mono, "14px"]


def test_unpublished_dot_has_a_legend_and_is_read_out(browse, small_tree):
    Node.objects.exclude(title="Chapter Four").filter(kind="chapter").update(status="published")
    page = browse(CHAPTER_FOUR)
    toc = page.locator("#toc")
    legend = toc.locator(".toc-legend")
    expect(legend).to_have_text("Not yet published")
    expect(legend).to_be_visible()
    radius = "el => getComputedStyle(el, '::before').borderRadius"
    assert toc.locator(".toc-unpublished").evaluate(radius) == "50%"
    assert legend.locator(".toc-legend-dot").evaluate(radius.replace(", '::before'", "")) == "50%"
    expect(toc.get_by_role("link", name="Chapter Four")).to_have_accessible_description(
        "Not yet published"
    )
    page = browse("/area-b/section-b1/chapter-five/")
    expect(
        page.locator("#toc").get_by_role("link", name="Chapter Six")
    ).to_have_accessible_description("")
    Node.objects.filter(kind="chapter").update(status="published")
    page = browse(CHAPTER_FOUR)  # nothing unpublished: no legend
    expect(page.locator("#toc .toc-legend")).to_be_hidden()


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
@pytest.mark.parametrize(
    ("path", "back", "on"),
    [
        ("/area-a/section-a1/chapter-three/", "Chapter Two", "Section A2 → Chapter Four"),
        ("/area-b/section-b1/chapter-five/", "Section A2 → Chapter Four", "Chapter Six"),
        ("/area-a/section-a2/chapter-four/", "Section A1 → Chapter Three", "Section B1 →"),
    ],
)
def test_previous_and_next_share_one_row_across_sections(
    browse, small_tree, viewport, path, back, on
):
    page = browse(path, viewport=viewport)
    links = page.locator(".page-turns a")
    expect(links).to_have_count(2)  # in the order read: back, then on
    expect(links.nth(0)).to_contain_text(back)
    expect(links.nth(1)).to_contain_text(on)
    first, second = links.nth(0).bounding_box(), links.nth(1).bounding_box()
    assert first["y"] == second["y"]
    assert first["x"] + first["width"] < second["x"]
    row = page.locator(".page-turns").bounding_box()  # at the row's two ends
    assert first["x"] == row["x"]
    assert second["x"] + second["width"] == pytest.approx(row["x"] + row["width"], abs=0.5)


def test_phone_search_box_is_wide_enough_to_read_what_is_typed(browse, small_tree):
    page = browse(CHAPTER_FOUR, viewport=NARROW)
    header = page.locator(".site-header")
    height = header.bounding_box()["height"]
    field = page.get_by_label("Search the wiki")
    field.click()
    field.press_sequentially("graph kernel fusion")
    assert field.bounding_box()["width"] >= 240
    assert field.evaluate("el => el.scrollWidth <= el.clientWidth")  # all of it in view
    assert header.bounding_box()["height"] == height  # still one row
    field.blur()
    expect(page.locator(".site-name")).to_be_visible()


def test_breadcrumb_wraps_without_a_leading_separator(browse, small_tree):
    edit("Section A2", title="A Section Whose Name Is Long Enough to Wrap")
    chapter = edit("Chapter Four", title="A Chapter With a Long Name on a Narrow Phone")
    page = browse(chapter.get_absolute_url(), viewport=NARROW)
    items = page.locator(".breadcrumb li")
    expect(items).to_have_count(4)
    left = page.locator(".breadcrumb ol").bounding_box()["x"]
    # Each line's first item, and where its text starts: at the list's left edge.
    starts = items.evaluate_all(
        """items => items.filter((li, i) => i === 0 ||
            li.getBoundingClientRect().top > items[i - 1].getBoundingClientRect().top)
          .map((li) => {
            const range = document.createRange();
            range.selectNodeContents(li);
            return [li.textContent.trim(), range.getClientRects()[0].left];
          })"""
    )
    assert len(starts) >= 2  # it wraps
    assert [x for _, x in starts] == [left] * len(starts)
    separators = items.evaluate_all(
        "items => items.map((li) => getComputedStyle(li, '::after').content)"
    )
    assert separators == ['"/" / ""', '"/" / ""', '"/" / ""', "none"]


def test_contents_filter_forgives_typos_as_search_does(browse, small_tree):
    edit("Chapter Five", title="Kernel Fusion")
    edit("Chapter Six", title="Operator Kernels")
    page = browse(CHAPTER_FOUR)
    field = page.get_by_label("Filter the chapters")
    status = page.locator(".toc-filter-status")
    for typed in ["Kernal Fusion", "kernel fusoin", "kernel fuion", "kernell fusion"]:
        field.fill(typed)  # a letter changed, two swapped, one missing, one too many
        assert shown_names(page) == ["Area B", "Section B1", "Kernel Fusion"], typed
        expect(status).to_have_text("1 match")
    field.fill("kernal")  # also the start of a longer word
    assert shown_names(page) == ["Area B", "Section B1", "Kernel Fusion", "Operator Kernels"]
    field.fill("kernal fuzion")  # two words, each one edit away
    assert shown_names(page) == ["Area B", "Section B1", "Kernel Fusion"]
    field.fill("kernal fuzzion")  # one of them two edits away
    assert shown_names(page) == []
    field.fill("aera b")  # under five letters: as typed only
    expect(status).to_have_text("No chapters match.")


@pytest.mark.parametrize("width", [1000, 1280])
def test_on_this_page_stands_beside_the_text_from_1000_px(browse, small_tree, width):
    edit("Chapter Four", body=WIDE_BODY)
    page = browse(CHAPTER_FOUR, viewport={"width": width, "height": 800})
    rail = page.get_by_role("navigation", name="On this page")
    text, box = page.locator("main .body").bounding_box(), rail.bounding_box()
    assert box["x"] >= text["x"] + text["width"]  # on the right of the text
    assert box["y"] < text["y"]  # beside it, not above it
    assert box["x"] + box["width"] <= width
    assert text["width"] >= 480  # about 55 characters still
    assert page.evaluate("document.documentElement.scrollWidth") == width


def test_on_this_page_stays_above_the_text_below_1000_px(browse, small_tree):
    edit("Chapter Four", body=WIDE_BODY)
    page = browse(CHAPTER_FOUR, viewport={"width": 999, "height": 800})
    rail = page.get_by_role("navigation", name="On this page").bounding_box()
    assert rail["y"] + rail["height"] <= page.locator("main .body").bounding_box()["y"]


def test_no_page_scrolls_sideways_at_360_px(browse, small_tree):
    edit("Chapter Four", body=WIDE_BODY)
    widths = {}
    for path in ["/", "/area-a/", "/area-a/section-a2/", CHAPTER_FOUR, "/search/?q=chapter"]:
        page = browse(path, viewport=NARROW)
        widths[path] = page.evaluate("document.documentElement.scrollWidth")
    assert widths == dict.fromkeys(widths, 360)
