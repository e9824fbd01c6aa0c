"""Search finds identifiers whole and by their parts, and words apart by an identifier.

Issue 26: ``os.path.join``, ``lru_cache``, ``ThreadPoolExecutor``, ``dll/shared`` and
``getElementById`` are matched whole and by parts, split at camel-case humps, underscores,
dots and slashes; a query written as an identifier finds a page that writes its words apart,
the page that writes the identifier itself first. Every test runs on both databases.
"""

import pytest

from chapters.search import find_nodes, highlight, snippet
from chapters.words import identifier_parts, spaceless_grams
from tests.search_relevance import found_titles
from tests.test_search_questions import first, write_pages

IDENTIFIERS = [
    ("Running Tasks", "Run the tasks on a `ThreadPoolExecutor`."),
    ("Memoizing", "Decorate the function with `functools.lru_cache`."),
    ("Paths", "Build them with `os.path.join(base, name)`."),
    ("Shared Libraries", "The build puts them into dll/shared beside the program."),
    ("The Page", "Call `document.getElementById(name)` once it has loaded."),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ThreadPoolExecutor", "Running Tasks"),
        ("thread pool executor", "Running Tasks"),
        ("threadpoolexecutor", "Running Tasks"),
        ("pool executor", "Running Tasks"),
        ("lru cache", "Memoizing"),
        ("lru_cache", "Memoizing"),
        ("lrucache", "Memoizing"),
        ("os.path.join", "Paths"),
        ("path join", "Paths"),
        ("ospathjoin", "Paths"),
        ("dll/shared", "Shared Libraries"),
        ("dll shared", "Shared Libraries"),
        ("dllshared", "Shared Libraries"),
        ("get element by id", "The Page"),
        ("element", "The Page"),
        ("getElementById", "The Page"),
    ],
)
def test_search_finds_an_identifier_whole_and_by_its_parts(small_tree, query, expected):
    write_pages(*IDENTIFIERS)
    found = find_nodes(query)  # uncorrected: "lrucache" is no typo
    assert ([node.title for node in found][:1], found.every, first(query)) == (
        [expected],
        True,
        expected,
    )


WORDS_APART = [
    ("Executors", "A thread pool executor runs the tasks on a few threads."),
    ("Caches", "An LRU cache drops the entry used least recently."),
    ("Accounts", "Each account has a user name and a password."),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ThreadPoolExecutor", "Executors"),
        ("lru_cache", "Caches"),
        ("LRUCache", "Caches"),
        ("userName", "Accounts"),
        ("user_name", "Accounts"),
    ],
)
def test_search_of_an_identifier_finds_its_words_written_apart(small_tree, query, expected):
    write_pages(*WORDS_APART)
    assert [node.title for node in find_nodes(query)] == [expected]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ThreadPoolExecutor", ["Running Tasks", "Executors"]),
        ("lru_cache", ["Memoizing", "Caches"]),
        ("threadpoolexecutor", ["Running Tasks"]),
    ],
)
def test_search_ranks_the_identifier_as_written_above_its_words_apart(small_tree, query, expected):
    write_pages(IDENTIFIERS[0], IDENTIFIERS[1], *WORDS_APART[:2])
    assert found_titles(query, 3) == expected


@pytest.mark.django_db
def test_search_ranks_a_title_naming_the_parts_apart_after_the_identifier_as_typed(small_tree):
    # The parts of a word in camel case, apart, are found but count for no title ("model_form"
    # is the words "model form" as typed, as both databases' parsers read it).
    write_pages(
        ("Model Forms", "Build the forms of the models."),
        ("Forms From Models", "Subclass `ModelForm` for each model."),
    )
    assert found_titles("ModelForm", 3) == ["Forms From Models", "Model Forms"]


@pytest.mark.django_db
def test_search_of_a_prefix_of_an_identifier_still_finds_it(small_tree):
    write_pages(*IDENTIFIERS)
    assert [node.title for node in find_nodes("ThreadPool")] == ["Running Tasks"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "query", "marked"),
    [
        ("ThreadPoolExecutor", "pool executor", "<mark>ThreadPoolExecutor</mark>"),
        ("Thread pools", "ThreadPoolExecutor", "<mark>Thread</mark> <mark>pools</mark>"),
        ("The user name", "userName", "The <mark>user</mark> <mark>name</mark>"),
        ("LRU caches", "lru_cache", "<mark>LRU</mark> <mark>caches</mark>"),
        ("Kernels", "pool executor", "Kernels"),
    ],
)
def test_highlight_marks_an_identifier_by_its_parts_and_words_by_an_identifier(
    title, query, marked
):
    assert highlight(title, query) == marked


@pytest.mark.django_db
def test_snippet_of_words_apart_found_by_an_identifier_marks_them(small_tree):
    write_pages(
        ("Accounts", "## Passwords\n\nKept hashed.\n\n## Names\n\nEach has a user name."),
    )
    (node,) = find_nodes("userName")
    assert snippet(node, "userName") == "Each has a <mark>user</mark> <mark>name</mark>."


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("ThreadPoolExecutor", "thread pool executor"),
        ("getElementById", "get element by id"),
        ("HTTPServer", "http server"),
        ("HTTP2SERVER", ""),
        ("lru_cache", "lrucache"),
        ("os.path.join", "ospathjoin"),
        ("functools.lru_cache", "functoolslrucache lrucache"),
        ("a/b_c.d_e", "abcde bc de"),
        ("dll/shared", "dllshared"),
        ("document.getElementById(name)", "documentgetelementbyid get element by id"),
        ("Run the tasks on a ThreadPoolExecutor.", "thread pool executor"),
        ("Plain words, e.g. these, int64 and q-learning.", "eg"),
        ("", ""),
    ],
)
def test_identifier_parts_split_humps_and_join_separated_words(text, parts):
    assert identifier_parts(text) == parts


@pytest.mark.parametrize(
    "texts, grams",
    [
        (["张量并行"], "并 并行 张 张量 行 量 量并"),
        (["張", "日本語 and カナ"], "カ カナ ナ 張 日 日本 本 本語 語"),
        (["ภาษา"], "ภ ภา ษ ษา า าษ"),
        (["plain text, Ünïcode"], ""),
    ],
)
def test_spaceless_grams_are_each_run_s_characters_and_pairs(texts, grams):
    assert spaceless_grams(*texts) == grams
