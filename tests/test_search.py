"""Search: ranking, stemming, highlighting, synonyms, typos and the list as one types (the
search page, its filters, pages and hostile input: tests/test_search_page.py).

Tests without a mark run on both databases and expect the same results from PostgreSQL's
full-text search and the SQLite fallback; tests marked ``postgresql`` need PostgreSQL.
"""

import pytest

from chapters.models import Node, Synonym
from chapters.search import find_nodes, query_terms, snippet, suggest
from tests.helpers import SMALL_TREE, edit, node, soup

SCAFFOLD_CHAPTERS = 170  # every chapter of the curriculum fixture: 222 nodes, 52 sections


def titles(query, **filters):
    """Return the titles ``find_nodes`` finds for ``query``, best first."""
    return [n.title for n in find_nodes(query, **filters)]


def result_titles(response):
    """Return the titles of a search page's results, in the order shown."""
    return [h2.get_text() for h2 in soup(response).select("ol.results h2.result-title")]


def snippets(response):
    """Return the inner HTML of a search page's snippets, in the order shown."""
    return ["".join(map(str, p.contents)) for p in soup(response).select("ol.results p.snippet")]


# Finding and ranking


@pytest.mark.django_db
def test_search_finds_every_node_by_its_exact_title_first(curriculum):
    for each in Node.objects.all():
        same_title = list(Node.objects.filter(title__iexact=each.title).values_list("pk"))
        found = list(find_nodes(each.title).values_list("pk")[: len(same_title)])
        assert found == same_title, each.title


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "kernel",
            [
                "Kernel Methods and Support-Vector Machines",
                "GPU Kernel Optimization",
                "Graph Optimization and Kernel Fusion",
            ],
        ),
        (
            "linear algebra",
            [
                "Linear Algebra",
                "Linear Algebra — Vectors and Matrices",
                "Linear Algebra — Vector Spaces",
                "Linear Algebra — Eigenvalues and Decompositions",
                "Numerical Linear Algebra",
            ],
        ),
        (
            "Fundamentals",
            [
                "Fundamentals",
                "Fundamentals",
                "Optimization — Fundamentals",
                "Concurrency Fundamentals",
                "Practice & Fundamentals",
            ],
        ),
        ('"kernel fusion"', ["Graph Optimization and Kernel Fusion"]),
        ('kernel "fusion', ["Graph Optimization and Kernel Fusion"]),
        (
            "learning -reinforcement",
            [
                "Machine Learning",
                "Classical Machine Learning",
                "Learning Foundations",
                "Probabilistic Machine Learning",
                "Deep-Learning Optimization",
                "Temporal-Difference Learning",
                "Q-Learning",
                "Imitation Learning",
                "Edge Machine Learning",
            ],
        ),
    ],
)
def test_search_ranks_known_queries_on_the_curriculum(curriculum, query, expected):
    assert titles(query) == expected


@pytest.mark.django_db
def test_search_of_excluded_terms_only_finds_the_rest(curriculum):
    # Every chapter's body says "scaffold"; the 52 areas and sections have no body.
    found = titles("-scaffold")
    assert len(found) == 52
    assert found[:3] == ["Mathematics", "Foundations", "Discrete Structures"]


@pytest.mark.django_db
def test_search_ranks_title_matches_above_body_matches(small_tree):
    edit("Chapter One", body="Fusion merges kernels.")
    chapter = node("Chapter Five")
    chapter.title = "Kernel Fusion"
    chapter.save()
    assert titles("fusion") == ["Kernel Fusion", "Chapter One"]


@pytest.mark.django_db
def test_search_follows_edits_and_fixture_loads(small_tree, load_outline):
    edit("Chapter Two", body="Tensor cores multiply matrices.")
    assert titles("tensor cores") == ["Chapter Two"]
    chapter = node("Chapter Two")
    chapter.title = "Matrix Units"
    chapter.save()
    assert titles("matrix units") == ["Matrix Units"]
    # Its old title is gone: only the other chapters' "chapter" matches, the shorter titles
    # first (issue 26: a query some of whose words match answers the pages with some).
    assert titles("chapter two") == [
        "Chapter One",
        "Chapter Six",
        "Chapter Four",
        "Chapter Five",
        "Chapter Three",
    ]
    load_outline(SMALL_TREE)  # the fixture's rows again, with their original bodies
    assert titles("tensor cores") == titles("matrix units") == []
    assert titles("chapter two") == ["Chapter Two"]


