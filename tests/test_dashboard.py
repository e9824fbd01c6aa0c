"""Readiness: counts on section pages (the table of contents shows none), the dashboard, and the
admin's live preview."""

import datetime

import pytest
from django.urls import reverse

from chapters.models import Node
from tests.helpers import node, soup


def publish(*titles, status=Node.Status.PUBLISHED):
    """Give the nodes with ``titles`` a status, without a revision."""
    Node.objects.filter(title__in=titles).update(status=status)


def readiness_texts(page, selector):
    """Return the readiness labels under ``selector`` of a parsed page."""
    return [" ".join(r.get_text().split()) for r in page.select(f"{selector} .readiness")]


@pytest.mark.django_db
def test_table_of_contents_shows_no_readiness_or_status(client, curriculum):
    publish("Quantization", "Pruning and Sparsity")
    publish("Knowledge Distillation", status=Node.Status.IN_REVIEW)
    page = soup(client.get("/ml-systems/inference/"))
    toc = page.find("nav", class_="toc")
    assert toc.select(".readiness, .status, progress") == []
    efficiency = toc.find("a", string="Efficiency").parent
    assert [
        (li.a.get_text(), li["class"]) for li in efficiency.find_all("li", class_="toc-chapter")
    ] == [
        ("Quantization", ["toc-chapter"]),
        ("Pruning and Sparsity", ["toc-chapter"]),
        ("Knowledge Distillation", ["toc-chapter", "toc-unpublished"]),
        ("Small Language Models", ["toc-chapter", "toc-unpublished"]),
    ]
    assert efficiency["class"] == ["toc-section"]


@pytest.mark.django_db
def test_readiness_on_a_section_page(client, curriculum):
    publish("ML Compiler Foundations")
    page = soup(client.get("/ml-systems/ml-compilers/"))
    assert readiness_texts(page, ".section-readiness") == ["1 of 2 published"]
    area = soup(client.get("/ml-systems/"))
    assert readiness_texts(area, ".section-readiness") == ["1 of 20 published"]
    assert readiness_texts(area, "ol.children")[:3] == [
        "0 of 4 published",
        "0 of 2 published",
        "1 of 2 published",
    ]


@pytest.mark.django_db
def test_dashboard_is_for_staff_only(client, curriculum):
    response = client.get(reverse("chapters:dashboard"))
    assert (response.status_code, response["Location"].split("?")[0]) == (302, "/admin/login/")


@pytest.mark.django_db
def test_dashboard_counts_the_curriculum(admin_client, curriculum):
    page = soup(admin_client.get(reverse("chapters:dashboard")))
    rows = page.find("table", class_="report").tbody.find_all("tr")
    assert len(rows) == 52
    cells = [[c.get_text(" ", strip=True) for c in row.find_all(["th", "td"])] for row in rows]
    assert cells[0] == ["Mathematics", "19", "0", "0", "0 of 19 published", "Edit"]
    assert cells[1] == ["Foundations", "1", "0", "0", "0 of 1 published", "Edit"]
    assert (
        sum(int(row[1]) for row, r in zip(cells, rows, strict=True) if "depth-0" in r["class"])
        == 170
    )
    assert page.find("h2", string="Chapters that are still a scaffold (170)")
    assert page.find(id="broken-links").find_next("p").get_text() == "No broken links."


@pytest.mark.django_db
def test_dashboard_follows_status_changes_and_filters_by_area(admin_client, curriculum):
    publish("Quantization", "Pruning and Sparsity")
    publish("Knowledge Distillation", status=Node.Status.IN_REVIEW)
    chapter = node("Quantization")
    chapter.body = "Int8 and fp8."
    chapter.save()
    Node.objects.filter(title="Tensor Runtimes").update(
        updated=datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    )
    page = soup(admin_client.get(reverse("chapters:dashboard"), {"area": "ml-systems"}))
    rows = page.find("table", class_="report").tbody.find_all("tr")
    cells = {
        r.th.get_text(strip=True): [c.get_text(" ", strip=True) for c in r.find_all("td")]
        for r in rows
    }
    assert list(cells)[0] == "ML Systems"
    assert cells["ML Systems"][:4] == ["17", "1", "2", "2 of 20 published"]
    assert cells["Efficiency"][:4] == ["1", "1", "2", "2 of 4 published"]
    assert page.find("h2", string="Chapters that are still a scaffold (19)")
    stalest = page.find("h2", string="Not updated for the longest time").find_next("table")
    first = [td.get_text(strip=True) for td in stalest.tbody.tr.find_all("td")]
    assert first == ["Tensor Runtimes", "Jan 1, 2025", "Draft"]
    assert stalest.tbody.tr.a["href"] == reverse(
        "admin:chapters_node_change", args=[node("Tensor Runtimes").pk]
    )


@pytest.mark.django_db
def test_dashboard_unknown_area_is_400(admin_client, curriculum):
    assert admin_client.get(reverse("chapters:dashboard"), {"area": "nope"}).status_code == 400


PREVIEW = reverse("admin:chapters_node_preview")


@pytest.mark.django_db
def test_admin_preview_renders_through_the_sites_pipeline(admin_client, small_tree):
    response = admin_client.post(
        PREVIEW, {"body": "**Hi** [[Chapter Two]] [[Nowhere]] <script>x()</script>", "node": ""}
    )
    assert response.json() == {
        "html": '<p><strong>Hi</strong> <a class="wikilink" href="/area-a/section-a1/chapter-two/">'
        'Chapter Two</a> <span class="wikilink-broken" title="There is no page “Nowhere”.">'
        "Nowhere</span> x()</p>",
        "broken": [{"text": "Nowhere", "problem": "There is no page “Nowhere”."}],
    }


@pytest.mark.django_db
def test_admin_preview_refuses_gets_readers_and_bodies_too_deep(client, admin_client, small_tree):
    assert admin_client.get(PREVIEW).status_code == 405
    assert client.post(PREVIEW, {"body": "x"}).status_code == 302
    deep = admin_client.post(PREVIEW, {"body": "- " * 1000 + "x"})
    assert deep.status_code == 400
    assert deep.json() == {
        "error": "Line 1 nests 1,000 lists, quotes or indents; at most 32 are allowed."
    }


@pytest.mark.django_db
def test_admin_change_form_has_the_preview_panel(admin_client, small_tree):
    page = soup(
        admin_client.get(reverse("admin:chapters_node_change", args=[node("Chapter One").pk]))
    )
    panel = page.find(id="body-preview")
    assert (panel["data-url"], panel["data-node"]) == (PREVIEW, str(node("Chapter One").pk))
    assert page.find("script", src="/static/js/admin-preview.js")
