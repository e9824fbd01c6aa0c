"""Search results open at their best-matching heading, name it, and quote readable text.

Issue 26, "Results": each result opens at the heading whose section holds most of the
query's terms (``url#id``) and names it; snippets are the text readers see, formulas as
readable text; the as-you-type list names the heading too. On both databases
(chapters/search/sections.py, chapters/markdown/text.py, chapters/markdown/formulas.py).
"""

import pytest

from chapters.markdown import html_to_text_and_sections, render_markdown
from chapters.models import Node
from chapters.search import Quoter, find_nodes, parse_query
from tests.helpers import edit, soup
from tests.test_migrations import migrate_to_latest, store_before

CHAPTER_TWO = "/area-a/section-a1/chapter-two/"

# A chapter with an intro, three sections and a formula, as a learner's page is.
KERNELS = r"""Kernels run on the GPU.

## Launch overhead

Every launch costs time: $T \approx 2kn \cdot b / BW + k t_{launch}$ for $k$ kernels.

## Kernel fusion

Fusion merges **kernels**, so one [launch](https://example.com/launch) does the work of many.

### Fusion in compilers

Compilers fuse elementwise operations.
"""


def result(response):
    """Return the first search result's link: its href, its text and its heading's HTML."""
    link = soup(response).select_one("ol.results h2.result-title a")
    heading = link.select_one(".result-heading")
    return link["href"], link.get_text(), heading and "".join(map(str, heading.contents))


def snippet_html(response):
    """Return the inner HTML of the first result's snippet."""
    return "".join(map(str, soup(response).select_one("ol.results p.snippet").contents))


@pytest.mark.django_db
def test_a_result_opens_at_the_heading_whose_section_holds_most_terms(client, small_tree):
    edit("Chapter Two", body=KERNELS)
    response = client.get("/search/", {"q": "launch overhead time"})
    assert result(response) == (
        f"{CHAPTER_TWO}#launch-overhead",
        "Chapter Two, at › Launch overhead",
        '<span class="visually-hidden">, at</span><span aria-hidden="true"> ›</span> '
        "<mark>Launch</mark> <mark>overhead</mark>",
    )
    # Formulas read as a reader reads them: no TeX, no dollar signs.
    assert snippet_html(response) == (
        "Every <mark>launch</mark> costs <mark>time</mark>: T ≈ 2kn · b/BW + k "
        "t_<mark>launch</mark> for k kernels."
    )


@pytest.mark.django_db
def test_a_heading_holding_the_terms_weighs_above_a_body_holding_them(client, small_tree):
    # "fusion" is under "Kernel fusion" and in the heading "Fusion in compilers"; of the
    # two sections holding it, the one whose heading holds it wins, the first of those.
    edit("Chapter Two", body=KERNELS)
    response = client.get("/search/", {"q": "fusion"})
    # The snippet is the text readers see: no Markdown's asterisks, brackets or addresses.
    assert result(response)[:2] == (
        f"{CHAPTER_TWO}#kernel-fusion",
        "Chapter Two, at › Kernel fusion",
    )
    assert snippet_html(response) == (
        "<mark>Fusion</mark> merges kernels, so one launch does the work of many."
    )
    response = client.get("/search/", {"q": "compilers fuse"})
    assert result(response)[:2] == (
        f"{CHAPTER_TWO}#fusion-in-compilers",
        "Chapter Two, at › Fusion in compilers",
    )
    assert (
        snippet_html(response) == "<mark>Compilers</mark> <mark>fuse</mark> elementwise operations."
    )


@pytest.mark.django_db
def test_a_match_in_the_intro_or_only_in_the_title_opens_the_top(client, small_tree):
    edit("Chapter Two", body=KERNELS)
    response = client.get("/search/", {"q": "gpu"})
    assert result(response) == (CHAPTER_TWO, "Chapter Two", None)
    assert snippet_html(response) == "Kernels run on the <mark>GPU</mark>."
    response = client.get("/search/", {"q": "chapter two"})
    assert result(response) == (CHAPTER_TWO, "Chapter Two", None)
    assert snippet_html(response) == (
        "Kernels run on the GPU. Launch overhead Every launch costs time: T ≈ 2kn · b/BW + k "
        "t_launch for k kernels. Kernel fusion Fusion merges kernels, so one launch …"
    )


@pytest.mark.django_db
def test_a_result_found_by_an_identifier_s_parts_opens_at_the_identifier_s_heading(
    client, small_tree
):
    edit(
        "Chapter Two",
        body="Threads share memory.\n\n## Locks\n\nA lock guards a counter.\n\n"
        "## Running tasks at once\n\n`ThreadPoolExecutor` runs them; `lru_cache` keeps them.",
    )
    for query in ("thread pool executor", "lrucache"):
        response = client.get("/search/", {"q": query})
        href, text, _ = result(response)
        assert (href, text) == (
            f"{CHAPTER_TWO}#running-tasks-at-once",
            "Chapter Two, at › Running tasks at once",
        )


@pytest.mark.django_db
def test_the_top_results_name_the_heading_and_link_to_it(client, small_tree):
    edit("Chapter Two", body=KERNELS)
    response = client.get("/search/top.json", {"q": "overhead"})
    assert response.json()["results"] == [
        {
            "title": "Chapter Two",
            "title_html": "Chapter Two",
            "heading": "Launch overhead",
            "heading_html": "Launch <mark>overhead</mark>",
            "url": f"{CHAPTER_TWO}#launch-overhead",
            "path": "Area A › Section A1",
        }
    ]


