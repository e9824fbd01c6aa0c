"""The reading time: words counted once per render, at Brysbaert's (2019) 238 words per
minute, per chapter and summed per section (``chapters.reading_time``)."""

import pytest

from chapters.reading_time import WORDS_PER_MINUTE, count_words, reading_time
from tests.helpers import edit, node, soup


def test_reading_time_rate_is_brysbaerts_for_non_fiction():
    assert WORDS_PER_MINUTE == 238


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (0, ""),
        (1, "1 min read"),
        (356, "1 min read"),
        (357, "2 min read"),  # 1.5 minutes: a half rounds up
        (1666, "7 min read"),
        (14_279, "1 h read"),
        (238 * 65, "1 h 5 min read"),
        (238 * 125, "2 h 5 min read"),
    ],
)
def test_reading_time_rounds_to_whole_minutes(words, said):
    assert reading_time(words) == said


def test_count_words_splits_on_white_space():
    assert count_words("Kernel  fusion\njoins\tops — twice.") == 6
    assert count_words(" \n ") == 0


@pytest.mark.django_db
def test_reading_time_counts_the_rendered_text_on_save(small_tree):
    edit("Chapter One", body="## Fusion\n\nKernel **fusion** joins [[Chapter Two]].\n\n$x^2$")
    assert node("Chapter One").words == count_words(node("Chapter One").body_text)
    assert node("Chapter One").body_text == "Fusion Kernel fusion joins Chapter Two. x^2"
    assert node("Chapter One").words == 7


@pytest.mark.django_db
def test_reading_time_of_a_section_sums_its_chapters(client, small_tree):
    edit("Chapter One", body=" ".join(["word"] * 900))
    edit("Chapter Two", body=" ".join(["word"] * 700))
    page = soup(client.get("/area-a/section-a1/"))
    # 1,606 words: Chapter Three holds the scaffold's 6.
    assert page.select_one(".meta .reading-time").get_text() == "7 min read"
    assert [li.select_one(".reading-time").get_text() for li in page.select(".children li")] == [
        "4 min read",
        "3 min read",
        "1 min read",
    ]
    area = soup(client.get("/area-a/"))
    assert area.select_one(".meta .reading-time").get_text() == "7 min read"
    assert [" ".join(li.get_text().split()) for li in area.select(".children li")] == [
        "Section A1 Section 0 of 3 published 7 min read",
        "Section A2 Section 0 of 1 published 1 min read",
    ]
    chapter = soup(client.get("/area-a/section-a1/chapter-one/"))
    assert " ".join(chapter.find("p", class_="meta").get_text().split()) == (
        "Chapter · Draft · Updated "
        + node("Chapter One").updated.strftime("%b %-d, %Y")
        + " · 4 min read"
    )
    home = soup(client.get("/"))
    assert [p.get_text() for p in home.select(".area-counts")] == [
        "2 sections · 4 chapters · 7 min read",
        "1 section · 2 chapters · 1 min read",
    ]
