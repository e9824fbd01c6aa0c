"""Search relevance on Django's documentation: the wiki on each database beside tantivy.

Usage, from the repository's root (see bench/README.md)::

    .venv/bin/python bench/relevance.py [--databases sqlite,postgresql] [--verbose]
        [--first-results tests/data/django-first-results.json]

For each database, a scratch database (made and dropped as bench/run.py makes them) gets the
curriculum fixture and the Django documentation's pages (``tests/data/django-docs/``,
imported with ``import_markdown``), in a process of its own (``--measure``); each query of
``tests/django_relevance.py`` is answered as the search page answers it (with the correction
of a query that finds nothing) and its first ten paths kept. The anchor, tantivy (BM25 over
titles and bodies, titles boosted, each word also matched fuzzily and as a prefix), indexes
the same pages as the first database stores them and answers the same queries. Printed per
system and category: hit@1, hit@3 and the mean reciprocal rank (MRR) of the first page
that answers the query, within the first ten; then how many queries get the same first result
on SQLite and on PostgreSQL. With ``--first-results``, each database's first result per query
is written to a file: ``tests/data/django-first-results.json`` is that file, which the suite
checks each database against (and the two against each other), so a change to search that
changes a first result writes it again.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


TITLE_BOOST = 3.0  # tantivy: a word in the title weighs three in the body
FUZZY_BOOST = 0.3  # and a word one edit away, or one the query's word begins, 0.3 of it


def tantivy_answers(pages, queries):
    """Return the first ten paths tantivy gives each query over ``pages``.

    Args:
        pages: ``(path, title, text)`` of every page, the text as the wiki stores it
            (``Node.body_text``).
        queries: the relevance set.
    """
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("title", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=100_000_000, num_threads=1)
    for path, title, text in pages:
        writer.add_document(tantivy.Document(path=path, title=title, body=text))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    answers = []
    for _category, query, _expected in queries:
        words = re.findall(r"\w+", query.lower())
        if not words:
            answers.append([])
            continue
        text = " ".join(words)
        exact = index.parse_query(text, ["title", "body"], field_boosts={"title": TITLE_BOOST})
        fuzzy = index.parse_query(
            text,
            ["title", "body"],
            field_boosts={"title": TITLE_BOOST},
            fuzzy_fields={"title": (True, 1, True), "body": (True, 1, True)},
        )
        both = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, exact),
                (tantivy.Occur.Should, tantivy.Query.boost_query(fuzzy, FUZZY_BOOST)),
            ]
        )
        hits = searcher.search(both, 10).hits
        answers.append([searcher.doc(address)["path"][0] for _score, address in hits])
    return answers


def write_first_results(path, results):
    """Write the first result of each query on each database to ``path``, as JSON.

    ``{"sqlite": {query: path or null, ...}, "postgresql": {...}}``
    (``tests.django_relevance.first_results``): the kept answers that
    ``tests/test_search_relevance.py`` compares each database's with (bench/README.md,
    "Relevance on Django's documentation").
    """
    from tests.django_relevance import first_results

    kept = {database: first_results(results[database]) for database in ("sqlite", "postgresql")}
    path.write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote the first results of both databases to {path}")


def measure(with_tantivy):
    """Load the corpus into the configured database and print the answers as JSON."""
    import django

    django.setup()
    from django.core.management import call_command

    from chapters.models import Node
    from tests.django_relevance import CORPUS, QUERIES, wiki_answers

    call_command("migrate", verbosity=0)
    call_command("loaddata", "fixtures/curriculum.json", verbosity=0)
    call_command("import_markdown", str(CORPUS), verbosity=0)
    result = {"wiki": wiki_answers(QUERIES)}
    if with_tantivy:
        pages = Node.objects.values_list("path", "title", "body_text")
        result["tantivy"] = tantivy_answers(list(pages), QUERIES)
    print(json.dumps(result))


def compare(databases, postgres_url):
    """Answer the relevance set on each database (and with tantivy, once), each in a process
    of its own on a scratch database.

    Args:
        databases: the vendors to measure, e.g. ``["sqlite", "postgresql"]``.
        postgres_url: the URL of a PostgreSQL database to make the scratch databases from.

    Returns:
        A dict from each system (each database, and ``tantivy``) to the first ten paths it
        answers each query of ``tests/django_relevance.py`` with.
    """
    from bench.run import environment, scratch_database

    results = {}
    for number, database in enumerate(databases):
        with tempfile.TemporaryDirectory() as folder:
            url, drop = scratch_database(database, "relevance", folder, postgres_url)
            mode = "wiki+tantivy" if number == 0 else "wiki"
            try:
                output = subprocess.run(
                    [sys.executable, __file__, "--measure", mode],
                    env=environment(url),
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
            finally:
                drop()
        answers = json.loads(output.splitlines()[-1])
        results[database] = answers["wiki"]
        if "tantivy" in answers:
            results["tantivy"] = answers["tantivy"]
    return results


def report(results):
    """Print hit@1, hit@3 and MRR per system and category, and how many queries get the same
    first result on both databases; return the scores (``tests.django_relevance.scores``
    per system)."""
    from tests.django_relevance import QUERIES, scores

    categories = sorted({category for category, _, _ in QUERIES}) + ["all"]
    print(f"{len(QUERIES)} queries over the curriculum and Django's documentation")
    print(f"{'category':16} " + " ".join(f"{system:>24}" for system in results))
    table = {system: scores(ranked, QUERIES) for system, ranked in results.items()}
    for category in categories:
        cells = []
        for system in results:
            n, hit1, hit3, mrr = table[system][category]
            cells.append(f"{hit1:.2f} / {hit3:.2f} / {mrr:.2f}".rjust(24))
        print(f"{category + f' ({n})':16} " + " ".join(cells))
    print("(each cell: hit@1 / hit@3 / MRR)")
    if {"sqlite", "postgresql"} <= results.keys():
        pairs = list(zip(results["sqlite"], results["postgresql"], strict=True))
        same = sum(lite[:1] == postgres[:1] for lite, postgres in pairs)
        print(f"the same first result on both databases: {same} of {len(pairs)} queries")
    return table


def main():
    """Measure each database (and tantivy once) in processes of their own; print scores."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--verbose", action="store_true", help="list the queries missed at 3")
    parser.add_argument(
        "--first-results",
        metavar="FILE",
        help="write each database's first result per query there (tests/data/"
        "django-first-results.json, which tests/test_search_relevance.py checks)",
    )
    parser.add_argument("--measure", choices=["wiki", "wiki+tantivy"], help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        measure(arguments.measure == "wiki+tantivy")
        return
    from tests.django_relevance import QUERIES

    results = compare(arguments.databases.split(","), arguments.postgres_url)
    report(results)
    if arguments.first_results:
        write_first_results(Path(arguments.first_results), results)
    if arguments.verbose:
        for system, ranked in results.items():
            for (category, query, expected), found in zip(QUERIES, ranked, strict=True):
                if not set(found[:3]) & set(expected):
                    print(f"{system}: missed [{category}] {query!r}: {found[:3]}")


if __name__ == "__main__":
    main()
