"""Browser tests: Playwright for Python driving Debian's Chromium against the live server.

One Chromium serves the whole session; each test gets fresh browser contexts (cookies,
storage, viewport, colour scheme) from ``browse``, which fails the test on any console error,
so every browser test also checks that no script, style or request was refused by the
Content-Security-Policy, and that no script threw.
"""

import os
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright's own download cannot be fetched here
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# git ignores it; a folder per database, as .ci/run runs the SQLite and PostgreSQL passes at once
SCREENSHOTS = Path(settings.BASE_DIR) / "screenshots" / connection.vendor


@pytest.fixture(scope="session")
def browser():
    """Launch headless Chromium once for the session; close it at the end."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's package (apt-get install chromium)")
    # Playwright's sync API keeps an asyncio loop running in this thread, so Django would
    # take the tests' own (synchronous) ORM calls for calls from async code and refuse them.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def browse(browser, live_server):
    """Return a function that opens a path of the live server in a new browser context.

    ``browse(path, viewport=DESKTOP, color_scheme="light", java_script=True, user=None)``
    returns the Playwright page, loaded. ``user`` signs that user in first (through a session
    cookie, as Django's ``force_login`` makes it). At the end of the test, any message the
    pages logged as an error fails it.
    """
    contexts, errors = [], []

    def open_page(path="/", *, viewport=DESKTOP, color_scheme="light", java_script=True, user=None):
        context = browser.new_context(
            base_url=live_server.url,
            viewport=viewport,
            color_scheme=color_scheme,
            java_script_enabled=java_script,
        )
        contexts.append(context)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[settings.SESSION_COOKIE_NAME]
            context.add_cookies(
                [{"name": cookie.key, "value": cookie.value, "url": live_server.url}]
            )
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        page.goto(path)
        return page

    yield open_page
    for context in contexts:
        context.close()
    answered_every_request()
    assert errors == []


def answered_every_request(seconds=10):
    """Wait until the live server has answered the requests the closed pages sent as they
    went (the editor's draft, sent by ``sendBeacon`` as a page is hidden; a fetch in
    flight): one still running when the test's database is emptied after the test deadlocks
    with the emptying on PostgreSQL. The server answers each connection in a thread of its
    own (``socketserver.ThreadingMixIn``), named after ``process_request_thread``."""
    deadline = time.monotonic() + seconds
    time.sleep(0.1)  # a beacon leaves as its page closes, and may reach the server just after
    while time.monotonic() < deadline and any(
        "process_request_thread" in thread.name for thread in threading.enumerate()
    ):
        time.sleep(0.02)
