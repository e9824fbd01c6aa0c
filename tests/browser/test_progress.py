"""A reader's progress in the browser (static/js/progress.js): "Mark as done" and the D key,
the ticks in the contents and in a section's list, "N of M chapters done" and "Continue
where you left off" on the home page, signed out (localStorage) and signed in (the JSON of
chapters/progress.py), the join of a browser's chapters on sign-in, axe on each, and the
screenshots docs/images/learners/ keeps."""

import json

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from chapters.models import ChapterDone
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node

pytestmark = pytest.mark.browser

ONE = "/area-a/section-a1/chapter-one/"
TWO = "/area-a/section-a1/chapter-two/"
FOUR = "/area-a/section-a2/chapter-four/"
PASSWORD = "secret-words-123"


@pytest.fixture
def reader(db):
    """A signed-in reader without any role."""
    return get_user_model().objects.create_user("reader", password=PASSWORD)


def ticked(page):
    """Return the names of the chapters with a tick in "All chapters", in order."""
    return page.locator("#toc li:has(> .done-tick) > a").all_text_contents()


def mark_done(page):
    """Press "Mark as done" and wait until the page says it is done."""
    page.get_by_role("button", name="Mark as done").click()
    expect(page.locator(".done-button")).to_have_text("Done ✓")


def progress_texts(page):
    """Return the visible progress lines of the page, in order."""
    return page.locator(".progress:visible .progress-text").all_inner_texts()


def test_progress_signed_out_marks_with_the_button_and_the_key(browse, small_tree):
    page = browse(ONE)
    button = page.get_by_role("button", name="Mark as done")
    expect(button).to_be_visible()
    assert ticked(page) == []
    button.click()
    expect(page.locator(".done-button")).to_have_text("Done ✓")
    expect(page.locator(".done-status")).to_have_text("“Chapter One” marked as done.")
    assert ticked(page) == ["Chapter One"]
    assert page.locator("#toc .done-tick").first.inner_text() == "✓\n(done)"

    page.goto(TWO)
    expect(page.locator(".chapter-done")).to_be_visible()
    page.keyboard.press("d")
    expect(page.locator(".done-button")).to_have_text("Done ✓")
    assert ticked(page) == ["Chapter One", "Chapter Two"]
    assert page.evaluate("document.activeElement.tagName") == "BODY"  # the page did not jump
    page.keyboard.press("d")  # and again: not done
    expect(page.locator(".done-button")).to_have_text("Mark as done")
    expect(page.locator(".done-status")).to_have_text("“Chapter Two” marked as not done.")
    assert ticked(page) == ["Chapter One"]
    stored = json.loads(page.evaluate("localStorage.getItem('wiki-progress')"))
    assert stored == {"done": {str(node("Chapter One").pk): ONE}}

    page.goto("/")
    expect(page.locator(".continue-reading")).to_be_visible()
    link = page.locator(".continue-link")
    assert (link.inner_text(), link.get_attribute("href")) == (
        "Continue where you left off: Chapter Two",
        TWO,
    )
    assert progress_texts(page) == ["1 of 4 chapters done", "1 of 3 done", "0 of 2 chapters done"]
    assert page.locator(".area-card .progress progress").first.evaluate(
        "bar => [bar.value, bar.max]"
    ) == [
        1,
        4,
    ]
    page.goto("/area-a/section-a1/")
    assert progress_texts(page) == ["1 of 3 chapters done"]
    assert page.locator(".children li:has(.done-tick) > a").all_inner_texts() == ["Chapter One"]
    assert violations(page) == []


def test_progress_signed_out_follows_a_chapter_that_moved(browse, small_tree):
    page = browse(ONE)
    mark_done(page)
    edit("Chapter One", slug="chapter-1")
    page.goto("/area-a/section-a1/chapter-1/")
    expect(page.locator(".done-button")).to_have_text("Done ✓")
    assert ticked(page) == ["Chapter One"]
    stored = json.loads(page.evaluate("localStorage.getItem('wiki-progress')"))
    assert stored == {"done": {str(node("Chapter One").pk): "/area-a/section-a1/chapter-1/"}}


def test_progress_is_hidden_before_any_chapter_is_done(browse, small_tree):
    page = browse("/")
    expect(page.locator(".area-cards")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert page.locator(".continue-reading").is_hidden()
    assert progress_texts(page) == []


def test_progress_signed_in_is_stored_for_the_account(browse, small_tree, reader):
    page = browse(FOUR, user=reader)
    mark_done(page)
    assert list(ChapterDone.objects.values_list("user__username", "node__title")) == [
        ("reader", "Chapter Four")
    ]
    assert page.evaluate("localStorage.getItem('wiki-progress')") is None
    other = browse("/", user=reader)  # another browser: the account's progress
    expect(other.locator(".continue-link")).to_have_text(
        "Continue where you left off: Chapter Four"
    )
    assert progress_texts(other) == ["1 of 4 chapters done", "1 of 1 done", "0 of 2 chapters done"]
    assert violations(other) == []
    other.goto(FOUR)
    expect(other.locator(".done-button")).to_have_text("Done ✓")
    other.keyboard.press("d")
    expect(other.locator(".done-button")).to_have_text("Mark as done")
    assert not ChapterDone.objects.exists()


def test_progress_signed_out_joins_the_account_on_sign_in(browse, small_tree, reader):
    page = browse(ONE)
    mark_done(page)
    page.goto(FOUR)
    mark_done(page)
    page.get_by_role("link", name="Sign in").first.click()
    page.get_by_label("Username").fill("reader")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator(".account")).to_contain_text("Signed in as reader")
    expect(page.locator(".done-button")).to_have_text("Done ✓")
    page.wait_for_function("localStorage.getItem('wiki-progress') === null")
    assert sorted(ChapterDone.objects.values_list("node__title", flat=True)) == [
        "Chapter Four",
        "Chapter One",
    ]
    assert ticked(page) == ["Chapter One", "Chapter Four"]
    page.reload()  # joined once: nothing left to send
    expect(page.locator(".done-button")).to_have_text("Done ✓")
    assert ChapterDone.objects.count() == 2


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_progress_screenshots(browse, curriculum, color_scheme):
    """The seed chapter marked done with ticks in the contents, its section and the home page
    with their progress, at desktop and phone widths (docs/images/learners/ keeps those
    looked at)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seed = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"
    page = browse("/mathematics/foundations/proofs-and-logic/", color_scheme=color_scheme)
    mark_done(page)
    for path in ["/mathematics/discrete-structures/combinatorics/", seed]:
        page.goto(path)
        mark_done(page)
    page.goto("/ml-systems/ml-compilers/ml-compiler-foundations/")
    mark_done(page)
    for name, viewport in {"desktop": DESKTOP, "phone": PHONE}.items():
        page.set_viewport_size(viewport)
        page.goto(seed)
        expect(page.locator(".done-button")).to_have_text("Done ✓")
        page.locator(".chapter-done").scroll_into_view_if_needed()
        page.screenshot(path=SCREENSHOTS / f"learners-chapter-{name}-{color_scheme}.png")
        page.goto("/ml-systems/ml-compilers/")
        expect(page.locator(".children .done-tick")).to_have_count(2)
        page.screenshot(path=SCREENSHOTS / f"learners-section-{name}-{color_scheme}.png")
        page.goto("/")
        expect(page.locator(".continue-reading")).to_be_visible()
        page.screenshot(path=SCREENSHOTS / f"learners-home-{name}-{color_scheme}.png")
    assert violations(page) == []