@pytest.mark.django_db
def test_quoting_results_reads_nothing_more_from_the_database(
    small_tree, django_assert_num_queries
):
    edit("Chapter Two", body=KERNELS)
    parsed = parse_query("kernels")
    nodes = list(find_nodes(parsed))
    quote = Quoter(parsed)
    with django_assert_num_queries(0):
        quotes = [quote(found) for found in nodes]
    assert [(q.url, q.heading) for q in quotes] == [
        (f"{CHAPTER_TWO}#kernel-fusion", "Kernel fusion")
    ]


def test_sections_hold_the_text_by_heading_with_formulas_readable():
    html = render_markdown(KERNELS)
    assert html_to_text_and_sections(html)[1] == [
        {"id": "", "title": "", "text": "Kernels run on the GPU."},
        {
            "id": "launch-overhead",
            "title": "Launch overhead",
            "text": "Every launch costs time: T ≈ 2kn · b/BW + k t_launch for k kernels.",
        },
        {
            "id": "kernel-fusion",
            "title": "Kernel fusion",
            "text": "Fusion merges kernels, so one launch does the work of many.",
        },
        {
            "id": "fusion-in-compilers",
            "title": "Fusion in compilers",
            "text": "Compilers fuse elementwise operations.",
        },
    ]
    # The text search matches keeps the TeX source, as before.
    assert html_to_text_and_sections(html)[0] == html_to_text_and_sections(html)[0].strip()
    assert r"T \approx 2kn" in html_to_text_and_sections(html)[0]


def test_a_body_that_starts_with_a_heading_has_no_intro_and_a_heading_may_hold_a_formula():
    html = render_markdown("## The $\\frac{a}{b}$ rule[^1]\n\nDivide.\n\n[^1]: Note.")
    assert html_to_text_and_sections(html)[1] == [
        {"id": "the-ab-rule", "title": "The a/b rule", "text": "Divide. Note."}
    ]


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\frac{e^{z_i}}{\sum_j e^{z_j}}", "e^(z_i)/(∑_j e^(z_j))"),
        (r"\frac{a+b}{2}", "(a + b)/2"),
        (r"\sqrt{x^2+1} + \sqrt[3]{8}", "√(x² + 1) + ³√8"),
        (r"\sum_{i=1}^{n} i", "∑_(i = 1)^n i"),
        (r"\lim_{n \to \infty} a_n", "lim_(n → ∞) a_n"),
        (r"\int_0^1 f", "∫₀¹ f"),
        (r"\hat{x} + \vec{v}", "x̂ + v⃗"),
        (r"\begin{pmatrix}a & b\\ c & d\end{pmatrix}", "(a, b; c, d)"),
        (r"\text{if } x \le 0", "if x ≤ 0"),
        (r"\mathrm{softmax}(z) \cdot \sin x", "softmax(z) · sin x"),
        (r"O(n \log n)", "O(n log n)"),
        (r"-x, f(x)", "−x, f(x)"),
        (r"e^{-x^2}", "e^(−x²)"),
    ],
)
def test_a_formula_reads_as_plain_text(tex, text):
    html = render_markdown(f"${tex}$")
    assert html_to_text_and_sections(html)[1] == [{"id": "", "title": "", "text": text}]


@pytest.mark.django_db(transaction=True)
def test_migration_fills_sections_from_the_stored_html():
    store_before(
        "0030_prerequisites",
        body="x",
        body_html='<p>Intro.</p>\n<h2 id="fusion">Fusion</h2>\n<p>Costs <math alttext="n^2">'
        "<mrow><msup><mi>n</mi><mn>2</mn></msup></mrow></math>.</p>",
    )
    migrate_to_latest()
    assert Node.objects.get(slug="area").sections == [
        {"id": "", "title": "", "text": "Intro."},
        {"id": "fusion", "title": "Fusion", "text": "Costs n²."},
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "heading"),
    [
        ("bezier", "Curves"),  # accents folded: "Bézier"
        ("flies", "Insects"),  # an English stem the word does not start with: "fly", "fli"
        ("happiness", "Moods"),  # "happy", "happi"
        ("serialise", "Formats"),  # a spelling variant: "serialize"
        ("张量", "Tensors"),  # a substring, in a script written without spaces
        ("smooth or insect", "Insects"),  # either; "Insects" holds one in its heading
    ],
)
def test_a_section_holds_a_term_as_the_highlighter_marks_it(query, heading):
    sections = [
        {"id": "", "title": "", "text": "Nothing here."},
        {"id": "curves", "title": "Curves", "text": "Bézier curves are smooth."},
        {"id": "insects", "title": "Insects", "text": "A fly is small."},
        {"id": "moods", "title": "Moods", "text": "Be happy."},
        {"id": "formats", "title": "Formats", "text": "To serialize is to write out."},
        {"id": "tensors", "title": "Tensors", "text": "张量并行 splits them."},
    ]
    quote = Quoter(parse_query(query))
    assert sections[quote.best(sections)]["title"] == heading


def test_a_formula_nested_deeper_than_python_s_stack_reads_flat():
    # latex2mathml converts 300 nested fractions; read level by level, they would exhaust
    # Python's stack and a save would fail.
    html = render_markdown("$" + r"\frac{" * 300 + "x" + "}{y}" * 300 + "$")
    assert html_to_text_and_sections(html)[1] == [{"id": "", "title": "", "text": "x" + "y" * 300}]
