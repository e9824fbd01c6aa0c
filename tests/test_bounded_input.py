"""Bounded input: length limits on titles and bodies, and Markdown that would take too long.

Each hostile text here once took seconds to minutes to render (Python-Markdown and bleach
are quadratic in some structures); now it is refused with a message naming the limit, or
renders. There are no timings: a text that hangs again hangs the suite.
"""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from chapters.markdown import BODY_MAX_LENGTH, MarkdownError, check_markdown, render_markdown
from chapters.models import Node
from tests.helpers import node, soup
from tests.test_admin import change_url, errors, form_data


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "x" * (BODY_MAX_LENGTH + 1),
            "The text has 100,001 characters; at most 100,000 are allowed.",
        ),
        (
            "[" * 20_000,
            "The paragraph starting “[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[…” has 20,000 "
            "characters; at most 5,000 are allowed in one paragraph, list item, table cell "
            "or heading.",
        ),
        (
            "[" * 21 + "a",
            "The paragraph starting “[[[[[[[[[[[[[[[[[[[[[a” has more than 20 “[” or “(” open "
            "at once; close them, or escape them as “\\[” and “\\(”.",
        ),
        (
            "[a](" * 21,
            "The paragraph starting “[a]([a]([a]([a]([a]([a]([a]([a]([a]([a](…” has more "
            "than 20 “[” or “(” open at once; close them, or escape them as “\\[” and “\\(”.",
        ),
        ("- " * 33 + "x", "Line 1 nests 33 lists, quotes or indents; at most 32 are allowed."),
        (
            "a\n\n" + "> " * 33 + "x",
            "Line 3 nests 33 lists, quotes or indents; at most 32 are allowed.",
        ),
        (
            "".join("  " * i + "- x\n" for i in range(70)),
            "Line 65 nests 33 lists, quotes or indents; at most 32 are allowed.",
        ),
        (
            "---\n" * 1_001,
            "Line 1 starts a block of more than 1,000 lines without a blank line between "
            "them; separate it with blank lines.",
        ),
        (
            "# h\n\n" * 5_001,
            "Line 10001: the text has more than 5,000 lines that are not blank; split it into "
            "several pages.",
        ),
        (
            "```\n\n" * 1_001,
            "Line 2001: the text has more than 1,000 code fences (lines starting with ``` or "
            "~~~); split it into several pages.",
        ),
        (
            "<a " * 20_000,
            "Line 1: too many “<” read as the start of an HTML tag (at most 2,000, reaching "
            "at most 200,000 characters in all up to their “>”); write “&lt;” or “< ” for a "
            "less-than sign.",
        ),
        (
            "<div>" * 2_001,
            "Line 1: too many “<” read as the start of an HTML tag (at most 2,000, reaching "
            "at most 200,000 characters in all up to their “>”); write “&lt;” or “< ” for a "
            "less-than sign.",
        ),
        (
            "[^1] " * 501 + "\n\n[^1]: x",
            "The text has 502 footnote marks (“[^”); at most 500 are allowed.",
        ),
        (
            "\n\n".join(["$x$ " * 100] * 11),
            "The text has more than 1,000 formulas or more than 20,000 characters of math; "
            "split it into several pages.",
        ),
        (
            "$" + "x+" * 10_000 + "x$",
            "The paragraph starting “$x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x…” has 20,003 "
            "characters; at most 5,000 are allowed in one paragraph, list item, table cell "
            "or heading.",
        ),
        (
            "\n\n".join(["$" + "x+" * 2_000 + "x$"] * 6),
            "The text has more than 1,000 formulas or more than 20,000 characters of math; "
            "split it into several pages.",
        ),
        (
            "\n\n".join(["|a|b|\n|-|-|"] * 2_000),
            "The text has more than 5,000 blocks (paragraphs, list items, table cells, "
            "headings); split it into several pages.",
        ),
    ],
)
@pytest.mark.parametrize("render", [render_markdown, check_markdown])
def test_render_markdown_refuses_text_beyond_the_limits(source, message, render):
    with pytest.raises(MarkdownError) as refused:
        render(source)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("source", "count", "expected"),
    [
        # At the limits: each renders, as text where the markup does not close.
        ("[" * 20 + "a", 1, "<p>" + "[" * 20 + "a</p>"),
        ("[a](" * 20, 1, "<p>" + "[a](" * 20 + "</p>"),
        ("> " * 32 + "x", 1, "<blockquote>\n" * 32 + "<p>x</p>" + "\n</blockquote>" * 32),
        ("&" * 4_990, 20, "<p>" + "&amp;" * 4_990 + "</p>"),
        ("<" * 4_990, 20, "<p>" + "&lt;" * 4_990 + "</p>"),
        ("a" + "`" * 4_990, 20, "<p>a" + "`" * 4_990 + "</p>"),
        ("a" + "*" * 4_990, 20, "<p>a" + "*" * 4_990 + "</p>"),
        ("a" + "_" * 4_990, 20, "<p>a" + "_" * 4_990 + "</p>"),
        ("]" * 4_990, 20, "<p>" + "]" * 4_990 + "</p>"),
        ("*a **b *c " * 498 + "*a **b *c", 20, "<p>" + "*a **b *c " * 498 + "*a **b *c</p>"),
    ],
)
def test_render_markdown_renders_text_within_the_limits(source, count, expected):
    assert render_markdown("\n\n".join([source] * count)) == "\n".join([expected] * count)
    assert check_markdown("\n\n".join([source] * count)) is None


