"""Search answers learners' questions: words some pages lack, ranking, spellings, identifiers.

Every test runs on both databases and expects the same first result from each (issue 26).
"""

import pytest

from chapters import search
from chapters.search import answer, find_nodes, suggest, top_results
from tests.helpers import edit, soup
from tests.search_relevance import found_titles

CHAPTERS = ["Chapter One", "Chapter Two", "Chapter Three", "Chapter Four", "Chapter Five"]


def write_pages(*pages):
    """Give the small tree's first chapters, in tree order, the ``(title, body)`` of ``pages``."""
    for chapter, (title, body) in zip(CHAPTERS, pages, strict=False):
        edit(chapter, title=title, body=body)


def top_titles(query):
    """Return the titles of the as-you-type list's results for ``query``."""
    return [result["title"] for result in top_results(query)["results"]]


def first(query):
    """Return the title of the first result the search page shows for ``query``, or None."""
    return (found_titles(query, 1) or [None])[0]


QUESTIONS = [
    ("Binary Search", "Halve the range at each step until the key is found in a sorted array."),
    ("Lists", "A list keeps its items in order; sorted() returns a new one."),
    ("Search Engines", "An inverted index maps each word to the pages that use it."),
    (
        "Reading Passwords",
        "The getpass module shows a prompt and reads a password while the typed text stays hidden.",
    ),
    ("Echo Servers", "An echo server sends back every byte it receives."),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("binary search in a sorted list", "Binary Search"),
        ("prompt for a password without echo", "Reading Passwords"),
    ],
)
def test_search_answers_a_question_no_page_has_every_word_of(small_tree, query, expected):
    write_pages(*QUESTIONS)
    assert first(query) == expected


@pytest.mark.django_db
def test_search_of_some_words_ranks_pages_with_more_of_them_first(small_tree):
    write_pages(*QUESTIONS)
    found = [node.title for node in find_nodes("binary search sorted list")]
    assert found[:2] == ["Binary Search", "Lists"]
    assert set(found[2:]) == {"Search Engines"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("principle component analysis", "Principal Component Analysis"),
        ("threads synchronization", "Synchronization"),
    ],
)
def test_search_answers_questions_on_the_curriculum(curriculum, query, expected):
    assert first(query) == expected


@pytest.mark.django_db
def test_search_of_words_half_of_which_the_wiki_lacks_is_corrected_first(small_tree):
    write_pages(
        ("Memory Hierarchy", "Caches sit between registers and memory."),
        ("Registers", "The fastest memory of all."),
    )
    found = find_nodes("memory heirarchy")
    assert ([node.title for node in found], found.every, found.few) == (
        ["Memory Hierarchy", "Registers"],
        False,
        True,
    )
    assert suggest("memory heirarchy") == "memory hierarchy"
    _parsed, found, corrected = answer("memory heirarchy")
    assert ([node.title for node in found], found.every, corrected) == (
        ["Memory Hierarchy"],
        True,
        "memory hierarchy",
    )


