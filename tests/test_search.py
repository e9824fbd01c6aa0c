"""Search: ranking, stemming, highlighting, filters, pagination and hostile input.

Tests without a mark run on both databases and expect the same results from PostgreSQL's
full-text search and the SQLite fallback; tests marked ``postgresql`` need PostgreSQL.
"""

import pytest
from django.db import connection
from pytest_django.asserts import assertInHTML

from chapters.models import Node, Synonym
from chapters.search import find_nodes, kept, query_terms, snippet, suggest
from tests.helpers import SITE_SCRIPTS, SMALL_TREE, edit, node, page_scripts, soup

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
    assert titles("chapter two") == []
    load_outline(SMALL_TREE)  # the fixture's rows again, with their original bodies
    assert titles("tensor cores") == titles("matrix units") == []
    assert titles("chapter two") == ["Chapter Two"]


@pytest.mark.django_db
@pytest.mark.postgresql
def test_search_stems_words_on_postgresql(curriculum):
    # "optimizing" and "Optimization" both stem to "optim"; the convex chapter says it twice.
    assert titles("optimizing") == [
        "Optimization — Convex Optimization",
        "Optimization",
        "Optimization — Fundamentals",
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


# The search page


@pytest.mark.django_db
def test_search_page_shows_title_path_status_and_snippet(client, curriculum):
    Node.objects.filter(title="Graph Optimization and Kernel Fusion").update(status="published")
    response = client.get("/search/", {"q": "kernel fusion"})
    assert response.status_code == 200
    assertInHTML(
        """
        <li class="result">
          <h2 class="result-title">
            <a href="/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/">
              Graph Optimization and <mark>Kernel</mark> <mark>Fusion</mark></a>
          </h2>
          <div class="result-meta">
            <ol class="result-path" aria-label="Path">
              <li><a href="/ml-systems/">ML Systems</a></li>
              <li><a href="/ml-systems/ml-compilers/">ML Compilers</a></li>
            </ol>
            <span class="kind">Chapter</span>
            <span class="status status-published">Published</span>
          </div>
          <p class="snippet">This chapter is currently a scaffold.</p>
        </li>
        """,
        response.content.decode(),
    )
    page = soup(response)
    assert page.find(class_="result-count").get_text() == "1 result for “kernel fusion”"
    assert page.title.get_text() == "kernel fusion · Search · Curriculum Wiki"


@pytest.mark.django_db
def test_search_page_shows_an_area_without_path_or_snippet(client, curriculum):
    response = client.get("/search/", {"q": "ML Systems"})
    first = soup(response).select_one("ol.results > li")
    assert first.h2.get_text() == "ML Systems"
    assert (first.find(class_="result-path"), first.find(class_="snippet")) == (None, None)


@pytest.mark.django_db
def test_search_page_without_a_query_shows_the_form_only(client, curriculum):
    for params in [{}, {"q": ""}, {"q": "   "}, {"q": "", "area": "ml-systems", "status": "draft"}]:
        response = client.get("/search/", params)
        assert response.status_code == 200
        page = soup(response)
        assert page.find("form", class_="search-form") is not None
        assert (page.find(class_="results"), page.find(class_="result-count")) == (None, None)


@pytest.mark.django_db
def test_search_page_says_when_nothing_matches(client, curriculum):
    response = client.get("/search/", {"q": "nonexistentword"})
    assert soup(response).find(class_="result-count").get_text() == (
        "No pages match “nonexistentword”."
    )
    assert soup(response).find(class_="results") is None


@pytest.mark.django_db
def test_search_page_marks_the_matched_words_of_titles(client, curriculum):
    response = client.get("/search/", {"q": "backprop"})
    (title,) = soup(response).select("ol.results h2.result-title a")
    assert "".join(map(str, title.contents)) == "<mark>Backpropagation</mark>"
    response = client.get("/search/", {"q": "QUANTISATION"})
    (title,) = soup(response).select("ol.results h2.result-title a")
    assert "".join(map(str, title.contents)) == "<mark>Quantization</mark>"


@pytest.mark.django_db
def test_search_page_with_no_results_offers_all_areas_and_statuses(client, curriculum):
    response = client.get("/search/", {"q": "zzzz qqqq", "area": "mathematics", "status": "review"})
    nothing = soup(response).find(class_="search-nothing")
    links = [(a.get_text(), a["href"]) for a in nothing.find_all("a")]
    assert links[0] == (
        "Search all areas and statuses for “zzzz qqqq”",
        "/search/?q=zzzz%20qqqq",
    )
    assert links[1:4] == [
        ("Mathematics", "/mathematics/"),
        ("Computer Science", "/computer-science/"),
        ("Systems", "/systems/"),
    ]
    assert len(links) == 9
    unfiltered = soup(client.get("/search/", {"q": "zzzz"})).find(class_="search-nothing")
    assert "Search all" not in unfiltered.get_text()


@pytest.mark.django_db
def test_search_page_costs_its_queries_once_per_version(
    client, curriculum, django_assert_num_queries, monkeypatch
):
    # The version, read by the page and by search (each a query in a test's transaction,
    # from memory otherwise), the first results ranked and counted, the page of results read
    # by id, their ancestors; on PostgreSQL the planner's setting (search.indexed); and once
    # per version, the areas, for the form and the page without results
    # (chapters.search.areas), and the synonyms (chapters.search.kept), which an earlier
    # test may have read at this version: forgotten here. Then the page is kept at this
    # version (chapters.views._kept_search_page): the version only.
    monkeypatch.setattr(kept, "_table", (None, {}))
    queries = 6 if connection.vendor == "postgresql" else 5
    with django_assert_num_queries(queries + 2):
        response = client.get("/search/", {"q": "scaffold"})
    assert len(result_titles(response)) == 20
    with django_assert_num_queries(1):
        response = client.get("/search/", {"q": "scaffold"})
    assert len(result_titles(response)) == 20


@pytest.mark.django_db
def test_search_box_is_in_the_header_of_every_page(client, curriculum):
    box = """
        <form role="search" aria-label="Site search" class="site-search" method="get"
              action="/search/">
          <label class="visually-hidden" for="site-search-q">Search the wiki</label>
          <input type="search" id="site-search-q" name="q" value="%s"
                 placeholder="Search" aria-keyshortcuts="/" autocomplete="off" role="combobox"
                 aria-autocomplete="list" aria-expanded="false"
                 aria-controls="site-search-results" data-top-results="/search/top.json">
          <button type="submit" class="icon-button">
            <svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="18" height="18">
              <circle cx="10.5" cy="10.5" r="6.5" fill="none" stroke="currentColor"
                      stroke-width="2"/>
              <path d="m15.5 15.5 5 5" stroke="currentColor" stroke-width="2"
                    stroke-linecap="round"/>
            </svg>
            <span class="visually-hidden">Search</span>
          </button>
          <ul id="site-search-results" class="site-search-results" role="listbox"
              aria-label="Top results" hidden></ul>
        </form>
    """
    for url in ["/", "/ml-systems/", "/ml-systems/ml-compilers/", "/no-such-page/", "/search/"]:
        header = str(soup(client.get(url)).header)
        assertInHTML(box % "", header)
    assertInHTML(box % "kernel", str(soup(client.get("/search/?q=kernel")).header))


# Filters


@pytest.mark.django_db
def test_search_filters_by_area_and_status(client, curriculum):
    Node.objects.filter(title="GPU Kernel Optimization").update(status="review")
    Node.objects.filter(title="Optimization — Fundamentals").update(status="review")
    assert titles("optimization", area="ml-systems") == [
        "GPU Kernel Optimization",
        "Graph Optimization and Kernel Fusion",
        "Hardware-Aware Optimization",
    ]
    assert titles("optimization", area="ml-systems", status="draft") == [
        "Graph Optimization and Kernel Fusion",
        "Hardware-Aware Optimization",
    ]
    assert titles("optimization", status="review") == [
        "Optimization — Fundamentals",
        "GPU Kernel Optimization",
    ]
    response = client.get(
        "/search/", {"q": "optimization", "area": "ml-systems", "status": "review"}
    )
    assert result_titles(response) == ["GPU Kernel Optimization"]
    form = soup(response).find("form", class_="search-form")
    assert form.find("select", attrs={"name": "area"}).find(selected=True)["value"] == "ml-systems"
    assert form.find("select", attrs={"name": "status"}).find(selected=True)["value"] == "review"


@pytest.mark.django_db
def test_search_area_filter_does_not_take_an_area_whose_slug_extends_it(load_outline):
    load_outline("Area\n  Kernels\nArea B\n  Kernels Too\n")
    assert list(Node.objects.values_list("path", flat=True)) == [
        "area",
        "area/kernels",
        "area-b",
        "area-b/kernels-too",
    ]
    assert titles("kernels", area="area") == ["Kernels"]


@pytest.mark.django_db
def test_search_page_offers_areas_in_tree_order(client, curriculum):
    options = soup(client.get("/search/")).find("select", attrs={"name": "area"}).find_all("option")
    assert [(o["value"], o.get_text()) for o in options] == [
        ("", "All areas"),
        ("mathematics", "Mathematics"),
        ("computer-science", "Computer Science"),
        ("systems", "Systems"),
        ("machine-learning", "Machine Learning"),
        ("ml-systems", "ML Systems"),
        ("3d-animation", "3D & Animation"),
        ("digital-illustration", "Digital & Illustration"),
        ("practice-fundamentals", "Practice & Fundamentals"),
    ]


@pytest.mark.django_db
def test_search_page_areas_follow_edits(client, curriculum):
    client.get("/search/", {"q": "zzzz"})  # the areas are kept for this version
    Node(title="Zebra Studies", kind=Node.Kind.SECTION).save()
    page = soup(client.get("/search/", {"q": "zzzz", "area": "zebra-studies"}))
    options = page.find("select", attrs={"name": "area"}).find_all("option")
    assert len(options) == 10
    assert [(o["value"], o.get_text()) for o in options if o.has_attr("selected")] == [
        ("zebra-studies", "Zebra Studies")
    ]
    links = [(a.get_text(), a["href"]) for a in page.select("ul.search-areas a")]
    assert links[-1] == ("Zebra Studies", "/zebra-studies/")
    assert len(links) == 9


@pytest.mark.django_db
def test_search_page_with_a_refused_area_shows_all_areas_chosen(client, curriculum):
    response = client.get("/search/", {"q": "kernel", "area": "nowhere"})
    select = soup(response).find("select", attrs={"name": "area"})
    assert select["aria-invalid"] == "true"
    assert select["id"] == "id_area"
    assert [o["value"] for o in select.find_all("option") if o.has_attr("selected")] == [""]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "errors"),
    [
        ({"area": "nowhere"}, ["There is no area “nowhere”."]),
        ({"area": "ml-systems/ml-compilers"}, ["There is no area “ml-systems/ml-compilers”."]),
        ({"status": "archived"}, ["There is no status “archived”."]),
        ({"status": "Draft"}, ["There is no status “Draft”."]),
        (
            {"area": "<script>alert(1)</script>", "status": "' OR 1=1 --"},
            [
                "There is no area “<script>alert(1)</script>”.",
                "There is no status “' OR 1=1 --”.",
            ],
        ),
        ({"q": "fusion\x00"}, ["Null characters are not allowed."]),
    ],
)
def test_search_page_refuses_unknown_filter_values_with_400(client, curriculum, params, errors):
    response = client.get("/search/", {"q": "kernel", **params})
    assert response.status_code == 400
    page = soup(response)
    assert [li.get_text() for li in page.select("ul.errorlist li")] == errors
    assert page_scripts(page) == SITE_SCRIPTS
    assert page.find(class_="results") is None


