"""The home page: a landing page, not the tree: the wiki's name and description (settings),
its areas as cards, where to start, the chapters updated last."""

import datetime

import pytest

from chapters.models import Node
from tests.helpers import edit, soup


def card_texts(page):
    """Return each area card of a parsed home page as its lines of text."""
    return [
        [" ".join(line.split()) for line in card.get_text("\n").split("\n") if line.strip()]
        for card in page.select(".area-cards > li")
    ]


@pytest.mark.django_db
def test_home_names_the_wiki_from_its_settings(client, small_tree, settings):
    settings.WIKI_NAME = "Learning Notes"
    settings.WIKI_DESCRIPTION = "Notes for learning."
    page = soup(client.get("/"))
    assert page.h1.get_text() == "Learning Notes"
    assert page.find("p", class_="lede").get_text() == "Notes for learning."
    assert page.title.get_text() == "Learning Notes"
    assert page.find("a", class_="site-name").get_text() == "Learning Notes"


@pytest.mark.django_db
def test_home_is_a_landing_page_without_the_tree(client, curriculum):
    page = soup(client.get("/"))
    assert page.h1.get_text() == "Curriculum Wiki"
    assert page.find(id="toc") is None
    assert page.find("aside") is None
    start = page.find("a", class_="start-link")
    assert (start["href"], start.get_text()) == (
        "/mathematics/foundations/proofs-and-logic/",
        "Start here: Proofs and Logic",
    )
    cards = card_texts(page)
    assert [card[0] for card in cards] == [n.title for n in Node.objects.filter(parent=None)]
    assert cards[4] == [
        "ML Systems",
        "7 sections · 20 chapters · 1 min read",
        "0 of 20 published",
        "GPU Computing",
        "Runtimes and Frameworks",
        "ML Compilers",
        "Training at Scale",
        "Inference",
        "Efficiency",
        "Edge Machine Learning",
    ]
    assert len(page.select(".area-cards a")) == 8 + 44


@pytest.mark.django_db
def test_home_area_card_shows_its_description_and_what_is_published(client, small_tree):
    edit("Area A", body="Everything about **A**, from the start. " * 10)
    Node.objects.filter(title="Chapter One").update(status=Node.Status.PUBLISHED)
    card = soup(client.get("/")).select(".area-cards > li")[0]
    assert card.find("p", class_="area-description").get_text() == (
        "Everything about A, from the start. Everything about A, from the start. Everything "
        "about A, from the start. Everything about A, from the…"
    )
    assert card.find(class_="readiness").get_text(" ", strip=True) == "1 of 4 published"
    assert (
        soup(client.get("/")).select(".area-cards > li")[1].find("p", class_="area-description")
        is None
    )


@pytest.mark.django_db
def test_home_lists_the_chapters_updated_last(client, small_tree):
    later = datetime.datetime(2030, 1, 2, tzinfo=datetime.UTC)
    Node.objects.filter(title="Chapter Five").update(updated=later)
    Node.objects.filter(title="Chapter Two").update(updated=later - datetime.timedelta(days=1))
    recent = soup(client.get("/")).find("section", class_="recently-updated")
    assert [" ".join(li.get_text().split()) for li in recent.ol.find_all("li")][:3] == [
        "Chapter Five in Section B1 · Jan 2, 2030",
        "Chapter Two in Section A1 · Jan 1, 2030",
        "Chapter One in Section A1 · "
        + Node.objects.get(title="Chapter One").updated.strftime("%b %-d, %Y"),
    ]