@pytest.mark.django_db
def test_a_corrected_query_s_pages_with_some_words_are_never_ranked(small_tree, monkeypatch):
    write_pages(("Memory Hierarchy", "Caches sit between registers and memory."))
    backend = search._backend_of("default")
    ranked = []
    find = backend.find

    def recorded(nodes, query, title_is_query, *, every=True):
        ranked.append((" ".join(term.text for term in query.terms), every))
        return find(nodes, query, title_is_query, every=every)

    monkeypatch.setattr(backend, "find", recorded)
    assert top_titles("memory heirarchy") == ["Memory Hierarchy"]
    _parsed, found, corrected = answer("memory heirarchy")
    assert [node.title for node in found] == ["Memory Hierarchy"]
    # Every word, in vain; then, in suggest(), the correction, to check that it finds all its
    # words; then the correction's results. Twice: the as-you-type list, then the page.
    asked = [("memory heirarchy", True), ("memory hierarchy", True), ("memory hierarchy", True)]
    assert ranked == asked * 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["how do i fuse kernels", "kernels zzzzzz qqqqqq", "kernel xxxxxxxxx wwwwwwww"]
)
def test_search_answers_pages_while_one_word_of_many_matches(small_tree, query):
    write_pages(
        ("Kernels", "A kernel runs on the device."),
        ("Streams", "Streams order the work of the device."),
    )
    _parsed, found, corrected = answer(query)
    assert ([node.title for node in found], found.every, found.few, corrected) == (
        ["Kernels"],
        False,
        True,
        "",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("serialise", "Serialization"),
        ("synchronise", "Synchronization Primitives"),
        ("customise", "Customizing Forms"),
        ("initialise", "Initialization Order"),
        ("catalogue", "The Package Catalog"),
    ],
)
def test_search_finds_british_spellings_by_rule(small_tree, query, expected):
    write_pages(
        ("Serialization", "Objects become JSON."),
        ("Synchronization Primitives", "Locks and semaphores."),
        ("Customizing Forms", "Widgets and fields."),
        ("Initialization Order", "Modules run top to bottom."),
        ("The Package Catalog", "Every package the index lists."),
    )
    assert [node.title for node in find_nodes(query)] == [expected]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [("context manager", "The with Statement"), ("abstract base class", "Interfaces")],
)
def test_search_ranks_the_page_about_a_body_phrase_first(small_tree, query, expected):
    write_pages(
        (
            "Files",
            "Open a file in a context where a manager of resources closes it; a base class "
            "of streams is abstract.",
        ),
        (
            "Objects",
            "A class may be abstract, with a base class; its context decides who is its manager.",
        ),
        (
            "The with Statement",
            "## Context managers\n\nA context manager defines `__enter__` and `__exit__`. "
            "Write a context manager with `contextlib`.",
        ),
        (
            "Interfaces",
            "## Abstract base classes\n\nAn abstract base class declares abstract methods; "
            "the `abc` module makes an abstract base class.",
        ),
    )
    assert first(query) == expected


@pytest.mark.django_db
def test_search_does_not_stem_a_misspelt_word_into_another(small_tree):
    write_pages(
        ("Differences", "Two values are different when they differ in one digit."),
        ("Derivatives", "Differentiation finds the slope of a function."),
    )
    # SQLite's Porter stemmer reads the typo as "differentiation"; PostgreSQL's Snowball
    # stemmer would read it as "different", which it is not: it corrects it instead.
    assert found_titles("differentation") == ["Derivatives"]


@pytest.mark.django_db
def test_search_corrects_a_word_only_bodies_have(small_tree):
    write_pages(("Counting", "Count the words with `collections.defaultdict(int)`."))
    assert suggest("defualtdict") == "defaultdict"
    assert first("defualtdict") == "Counting"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("os.path.join", "Paths"),
        ("join paths", "Paths"),
        ("lru_cache", "Memoizing"),
        ("lru cache", "Memoizing"),
        ("ThreadPoolExecutor", "Thread Pools"),
        ("dll/shared", "Shared Libraries"),
        ("shared dll", "Shared Libraries"),
    ],
)
def test_search_finds_identifiers_whole_and_by_parts(small_tree, query, expected):
    write_pages(
        ("Paths", "Build them with `os.path.join(base, name)`."),
        ("Memoizing", "Decorate the function with `functools.lru_cache`."),
        ("Thread Pools", "Run the tasks on a `ThreadPoolExecutor`."),
        ("Shared Libraries", "The build puts them into dll/shared beside the program."),
    )
    assert first(query) == expected


@pytest.mark.django_db
def test_search_page_says_where_a_long_query_was_cut_and_drops_control_characters(
    client, curriculum
):
    # A NUL too, which PostgreSQL can neither store nor compare (the page refused it, 400).
    page = soup(client.get("/search/", {"q": "kernel\x00\x07 fusion " + "x" * 300}))
    assert page.find(class_="result-notice").get_text() == (
        "Your search was cut to its first 200 characters."
    )
    assert page.find("input", id="id_q")["value"] == ("kernel fusion " + "x" * 300)[:200]


