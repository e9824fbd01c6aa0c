"""The site's editor in a browser: the preview is the saved page, two editors at once, drafts
that survive a closed tab, and the review workflow as readers and reviewers see it."""

import re

import pytest
from playwright.sync_api import expect

from chapters.models import EditDraft, Node, PendingChange
from tests.browser.test_accessibility import violations
from tests.helpers import edit, node, role_user

pytestmark = pytest.mark.browser

EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
CHAPTER_ONE = "/area-a/section-a1/chapter-one/"

BODY = """\
## Kernel fusion

Fusing $k$ kernels saves $k-1$ launches:

$$
T \\approx \\frac{\\text{bytes}}{\\text{bandwidth}}
$$

```python
def fused(x):
    return relu(x + 1)
```

!!! tip "Profile first"
    `nsys` shows the gaps between launches.

| Op | Time |
| --- | --- |
| add | 1 ms |

### Further reading

See """


def test_editor_preview_is_the_saved_page(browse, small_tree):
    page = browse("/new/area-b/section-b1/", user=role_user("ed", "Editor"))
    page.fill("#id_title", "Kernel Fusion")
    page.fill("#id_body", BODY)
    body = page.locator("#id_body")
    body.press("Control+End")
    page.keyboard.type("[[chapter fi")
    option = page.get_by_role("option", name="Area B / Section B1 / Chapter Five")
    expect(option).to_be_visible()
    page.keyboard.press("Enter")
    page.keyboard.type(".")
    expect(body).to_have_value(BODY + "[[Chapter Five]].")
    preview = page.locator("#preview")
    expect(preview.locator("a.wikilink")).to_have_attribute(
        "href", "/area-b/section-b1/chapter-five/"
    )
    expect(preview.locator("p").last).to_have_text("See Chapter Five.")
    for selector in ("h2#kernel-fusion", "math", ".highlight .k", ".admonition.tip", "table"):
        expect(preview.locator(selector).first).to_be_visible()
    previewed = preview.inner_html()

    with page.expect_navigation():
        page.keyboard.press("Control+s")

    expect(page).to_have_url(re.compile(r"/area-b/section-b1/kernel-fusion/$"))
    assert page.locator("article div.body").inner_html() == previewed
    assert node("Kernel Fusion").body == BODY + "[[Chapter Five]]."


def hold_first_request(page, url_pattern):
    """Hold the first request ``page`` sends to ``url_pattern``, unanswered; let later ones
    through.

    Returns:
        A function that waits (up to 5 s) until the first request is held and returns its
        Playwright ``Route``: ``continue_()`` sends it on.
    """
    held = []

    def route(request_route):
        if held:
            request_route.continue_()
        else:
            held.append(request_route)

    page.route(url_pattern, route)

    def first():
        for _ in range(100):
            if held:
                return held[0]
            page.wait_for_timeout(50)
        raise AssertionError(f"No request to {url_pattern} was sent.")

    return first


def test_preview_answered_late_does_not_replace_a_later_one(browse, small_tree):
    # Found by the media test's flaking on a loaded machine: the preview of the text before
    # an upload answered after the preview of the text with the image, and replaced it.
    page = browse(EDIT_ONE, user=role_user("ed", "Editor"))
    first = hold_first_request(page, "**/preview/")
    body = page.locator("#id_body")
    body.fill("First text.")
    body.press("Control+Enter")
    held = first()
    body.fill("Second text.")
    body.press("Control+Enter")
    preview = page.locator("#preview")
    expect(preview).to_have_text("Second text.")
    with page.expect_response("**/preview/"):
        held.continue_()
    page.evaluate("() => new Promise((done) => setTimeout(done, 50))")
    expect(preview).to_have_text("Second text.")