@pytest.mark.django_db
@pytest.mark.postgresql
def test_search_stems_words_on_postgresql(curriculum):
    # "optimizing" and "Optimization" both stem to "optim". Every title has the word and no
    # body does, so the titles come in tree order, as on SQLite (issue 26: the same rules
    # on both databases; PostgreSQL's ts_rank put the title saying it twice first).
    assert titles("optimizing") == [
        "Optimization",
        "Optimization — Fundamentals",
        "Optimization — Convex Optimization",
        "Optimization — Numerical Methods",
        "Query Planning and Optimization",
        "Compiler Optimization",
        "Deep-Learning Optimization",
        "GPU Kernel Optimization",
        "Graph Optimization and Kernel Fusion",
        "Hardware-Aware Optimization",
    ]
    assert titles("distilled") == ["Knowledge Distillation"]
    assert titles("batch") == ["Batching and Scheduling"]
    assert titles("rendered") == ["Rendering", "Render Passes", "Rendering Materials"]
    assert titles("compiling") == [
        "Compilers",
        "Compiler Front Ends",
        "Compiler Optimization",
        "ML Compilers",
        "ML Compiler Foundations",
    ]
    # The query's last word is also a prefix ("model" finds "Modeling"), so the forms are
    # compared before another word.
    assert titles("models selection") == titles("model selection")


@pytest.mark.django_db
@pytest.mark.postgresql
def test_search_ignores_stop_words_and_ors_words_on_postgresql(curriculum):
    assert titles("the") == []
    assert titles("quantization or pruning") == ["Quantization", "Pruning and Sparsity"]


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("kernel fusion", (["kernel", "fusion"], [])),
        ('"kernel  fusion" -gpu', (["kernel fusion"], ["gpu"])),
        ('Operating-System "unbalanced  quote', (["Operating-System", "unbalanced quote"], [])),
        ("3D & Animation — !!! - --", (["3D", "Animation"], [])),
        ("' OR 1=1 --", (["OR", "1=1"], [])),
    ],
)
def test_query_terms_reads_web_search_syntax(query, terms):
    assert query_terms(query) == terms


# Snippets and highlighting


@pytest.mark.django_db
def test_search_snippet_marks_matched_words(small_tree):
    edit("Chapter Two", body="Kernel **fusion** merges kernels; fusion saves memory traffic.")
    (found,) = find_nodes("fusion")
    assert snippet(found, "fusion") == (
        "Kernel <mark>fusion</mark> merges kernels; <mark>fusion</mark> saves memory traffic."
    )


@pytest.mark.django_db
def test_search_snippet_marks_word_forms_alike_on_both_databases(small_tree):
    edit("Chapter Two", body="Kernel fusion merges kernels.")
    (found,) = find_nodes("kernel")
    # "kernels" has the stem of "kernel", on either database.
    assert snippet(found, "kernel") == "<mark>Kernel</mark> fusion merges <mark>kernels</mark>."


@pytest.mark.django_db
def test_search_snippet_quotes_a_long_body_around_the_match(small_tree):
    words = [f"w{number}" for number in range(1, 81)]
    words[49] = "fusion"
    edit("Chapter Two", body=" ".join(words))
    (found,) = find_nodes("fusion")
    # Eight words before the first match, 30 in all, "…" where the text was cut.
    expected = ["…", *words[41:49], "<mark>fusion</mark>", *words[50:71], "…"]
    assert snippet(found, "fusion") == " ".join(expected)


@pytest.mark.django_db
def test_search_snippet_quotes_a_formula_as_readable_text(small_tree):
    # Search matches the TeX source; the snippet shows the formula as a reader reads it
    # (issue 26: "snippets are the text readers see, formulas as readable text").
    edit("Chapter Two", body=r"Each kernel costs $T \approx 2kn \cdot b / BW + k t_{launch}$.")
    (found,) = find_nodes("kernel")
    assert snippet(found, "kernel") == "Each <mark>kernel</mark> costs T ≈ 2kn · b/BW + k t_launch."
    assert [n.title for n in find_nodes("t_launch")] == ["Chapter Two"]


@pytest.mark.django_db
def test_search_snippet_escapes_a_hostile_body(small_tree):
    edit(
        "Chapter Two",
        body='Fusion: `<script>alert(1)</script>` `<img src=x onerror="alert(2)">` a < b & c > d',
    )
    (found,) = find_nodes("fusion")
    assert snippet(found, "fusion") == (
        "<mark>Fusion</mark>: &lt;script&gt;alert(1)&lt;/script&gt; "
        "&lt;img src=x onerror=&quot;alert(2)&quot;&gt; a &lt; b &amp; c &gt; d"
    )


@pytest.mark.django_db
@pytest.mark.postgresql
def test_search_snippet_of_a_body_with_the_highlight_sentinels_adds_no_markup(small_tree):
    text = "Fusion \x01<\x02mark\x03 \x02x\x03"  # as if written around save()
    sections = [{"id": "", "title": "", "text": text}]
    Node.objects.filter(title="Chapter Two").update(body_text=text, sections=sections)
    (found,) = find_nodes("fusion")
    assert snippet(found, "fusion") == "<mark>Fusion</mark> &lt;mark x"