@pytest.mark.django_db
def test_search_page_of_some_words_says_so_and_offers_a_correction(client, small_tree):
    write_pages(
        ("Convolutional Networks", "Filters slide over the image."),
        ("Neural Networks", "Layers of units."),
    )
    page = soup(client.get("/search/", {"q": "convolutonal neural networks"}))
    assert [h2.get_text() for h2 in page.select("ol.results h2.result-title")] == [
        "Neural Networks",
        "Convolutional Networks",
    ]
    assert page.find(class_="result-notice").get_text() == (
        "No page has every word: these have some, those with more first."
    )
    suggestion = page.find(class_="result-suggestion")
    assert suggestion.get_text() == "Did you mean convolutional neural networks?"
    assert suggestion.a["href"] == "?q=convolutional+neural+networks"


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["prefetch_related", "prefetch related"])
def test_search_ranks_a_heading_equal_to_the_query_first(small_tree, query):
    # Both have the words in a heading; the tips say them more often, in fewer words.
    write_pages(
        (
            "Tips",
            "## Using prefetch_related well\n\nCall prefetch_related, then prefetch_related.",
        ),
        (
            "Reference",
            "## Methods\n\nEvery method of a query set, one by one, with its arguments, what "
            "it returns and an example of each.\n\n## prefetch_related()\n\nFetches the "
            "related objects of each result in one more query.",
        ),
    )
    assert found_titles(query, 2) == ["Reference", "Tips"]


@pytest.mark.django_db
def test_search_ranks_a_page_with_the_words_in_a_heading_above_one_with_them_in_its_body(
    small_tree,
):
    # The notes say "memoization" more often and in fewer words: BM25 alone ranks them first.
    write_pages(
        ("Notes", "Memoization, memoization, memoization: " * 4 + "memoization caches results."),
        (
            "Dynamic Programming",
            "Subproblems are solved once and their answers kept for later, in a table or in "
            "a dictionary, so that each is computed a single time.\n\n## Memoization by hand\n\n"
            "A function keeps what it returned for each argument.",
        ),
    )
    assert found_titles("memoization", 2) == ["Dynamic Programming", "Notes"]


@pytest.mark.django_db
def test_search_reads_a_possessive_as_its_word(small_tree):
    write_pages(
        ("Permissions", "Each user has permissions."),
        ("Groups", "A group of users."),
    )
    found = find_nodes("a user's permissions")
    assert ([node.title for node in found], found.every) == (["Permissions"], True)


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["Straße", "straße", "STRAßE", "ﬁnance"])
def test_search_finds_words_whose_full_case_folding_would_change_their_letters(small_tree, query):
    # Python's casefold() writes "ß" as "ss" and "ﬁ" as "fi"; the indexes (FTS5's unicode61,
    # PostgreSQL's lower()) keep one letter as one, so a query folded so matched nothing.
    write_pages(("Streets", "Die Straße ist groß; ﬁnance."), ("Roads", "A road."))
    found = find_nodes(query)
    assert [node.title for node in found] == ["Streets"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, expected",
    [
        ("語", ["Japanese"]),
        ("本語", ["Japanese"]),
        ("日本語の", ["Japanese"]),
        ("ภาษา", ["Thai"]),
        ("张量", ["Tensors"]),  # not in "张 量", nor in "量张"
        ("张", ["Tensors", "Apart"]),
        ("量张并", []),
    ],
)
def test_search_finds_substrings_of_scripts_written_without_spaces_at_any_length(
    small_tree, query, expected
):
    # PostgreSQL looks for them in the nodes its index of their characters and pairs gives
    # (migration 0037), then in those nodes' text: the same answers as reading every body.
    write_pages(
        ("Japanese", "日本語のテキストを検索する。"),
        ("Thai", "ภาษาไทยเขียนติดกัน"),
        ("Tensors", "张量并行 splits them."),
        ("Apart", "张 量 and 量张 are not the word."),
    )
    assert found_titles(query, 5) == expected


@pytest.mark.django_db
def test_search_finds_a_short_substring_after_the_title_or_body_holding_it_changes(small_tree):
    write_pages(("Tensors", "Splits them."), ("Parallel", "张量并行"))
    edit("Tensors", title="张量笔记")
    assert found_titles("张量", 5) == ["张量笔记", "Parallel"]
    edit("Parallel", body="模型并行")
    edit("张量笔记", title="Notes")
    assert found_titles("张量", 5) == []
    assert found_titles("并", 5) == ["Parallel"]