def test_render_markdown_renders_two_thousand_headings_with_ids():
    html = render_markdown("".join(f"## Step {i}\n\n" for i in range(2_000)))
    assert html.count("<h2 ") == 2_000
    assert '<h2 id="step-1999">Step 1999' in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("title", "T" * 201, "Ensure this value has at most 200 characters (it has 201)."),
        (
            "body",
            "x" * (BODY_MAX_LENGTH + 1),
            "Ensure this value has at most 100,000 characters (it has 100,001).",
        ),
    ],
)
def test_node_save_refuses_a_title_or_body_too_long(small_tree, field, value, message):
    chapter = node("Chapter One")
    setattr(chapter, field, value)
    with pytest.raises(ValidationError) as refused:
        chapter.save()
    assert refused.value.message_dict == {field: [message]}
    with pytest.raises(ValidationError) as refused:
        chapter.clean()
    assert refused.value.message_dict == {field: [message]}
    assert getattr(node("Chapter One"), field) != value


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"title": "T" * 201},
            {"title": ["Ensure this value has at most 200 characters (it has 201)."]},
        ),
        (
            {"body": "x" * (BODY_MAX_LENGTH + 1)},
            {"body": ["Ensure this value has at most 100000 characters (it has 100001)."]},
        ),
        (
            {"body": "- " * 1_000 + "x"},
            {"body": ["Line 1 nests 1,000 lists, quotes or indents; at most 32 are allowed."]},
        ),
        (
            {"body": "[" * 21},
            {
                "body": [
                    "The paragraph starting “[[[[[[[[[[[[[[[[[[[[[” has more than 20 “[” or "
                    "“(” open at once; close them, or escape them as “\\[” and “\\(”."
                ]
            },
        ),
    ],
)
def test_admin_change_form_refuses_a_title_or_body_beyond_the_limits(
    admin_client, small_tree, changes, expected
):
    before = node("Chapter Two").body
    response = admin_client.post(change_url("Chapter Two"), form_data("Chapter Two", **changes))
    assert response.status_code == 200
    assert errors(response) == expected
    assert node("Chapter Two").body == before


@pytest.mark.django_db
def test_admin_change_form_shows_the_body_limit(admin_client, small_tree):
    page = soup(admin_client.get(change_url("Chapter Two")))
    assert page.find("textarea", attrs={"name": "body"})["maxlength"] == "100000"
    assert page.find(id="id_body_helptext").get_text(strip=True) == (
        "Markdown, at most 100,000 characters."
    )