# Pagination


@pytest.mark.django_db
def test_search_page_paginates_twenty_results_a_page(client, curriculum):
    chapters = list(Node.objects.filter(kind=Node.Kind.CHAPTER).values_list("title", flat=True))
    assert len(chapters) == SCAFFOLD_CHAPTERS
    pages = [client.get("/search/", {"q": "scaffold", "page": n}) for n in (1, 2, 9)]
    assert [result_titles(page) for page in pages] == [
        chapters[:20],
        chapters[20:40],
        chapters[160:],
    ]
    first, second, last = (soup(page) for page in pages)
    assert first.find(class_="result-count").get_text() == "170 results for “scaffold”"
    assert second.find("ol", class_="results")["start"] == "21"
    nav = second.find("nav", attrs={"aria-label": "Pages of results"})
    assert [(a["rel"], a["href"]) for a in nav.find_all("a")] == [
        (["prev"], "?q=scaffold&page=1"),
        (["next"], "?q=scaffold&page=3"),
    ]
    assert " ".join(nav.get_text().split()) == "Previous Page 2 of 9 Next"
    assert [a["rel"] for a in last.find(class_="result-pages").find_all("a")] == [["prev"]]


@pytest.mark.django_db
def test_search_page_links_keep_the_filters(client, curriculum):
    response = client.get("/search/", {"q": "scaffold", "area": "machine-learning"})
    nav = soup(response).find("nav", attrs={"aria-label": "Pages of results"})
    assert [a["href"] for a in nav.find_all("a")] == ["?q=scaffold&area=machine-learning&page=2"]
    assert soup(response).find(class_="result-count").get_text() == "32 results for “scaffold”"


