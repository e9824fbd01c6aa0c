"""Single sign-on in a browser: the wiki's sign-in page, "Sign in with Test Provider", the
provider's own sign-in form and consent (tests/oidc_provider/, a real OpenID provider on
localhost), and back on the wiki signed in as an Editor, in the editor. The sign-in page
passes axe."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.test_accessibility import violations
from tests.conftest import ADA

pytestmark = pytest.mark.browser

EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"


def test_sso_round_trip_signs_an_editor_in_to_the_editor(
    browse, live_server, settings, oidc_provider, small_tree
):
    # A transactional test's flush emptied the groups of migration 0013_roles: make them again.
    importlib.import_module("chapters.migrations.0013_roles").create_roles(apps, None)
    oidc_provider.configure_wiki(settings, live_server.url)
    page = browse(EDIT_ONE)
    expect(page).to_have_url(f"{live_server.url}/accounts/login/?next={EDIT_ONE}")
    assert violations(page) == []
    page.get_by_role("button", name="Sign in with Test Provider").click()

    page.wait_for_url(f"{oidc_provider.url}/login/**")
    page.get_by_label("Username").fill(ADA[0])
    page.get_by_label("Password").fill(ADA[1])
    page.get_by_role("button", name="Sign in to the provider").click()
    expect(page.locator("h3")).to_have_text("Authorize Curriculum wiki?")
    page.get_by_role("button", name="Authorize").click()

    page.wait_for_url(f"{live_server.url}{EDIT_ONE}")
    expect(page.locator(".account strong")).to_have_text("ada")
    expect(page.locator("h1")).to_have_text("Editing “Chapter One”")
    ada = get_user_model().objects.get(username="ada")
    assert (list(ada.groups.values_list("name", flat=True)), ada.is_staff) == (["Editor"], True)
