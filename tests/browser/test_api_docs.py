"""The API's documentation page (/api/docs/) in Chromium: Swagger UI from the wiki's own
files, under its Content-Security-Policy, and a call tried from it."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_api_docs_render_the_schema_and_try_a_call(browse, small_tree):
    page = browse("/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Curriculum Wiki API")
    operation = page.locator("#operations-pages-pages_retrieve")
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.locator("input[placeholder='id']").fill("3")
    operation.get_by_role("button", name="Execute").click()
    status = operation.locator(".live-responses-table tbody .response-col_status").first
    expect(status).to_have_text("200")
    expect(operation.locator(".live-responses-table .microlight").first).to_contain_text(
        '"title": "Chapter One"'
    )
