"""A chapter's discussion in a browser (issue 29): a comment and a reply posted with the
page's own forms, a watcher told, the count on the chapter's page; axe on the thread; and
screenshots of a thread (docs/images/learners/ keeps those looked at)."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from chapters.markdown import render_comment
from chapters.models import Comment, Watch
from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.test_accessibility import violations
from tests.browser.test_screenshots import png_size
from tests.helpers import node, role_user

pytestmark = pytest.mark.browser

CHAPTER_ONE = "/area-a/section-a1/chapter-one/"
THREAD = "/discuss/area-a/section-a1/chapter-one/"


def reader(name):
    """Create a signed-up reader ``name`` (not staff), with an address."""
    return get_user_model().objects.create_user(name, email=f"{name}@example.com")


def test_discussion_post_and_reply_with_a_watcher_told(browse, small_tree, run_tasks):
    ann, ben, watcher = reader("ann"), reader("ben"), reader("wes")
    Watch.objects.create(user=watcher, node=node("Chapter One"))

    page = browse(CHAPTER_ONE, user=ann)
    link = page.locator("a.discussion-link")
    expect(link).to_have_text("Discussion (0)")
    link.click()
    page.fill("#body-new", "Why is the *order* this way?")
    with page.expect_navigation():
        page.get_by_role("button", name="Post comment").click()
    expect(page.locator(".comment-body")).to_have_text("Why is the order this way?")
    expect(page.locator(".comment-body em")).to_have_text("order")

    other = browse(THREAD, user=ben)
    other.locator(".reply summary").click()
    top = Comment.objects.get()
    other.fill(f"#body-{top.pk}", "Because the proof needs it.")
    with other.expect_navigation():
        other.get_by_role("button", name="Post reply").click()
    expect(other.locator(".replies .comment-body")).to_have_text("Because the proof needs it.")
    run_tasks()

    told = browse("/notifications/", user=watcher)
    expect(told.locator(".notification-list a")).to_have_text(
        ["Unread: ben replied on “Chapter One”", "Unread: ann commented on “Chapter One”"]
    )
    told.locator(".notification-list a").first.click()
    expect(told).to_have_url(f"{told.url.split('/discuss/')[0]}{THREAD}#comment-{top.pk + 1}")
    anonymous = browse(CHAPTER_ONE)
    expect(anonymous.locator("a.discussion-link")).to_have_text("Discussion (2)")


def thread_with_comments():
    """Fill Chapter One's thread: a comment with code, a reply, an edited one, a hidden one
    and a deleted one kept for its reply; return a reader and a moderator."""
    ann, ben, rev = reader("ann"), reader("ben"), role_user("rev", "Reviewer")
    chapter, now = node("Chapter One"), timezone.now()

    def say(author, body, **fields):
        return Comment.objects.create(
            node=chapter, author=author, body=body, body_html=render_comment(body), **fields
        )

    first = say(ann, "Why does the loop start at `1`?\n\n```python\nfor i in range(1, n):\n```")
    say(ben, "Index 0 is the **base case**, set before the loop.", parent=first)
    say(ann, "Thanks, that [helps](/area-a/).", parent=first, edited=now)
    say(ben, "Buy cheap watches!", hidden_by=rev, hidden_at=now)
    gone = say(ben, "", deleted=now)
    say(ann, "A reply to a comment since deleted.", parent=gone)
    return ann, rev


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_discussion_thread_has_no_accessibility_violations(browse, small_tree, color_scheme):
    ann, rev = thread_with_comments()
    for user in [None, ann, rev]:
        page = browse(THREAD, user=user, color_scheme=color_scheme)
        if user is not None:
            page.locator(".reply summary").first.click()
        assert violations(page) == [], user


def test_screenshots_of_a_discussion(browse, small_tree):
    """The thread, signed in as a reader, at desktop and phone widths, light and dark."""
    ann, _ = thread_with_comments()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = {}
    for width_name, viewport in {"desktop": DESKTOP, "phone": PHONE}.items():
        for scheme in ["light", "dark"]:
            page = browse(THREAD, user=ann, viewport=viewport, color_scheme=scheme)
            page.locator(".reply summary").first.click()
            target = SCREENSHOTS / f"learners-discussion-{width_name}-{scheme}.png"
            page.screenshot(path=target, full_page=True)
            saved[target.name] = png_size(target)[0]
    assert saved == {
        "learners-discussion-desktop-light.png": DESKTOP["width"],
        "learners-discussion-desktop-dark.png": DESKTOP["width"],
        "learners-discussion-phone-light.png": PHONE["width"],
        "learners-discussion-phone-dark.png": PHONE["width"],
    }
