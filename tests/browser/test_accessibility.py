"""Accessibility: axe-core, run in the browser, finds no violations on the reader's pages.

axe-core comes with axe-playwright-python (its axe.min.js), pinned in pyproject.toml. Every
rule axe runs by default is checked: WCAG 2.0-2.2 A and AA, and axe's best practices.
"""

import pytest
from axe_playwright_python.sync_playwright import Axe

from chapters.models import Node
from tests.browser.conftest import PHONE

pytestmark = pytest.mark.browser

PAGES = {
    "home": "/",
    "chapter": "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/",
    "section": "/ml-systems/ml-compilers/",
    "search results": "/search/?q=kernel",
    "history": "/history/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/",
    "dashboard": "/dashboard/",
}


def violations(page):
    """Run axe-core on the page; return its violations as readable lines (none: empty)."""
    results = Axe().run(page)
    return [
        f"{violation['id']}: {violation['help']} at {node['target']}"
        for violation in results.response["violations"]
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_pages_have_no_accessibility_violations(browse, curriculum, admin_user, color_scheme):
    chapter = Node.objects.get(path=PAGES["chapter"].strip("/"))
    chapter.body = "A [[Kernel Fusion]] link.\n\n```python\nfused = relu(matmul(a, b))\n```\n"
    chapter.save()  # a second revision, for a history with two rows, and some code
    found = {}
    for name, path in PAGES.items():
        page = browse(path, color_scheme=color_scheme, user=admin_user)
        assert page.title() != "Page not found · Curriculum Wiki", name
        found[name] = violations(page)
    assert found == {name: [] for name in PAGES}


def test_phone_table_of_contents_has_no_accessibility_violations(browse, curriculum):
    page = browse(PAGES["chapter"], viewport=PHONE)
    page.get_by_role("button", name="Contents").click()
    assert violations(page) == []
