"""The editors' loop in a browser (issue 27): the review round trip with a comment and both
people told, leaving the editor with unsaved text, the shortcut sheet, and the preview's
headings in the page's own size; axe on the new pages."""

import re
import time

import pytest
from playwright.sync_api import expect

from chapters.models import EditDraft, PendingChange
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node, role_user

pytestmark = pytest.mark.browser

EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
CHAPTER_ONE = "/area-a/section-a1/chapter-one/"


def landed(read, seconds=10):
    """Return ``read()`` once it is not None: a beacon is sent as the page goes, and the
    server may store it after the next page has loaded."""
    deadline = time.monotonic() + seconds
    while (found := read()) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_review_round_trip_send_back_with_a_comment_edit_approve(browse, small_tree, run_tasks):
    edit("Chapter One", status="published", body="The published text.")
    author, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")

    editor = browse(EDIT_ONE, user=author)
    editor.fill("#id_body", "The first try.")
    with editor.expect_navigation():
        editor.click("button[name=save]")
    run_tasks()

    desk = browse(CHAPTER_ONE, user=reviewer)
    expect(desk.locator(".account .review-link")).to_have_text("Review (1)")
    expect(desk.locator(".account .notifications-link")).to_have_text("Notifications (1)")
    desk.locator(".account .review-link").click()
    desk.get_by_role("link", name="Approve or send back").click()
    desk.locator(".line-comment a").first.click()
    desk.fill("#id_text", "Which try?")
    with desk.expect_navigation():
        desk.get_by_role("button", name="Add comment").click()
    expect(desk.locator(".diff-comment .comment-text")).to_have_text("Which try?")
    desk.fill("#id_comment", "Say what the text is for.")
    with desk.expect_navigation():
        desk.get_by_role("button", name="Send back").click()
    run_tasks()

    editor.goto(CHAPTER_ONE)
    expect(editor.locator(".account .notifications-link")).to_have_text("Notifications (2)")
    banner = editor.locator(".page-tools .sent-back-note")
    expect(banner).to_contain_text("Your change was sent back by rev: “Say what the text is for.”")
    banner.get_by_role("link", name="Continue editing").click()
    expect(editor.locator("#id_body")).to_have_value("The first try.")
    editor.fill("#id_body", "The second try, for learners.")
    with editor.expect_navigation():
        editor.click("button[name=save]")
    run_tasks()

    desk.goto("/review/")
    desk.get_by_role("link", name="Approve or send back").click()
    desk.fill("#id_comment", "Clear now.")
    with desk.expect_navigation():
        desk.get_by_role("button", name="Approve").click()
    expect(desk.locator("article div.body")).to_have_text("The second try, for learners.")
    run_tasks()

    editor.goto("/notifications/")
    expect(editor.locator(".notification-list li a").first).to_have_text(
        "Unread: The change to “Chapter One” by ed was approved by rev"
    )
    editor.locator(".notification-list li a").first.click()
    expect(editor).to_have_url(re.compile(r"/review/\d+/$"))
    expect(editor.locator(".review-comment")).to_have_text("Comment: Clear now.")
    assert [c.state for c in PendingChange.objects.order_by("pk")] == ["sent_back", "approved"]


def test_leaving_the_editor_with_unsaved_text_asks_and_keeps_a_draft(browse, small_tree):
    author = role_user("ed", "Editor")
    page = browse(EDIT_ONE, user=author)
    asked = []

    def answer(dialog):
        asked.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    page.locator("#id_body").press_sequentially("Typed just now.")
    page.goto(CHAPTER_ONE)  # at once: before the every-3-seconds draft
    assert asked == ["beforeunload"]
    expect(page).to_have_url(re.compile(f"{CHAPTER_ONE}$"))
    draft = landed(lambda: EditDraft.objects.filter(user=author).first())
    assert draft is not None, "the draft's beacon never landed"
    assert draft.body == f"Typed just now.{node('Chapter One').body}"  # typed at the start

    page.goto(EDIT_ONE)
    page.goto(CHAPTER_ONE)  # nothing typed: nothing asked
    assert asked == ["beforeunload"]


def test_question_mark_opens_the_shortcut_sheet(browse, small_tree):
    page = browse(CHAPTER_ONE)
    page.keyboard.press("?")
    sheet = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(sheet).to_be_visible()
    expect(sheet.locator("dt")).to_have_text(["/", "←", "→", "D", "?"])
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()

    editor = browse(EDIT_ONE, user=role_user("ed", "Editor"))
    editor.locator("h1").click()
    editor.keyboard.press("?")
    expect(editor.get_by_role("dialog").locator("dt")).to_have_text(
        ["/", "←", "→", "D", "?", "Ctrl+S", "Ctrl+Enter", "Ctrl+B", "[["]
    )


def test_the_preview_s_headings_have_the_page_s_size(browse, small_tree):
    edit("Chapter One", body="## A heading\n\nText.")
    reader = browse(CHAPTER_ONE)
    size = reader.locator("article div.body h2").evaluate("h => getComputedStyle(h).fontSize")
    editor = browse(EDIT_ONE, user=role_user("ed", "Editor"))
    preview = editor.locator("#preview").get_by_role("heading", name="A heading", level=2)
    expect(preview).to_be_visible()
    assert preview.evaluate("h => getComputedStyle(h).fontSize") == size
    assert node("Chapter One").body == "## A heading\n\nText."


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_the_loop_s_pages_have_no_accessibility_violations(browse, small_tree, color_scheme):
    edit("Chapter One", status="published", body="One.\n\nTwo.")
    author, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")
    first = node("Chapter One").history.order_by("history_id").first()
    change = PendingChange.objects.create(
        node=node("Chapter One"), base_revision=first.history_id, title="Chapter One",
        status="published", body="One.\n\nTwo, better.", summary="Clearer", author=author,
        state="sent_back", reviewer=reviewer, comment="Say why.",
    )  # fmt: skip
    change.comments.create(author=reviewer, line="new-3", text="Better how?")
    pages = [
        (reviewer, "/notifications/"),
        (reviewer, change.get_absolute_url()),
        (author, CHAPTER_ONE),
        (author, f"{EDIT_ONE}?change={change.pk}"),
    ]
    for user, path in pages:
        page = browse(path, user=user, color_scheme=color_scheme)
        assert violations(page) == [], path