@pytest.mark.django_db
def test_search_snippet_of_a_title_match_quotes_the_start_of_the_body(small_tree):
    (found,) = find_nodes("three chapter")
    assert snippet(found, "three chapter") == "This <mark>chapter</mark> is currently a scaffold."


# Synonyms


@pytest.mark.django_db
def test_search_finds_a_word_by_a_synonym_an_editor_adds(admin_client, small_tree):
    edit("Chapter Two", body="Caching the key-value pairs of earlier tokens.")
    assert titles("kv") == []
    response = admin_client.post(
        "/admin/chapters/synonym/add/", {"word": "KV", "same_as": "Key-Value"}
    )
    assert response.status_code == 200  # "Key-Value" is two words
    assert [li.get_text() for li in soup(response).select("ul.errorlist li")] == [
        "Write one word (letters and digits)."
    ]
    admin_client.post("/admin/chapters/synonym/add/", {"word": "KV", "same_as": "cache"})
    assert list(Synonym.objects.filter(word="kv").values_list("word", "same_as")) == [
        ("kv", "cache")
    ]
    assert titles("kv") == ["Chapter Two"]


@pytest.mark.django_db
def test_search_finds_british_and_american_spellings(curriculum):
    assert titles("quantisation") == titles("quantization") == ["Quantization"]
    assert titles("colour") == ["Color and Exposure", "Color Theory"]


# Typos


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "corrected"),
    [
        ("tranformer", "transformers"),
        ("memory heirarchy", "memory hierarchy"),
        ("reinforcemnt -deep", "reinforcement -deep"),
        ("kernel", ""),  # finds something
        ("zzzzzz", ""),  # like nothing
    ],
)
def test_search_suggest_corrects_words_from_titles(curriculum, query, corrected):
    assert suggest(query) == corrected


@pytest.mark.django_db
def test_search_page_shows_the_results_of_a_correction(client, curriculum):
    page = soup(client.get("/search/", {"q": "tranformer"}))
    assert page.find(class_="result-correction").get_text() == (
        "No pages match “tranformer”. Showing results for “transformers”."
    )
    assert page.find(class_="result-count").get_text() == "2 results for “transformers”"


# Top results as one types


@pytest.mark.django_db
def test_search_top_results_answer_json_with_marked_titles_and_paths(client, curriculum):
    response = client.get("/search/top.json", {"q": "  kernel   fus"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "query": "kernel fus",
        "corrected": "",
        "results": [
            {
                "title": "Graph Optimization and Kernel Fusion",
                "title_html": "Graph Optimization and <mark>Kernel</mark> <mark>Fusion</mark>",
                "heading": "",
                "heading_html": "",
                "url": "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/",
                "path": "ML Systems › ML Compilers",
            }
        ],
    }


@pytest.mark.django_db
def test_search_top_results_correct_typos_and_wait_for_two_characters(client, curriculum):
    data = client.get("/search/top.json", {"q": "tranformer"}).json()
    assert (data["corrected"], [r["title"] for r in data["results"]]) == (
        "transformers",
        ["Transformers", "Transformers and Language Models"],
    )
    for query in ["", "q", " k ", "\x00k"]:
        assert client.get("/search/top.json", {"q": query}).json()["results"] == []
    # Control characters are dropped, as the search page drops them (NUL answered nothing).
    typed = client.get("/search/top.json", {"q": "kernel\x00 \x07fusion"}).json()
    assert (typed["query"], typed["results"]) == (
        "kernel fusion",
        client.get("/search/top.json", {"q": "kernel fusion"}).json()["results"],
    )
    assert typed["results"][0]["title"] == "Graph Optimization and Kernel Fusion"
    assert client.post("/search/top.json", {"q": "kernel"}).status_code == 405


@pytest.mark.django_db
def test_search_top_results_escape_titles(client, small_tree):
    edit("Chapter Two", title="<img src=x onerror=alert(1)> fusion")
    (result,) = client.get("/search/top.json", {"q": "fusion"}).json()["results"]
    assert result["title_html"] == "&lt;img src=x onerror=alert(1)&gt; <mark>fusion</mark>"


@pytest.mark.django_db
def test_search_top_results_are_kept_per_version(client, curriculum, django_assert_num_queries):
    first = client.get("/search/top.json", {"q": "quant"})
    # The version only (read by a query in a test's transaction, on either database).
    with django_assert_num_queries(1):
        again = client.get("/search/top.json", {"q": "quant"})
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]
    assert again["Cache-Control"] == "no-cache"
    not_modified = client.get(
        "/search/top.json", {"q": "quant"}, headers={"if-none-match": first["ETag"]}
    )
    assert not_modified.status_code == 304
    edit("Pruning and Sparsity", title="Pruning Quantized Models")
    after = client.get("/search/top.json", {"q": "quant"}, headers={"if-none-match": first["ETag"]})
    assert after.status_code == 200
    assert [r["title"] for r in after.json()["results"]] == [
        "Quantization",
        "Pruning Quantized Models",
    ]