def test_two_editors_at_once_keep_both_changes_and_resolve_a_conflict(browse, small_tree):
    edit("Chapter One", body="One.\n\nTwo.\n\nThree.")
    first = browse(EDIT_ONE, user=role_user("anna", "Editor"))
    second = browse(EDIT_ONE, user=role_user("ben", "Editor"))

    first.fill("#id_body", "One, by Anna.\n\nTwo.\n\nThree.")
    with first.expect_navigation():
        first.click("button[name=save]")
    second.fill("#id_body", "One.\n\nTwo.\n\nThree, by Ben.")
    with second.expect_navigation():
        second.click("button[name=save]")
    # Different paragraphs: merged and saved at once, with a notice.
    expect(second).to_have_url(re.compile(f"{CHAPTER_ONE}$"))
    expect(second.locator(".messages")).to_contain_text(
        "anna saved this page at", use_inner_text=True
    )
    expect(second.locator(".messages")).to_contain_text("their change was merged with yours")
    assert node("Chapter One").body == "One, by Anna.\n\nTwo.\n\nThree, by Ben."

    first.goto(EDIT_ONE)
    second.goto(EDIT_ONE)
    first.fill("#id_body", "One, by Anna.\n\nTwo, by Anna.\n\nThree, by Ben.")
    with first.expect_navigation():
        first.click("button[name=save]")
    second.fill("#id_body", "One, by Anna.\n\nTwo, by Ben.\n\nThree, by Ben.")
    with second.expect_navigation():
        second.click("button[name=save]")
    conflict = second.locator(".conflict")
    expect(conflict.locator(".conflict-yours pre")).to_have_text("Two, by Ben.")
    expect(conflict.locator(".conflict-theirs pre")).to_have_text("Two, by Anna.")
    with second.expect_navigation():
        second.click("button[name=save]")
    expect(second.locator("#id_body + ul.errors, .editor-write .errors")).to_contain_text(
        "Resolve the conflict marked in the text first"
    )
    assert node("Chapter One").body == "One, by Anna.\n\nTwo, by Anna.\n\nThree, by Ben."

    second.get_by_role("button", name="Use theirs").click()
    expect(second.locator("#id_body")).to_have_value(
        "One, by Anna.\n\nTwo, by Anna.\n\nThree, by Ben."
    )
    expect(second.locator(".conflicts")).to_be_hidden()
    with second.expect_navigation():
        second.click("button[name=save]")
    assert node("Chapter One").body == "One, by Anna.\n\nTwo, by Anna.\n\nThree, by Ben."


def test_autosaved_draft_survives_a_closed_tab(browse, small_tree):
    editor = role_user("ed", "Editor")
    page = browse(EDIT_ONE, user=editor)
    page.fill("#id_body", "Words that must not be lost.")
    expect(page.locator(".autosave-status")).to_contain_text("Draft saved at", timeout=10_000)
    page.context.close()

    again = browse(EDIT_ONE, user=editor)
    offer = again.locator(".draft-offer")
    expect(offer).to_contain_text("You have an unsaved draft from")
    expect(again.locator("#id_body")).to_have_value("This chapter is currently a scaffold.")
    offer.get_by_role("link", name="Restore").click()
    expect(again.locator("#id_body")).to_have_value("Words that must not be lost.")
    expect(again.locator("#preview")).to_have_text("Words that must not be lost.")


def test_pending_change_is_unseen_by_readers_until_a_reviewer_approves_it(browse, small_tree):
    edit("Chapter One", status="published", body="The published text.")
    editor = browse(EDIT_ONE, user=role_user("ed", "Editor"))
    editor.fill("#id_body", "The better text.")
    editor.fill("#id_summary", "Clearer")
    with editor.expect_navigation():
        editor.click("button[name=save]")
    expect(editor.locator(".messages")).to_contain_text("Your change waits for a reviewer")

    reader = browse(CHAPTER_ONE)
    expect(reader.locator("article div.body")).to_have_text("The published text.")
    editor.goto(CHAPTER_ONE)
    expect(editor.locator(".pending-note")).to_contain_text("A change by ed waits for review")
    expect(editor.locator("article div.body")).to_have_text("The published text.")

    reviewer = browse("/review/", user=role_user("rev", "Reviewer"))
    expect(reviewer.locator(".review-item .diff-insert")).to_have_text("1The better text.")
    reviewer.get_by_role("link", name="Approve or send back").click()
    with reviewer.expect_navigation():
        reviewer.get_by_role("button", name="Approve").click()
    expect(reviewer).to_have_url(re.compile(f"{CHAPTER_ONE}$"))
    expect(reviewer.locator("article div.body")).to_have_text("The better text.")

    reader.reload()
    expect(reader.locator("article div.body")).to_have_text("The better text.")


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_editing_pages_have_no_accessibility_violations(browse, small_tree, color_scheme):
    edit("Chapter One", status="published", body="One.\n\nTwo.")
    first = Node.history.filter(id=node("Chapter One").pk).order_by("history_id").first()
    author, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")
    change = PendingChange.objects.create(
        node=node("Chapter One"), base_revision=first.history_id, title="Chapter One",
        status="published", body="One.\n\nTwo, better.", summary="Clearer", author=author,
    )  # fmt: skip
    EditDraft.objects.create(user=reviewer, node=node("Chapter One"), body="Unsaved.")
    pages = {
        "editor": EDIT_ONE,
        "new chapter": "/new/area-a/section-a1/",
        "review queue": "/review/",
        "a change": change.get_absolute_url(),
        "revert": f"/revisions/{first.history_id}/revert/",
    }
    found = {}
    for name, path in pages.items():
        page = browse(path, color_scheme=color_scheme, user=reviewer)
        found[name] = violations(page)
    assert found == {name: [] for name in pages}