@pytest.mark.django_db
def test_search_page_has_no_page_links_for_one_page(client, curriculum):
    response = client.get("/search/", {"q": "kernel"})
    assert soup(response).find(class_="result-pages") is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("page", "shown"), [("abc", 1), ("0", 9), ("-1", 9), ("99999999999999999999", 9), ("", 1)]
)
def test_search_page_number_out_of_range_shows_first_or_last_page(client, curriculum, page, shown):
    response = client.get("/search/", {"q": "scaffold", "page": page})
    assert response.status_code == 200
    nav = soup(response).find("nav", attrs={"aria-label": "Pages of results"})
    assert f"Page {shown} of 9" in nav.get_text()


# Hostile input


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("<script>alert(1)</script>", 0),
        ('"><img src=x onerror=alert(1)>', 0),
        ("' OR 1=1 --", 0),
        ("'; DROP TABLE chapters_node; --", 0),
        ("%", 0),
        ("_", 0),
        ("a_b%c", 0),
        ('"', 0),
        ('kernel"', 3),
        ('"kernel', 3),
        ("!!! ??? ...", 0),
        ("-", 0),
        ("\\", 0),
        ("& | ! <-> :*", 0),
        ("🙂", 0),
        ("gpu " * 2500, 4),
    ],
)
def test_search_page_answers_hostile_queries_with_200(client, curriculum, query, found):
    response = client.get("/search/", {"q": query})
    assert response.status_code == 200
    page = soup(response)
    assert page_scripts(page) == SITE_SCRIPTS
    assert page.find("img") is None
    assert len(result_titles(response)) == found


@pytest.mark.django_db
def test_search_page_cuts_a_long_query_to_200_characters(client, curriculum):
    query = "kernel " + "x" * 10_000
    response = client.get("/search/", {"q": query})
    assert response.status_code == 200
    page = soup(response)
    assert page.find("input", id="id_q")["value"] == query[:200]
    assert page.find("input", id="site-search-q")["value"] == query[:200]
    assert page.find(class_="result-count").get_text() == f"No pages match “{query[:200]}”."


@pytest.mark.django_db
def test_search_page_escapes_the_query_everywhere(client, curriculum):
    response = client.get("/search/", {"q": "<b>kernel</b>"})
    html = response.content.decode()
    assert "<b>" not in html
    assert html.count("&lt;b&gt;kernel&lt;/b&gt;") == 4  # title, both inputs, result count


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