@pytest.mark.django_db
def test_admin_preview_refuses_a_hostile_body(admin_client, small_tree):
    response = admin_client.post(reverse("admin:chapters_node_preview"), {"body": "[" * 21})
    assert response.status_code == 400
    assert response.json() == {
        "error": "The paragraph starting “[[[[[[[[[[[[[[[[[[[[[” has more than 20 “[” or “(” "
        "open at once; close them, or escape them as “\\[” and “\\(”."
    }


HOSTILE_BODY = "[[Chapter Two]] " + "[" * 30


@pytest.mark.django_db
def test_node_stored_before_the_limits_still_serves_its_pages(client, small_tree):
    """A body the limits now refuse, stored before them, keeps its page and HTML."""
    chapter = node("Chapter One")
    Node.objects.filter(pk=chapter.pk).update(body=HOSTILE_BODY)
    Node.history.filter(id=chapter.pk).update(body=HOSTILE_BODY)
    page = client.get(chapter.get_absolute_url())
    assert page.status_code == 200
    assert soup(page).find(class_="body").get_text(strip=True) == chapter.body_text
    # Renaming the page it links to renders the linking nodes again: it keeps its HTML.
    two = node("Chapter Two")
    two.title = "Chapter 2"
    two.save()
    assert node("Chapter One").body_html == chapter.body_html
    revision = Node.history.filter(id=chapter.pk).first()
    page = client.get(reverse("chapters:revision", args=[revision.history_id]))
    assert page.status_code == 200
    assert "This revision's text cannot be shown: The paragraph starting" in page.content.decode()


@pytest.mark.django_db
def test_node_page_with_two_thousand_headings(client, small_tree):
    chapter = node("Chapter One")
    chapter.body = "".join(f"## Step {i}\n\nText {i}.\n\n" for i in range(2_000))
    chapter.save()
    page = soup(client.get(chapter.get_absolute_url()))
    links = page.find("nav", attrs={"aria-label": "On this page"}).find_all("a")
    assert len(links) == 2_000
    assert [link["href"] for link in links[-2:]] == ["#step-1998", "#step-1999"]


def test_code_a_lexer_would_take_minutes_on_is_shown_plain():
    # Pygments' Fantom lexer takes time in the cube of a run of letters: 8 s for 8,000, more
    # than a minute for 20,000 (bench/README.md, "Code highlighting").
    html = render_markdown("```python\nx = 1\n```\n\n```fan\n" + "a" * 20_000 + "\n```")
    assert html == (
        '<pre><code class="language-python">x = 1\n</code></pre>\n'
        '<pre><code class="language-fan">' + "a" * 20_000 + "\n</code></pre>"
    )


def test_code_past_the_highlighting_budget_is_shown_plain_and_escaped(monkeypatch):
    source = '```python\nif a < b: print("&")\n```'
    assert render_markdown(source).startswith(
        '<div class="highlight"><span class="filename">Python</span><pre><span></span><code>'
    )
    monkeypatch.setattr("chapters.markdown.mdx.highlight.HIGHLIGHT_SECONDS_MAX", 0.0)
    assert render_markdown(source) == (
        '<pre><code class="language-python">if a &lt; b: print(&quot;&amp;&quot;)\n</code></pre>'
    )


def test_code_with_more_tokens_than_the_budget_is_shown_plain(monkeypatch):
    source = "```python\nx = [1, 2]\n```"
    assert render_markdown(source).startswith(
        '<div class="highlight"><span class="filename">Python</span><pre><span></span><code>'
    )
    monkeypatch.setattr("chapters.markdown.mdx.highlight.HIGHLIGHT_TOKENS_MAX", 8)
    assert render_markdown(source) == '<pre><code class="language-python">x = [1, 2]\n</code></pre>'
