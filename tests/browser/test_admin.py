"""The admin in a browser, under the site's Content-Security-Policy: signing in, moving a
chapter by drag-and-drop, the live preview, choosing a parent in the autocomplete."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_editor import hold_first_request
from tests.helpers import node

pytestmark = pytest.mark.browser


def sign_in(page, username, password):
    """Sign in through the admin's login form (django-axes checks every attempt)."""
    page.goto("/admin/login/?next=/admin/chapters/node/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/chapters/node/")


def row(page, title):
    """Return the change list's row of the node titled ``title``."""
    return page.locator(
        "#result_list tbody tr", has=page.get_by_role("link", name=title, exact=True)
    )


def test_admin_drags_a_chapter_into_another_section_and_the_site_shows_it(
    browse, admin_user, small_tree
):
    page = browse("/")
    sign_in(page, "admin", "password")
    expect(page.get_by_role("heading", name="Select node to change")).to_be_visible()
    page.get_by_role("link", name="Expand tree").click()

    # django-mptt's drag-and-drop: press on the row's handle, move over the top third of
    # the target row (drop before it), release; the page reloads with the tree moved.
    handle = row(page, "Chapter One").locator(".drag-handle").bounding_box()
    target = row(page, "Chapter Five").bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + 300, target["y"] + target["height"] / 2, steps=5)
    page.mouse.move(target["x"] + 300, target["y"] + 2, steps=5)
    with page.expect_navigation():
        page.mouse.up()
    expect(page.locator(".messagelist")).to_contain_text("Chapter One has been successfully moved.")

    chapter = node("Chapter One")
    assert (chapter.parent.title, chapter.path) == ("Section B1", "area-b/section-b1/chapter-one")
    page.goto("/area-b/section-b1/")
    expect(page.locator(".children a")).to_have_text(["Chapter One", "Chapter Five", "Chapter Six"])
    page.get_by_role("link", name="Chapter One", exact=True).first.click()
    expect(page.locator(".breadcrumb a")).to_have_text(["Wiki", "Area B", "Section B1"])
    expect(page.locator("h1")).to_have_text("Chapter One")
    expect(page.locator(".pager .pager-title")).to_have_text(["Chapter Five"])


def test_admin_preview_renders_the_body_as_the_editor_types(browse, admin_user, small_tree):
    page = browse("/")
    sign_in(page, "admin", "password")
    page.goto(f"/admin/chapters/node/{node('Chapter One').pk}/change/")
    page.fill("#id_body", "Read **this**, then [[Chapter Six]] and [[Nowhere]].")
    preview = page.locator("#body-preview .preview-body")
    expect(preview.locator("strong")).to_have_text("this")
    expect(preview.locator("a", has_text="Chapter Six")).to_have_attribute(
        "href", "/area-b/section-b1/chapter-six/"
    )
    expect(page.locator("#body-preview .preview-broken")).to_have_text(
        "Nowhere: There is no page “Nowhere”."
    )


def test_admin_preview_answered_late_does_not_replace_a_later_one(browse, admin_user, small_tree):
    page = browse("/")
    sign_in(page, "admin", "password")
    first = hold_first_request(page, "**/admin/chapters/node/preview/")
    page.goto(f"/admin/chapters/node/{node('Chapter One').pk}/change/")
    held = first()  # the preview of the body as the page opens
    page.fill("#id_body", "Typed after the page opened.")
    preview = page.locator("#body-preview .preview-body")
    expect(preview).to_have_text("Typed after the page opened.")
    with page.expect_response("**/admin/chapters/node/preview/"):
        held.continue_()
    page.evaluate("() => new Promise((done) => setTimeout(done, 50))")
    expect(preview).to_have_text("Typed after the page opened.")


def test_admin_picks_a_parent_in_the_autocomplete_and_saves(browse, admin_user, small_tree):
    page = browse("/")
    sign_in(page, "admin", "password")
    page.goto(f"/admin/chapters/node/{node('Chapter Two').pk}/change/")
    chosen = page.locator(".field-parent .select2-selection__rendered")
    expect(chosen).to_contain_text("Area A / Section A1")

    # select2's search box: type, then choose the section by its path of titles.
    page.locator(".field-parent .select2-selection").click()
    page.locator(".select2-search__field").fill("section")
    results = page.locator(".select2-results__option")
    expect(results).to_have_text(
        ["Area A / Section A1", "Area A / Section A2", "Area B / Section B1"]
    )
    results.filter(has_text="Area B / Section B1").click()
    expect(chosen).to_contain_text("Area B / Section B1")
    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    chapter = node("Chapter Two")
    assert (chapter.parent.title, chapter.path) == ("Section B1", "area-b/section-b1/chapter-two")
