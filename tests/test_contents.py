"""The table of contents' HTML (chapters.contents): marked for a page by the marks it gave the
template, whatever else the template writes, and rendered at any depth."""

import json
import logging

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from chapters import contents
from chapters.models import Node
from chapters.outline import build_fixture
from tests.helpers import soup, toc_outline

TOC = django_settings.BASE_DIR / "templates" / "chapters" / "_toc_entries.html"

CHAIN_DEPTH = 300


def override_toc(settings, tmp_path, text):
    """Serve ``chapters/_toc_entries.html`` from ``tmp_path`` with ``text`` instead of the
    project's."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "_toc_entries.html").write_text(text, encoding="utf-8")
    templates = [{**engine} for engine in settings.TEMPLATES]
    templates[0]["DIRS"] = [tmp_path, *templates[0]["DIRS"]]
    settings.TEMPLATES = templates


def toc_marks(page):
    """Return the contents' current links and open sections of a parsed page."""
    toc = page.find(id="toc")
    current = [(a.get_text(), a.get("class")) for a in toc.find_all(attrs={"aria-current": True})]
    opened = [d.parent.a.get_text() for d in toc.find_all("details", open=True)]
    return current, opened


@pytest.mark.django_db
def test_contents_mark_the_page_whatever_else_the_link_says(client, small_tree, settings, tmp_path):
    link = '<a href="{{ node.get_absolute_url }}"{{ entry.link_mark }}>'
    text = TOC.read_text(encoding="utf-8")
    assert link in text
    override_toc(
        settings,
        tmp_path,
        text.replace(
            link,
            '<a class="toc-link" href="{{ node.get_absolute_url }}"'
            ' data-kind="{{ node.kind }}"{{ entry.link_mark }}>',
        ),  # fmt: skip
    )
    for _ in range(2):  # rendered, then from the cache
        page = soup(client.get("/area-a/section-a2/chapter-four/"))
        assert toc_marks(page) == ([("Chapter Four", ["toc-link"])], ["Area A", "Section A2"])
        assert page.find(id="toc").find("a", string="Chapter Four")["data-kind"] == "chapter"
    area_b = soup(client.get("/area-b/"))
    assert toc_marks(area_b) == ([("Area B", ["toc-link"])], ["Area B"])
    assert "data-contents" not in str(area_b.find(id="toc"))


@pytest.mark.django_db
@pytest.mark.parametrize("mark", ["{{ entry.link_mark }}", "{{ entry.section_mark }}"])
def test_contents_template_without_a_mark_is_an_error(client, small_tree, settings, tmp_path, mark):
    override_toc(settings, tmp_path, TOC.read_text(encoding="utf-8").replace(mark, ""))
    kind = mark.removeprefix("{{ entry.").removesuffix(" }}")
    with pytest.raises(ImproperlyConfigured, match=f"must write each entry's {kind}"):
        client.get("/area-a/")


@pytest.mark.django_db
def test_contents_without_the_page_leave_it_unmarked_with_a_warning(client, small_tree, caplog):
    client.get("/area-b/section-b1/chapter-five/")
    page = Node.objects.get(title="Chapter Five")
    navigation, _ = contents.page_navigation(page, "another-version")
    empty = contents.Contents(html="<ol></ol>", links={}, sections={})
    with caplog.at_level(logging.WARNING, logger="chapters.contents"):
        assert contents.mark_current(empty, page, navigation) == "<ol></ol>"
    assert caplog.messages == [
        f"The table of contents has no place for page {page.pk}; not marked."
    ]


@pytest.fixture
def chain(db, tmp_path):
    """Load ``CHAIN_DEPTH`` sections, each inside the one before, and a chapter in the last.

    One-letter slugs keep the deepest path (599 characters) under the model's limit.
    """
    rows = build_fixture([(depth, "S") for depth in range(CHAIN_DEPTH)] + [(CHAIN_DEPTH, "C")])
    for row in rows[:-1]:
        row["fields"].update(kind=Node.Kind.SECTION, body="")
    fixture = tmp_path / "chain.json"
    fixture.write_text(json.dumps(rows), encoding="utf-8")
    call_command("loaddata", str(fixture), verbosity=0)
    return Node.objects.get(kind=Node.Kind.CHAPTER)


@pytest.mark.django_db
def test_contents_of_any_depth_render_on_every_page(client, chain):
    assert (chain.level, len(chain.path)) == (CHAIN_DEPTH, 2 * CHAIN_DEPTH + 1)
    outline = "".join(
        f"{'  ' * depth}{'S' if depth < CHAIN_DEPTH else 'C'}\n" for depth in range(CHAIN_DEPTH + 1)
    )
    page = client.get(chain.get_absolute_url())
    assert page.status_code == 200
    assert toc_outline(soup(page)) == outline
    assert toc_marks(soup(page)) == ([("C", None)], ["S"] * CHAIN_DEPTH)
    deepest_section = client.get(chain.parent.get_absolute_url())
    assert toc_marks(soup(deepest_section)) == ([("S", None)], ["S"] * CHAIN_DEPTH)
