"""Benchmark search: its speed at 20,000 nodes, and its relevance, on SQLite and PostgreSQL.

Usage, from the repository's root (see bench/README.md)::

    .venv/bin/python bench/search.py [--databases sqlite,postgresql] [--size 20000]
        [--runs 5] [--json FILE] [--no-fail]

For each database, two scratch databases (made and dropped as bench/run.py makes them), each
measured by this script in a process of its own (``--measure``):

- **relevance**: the curriculum fixture with the relevance set's nodes
  (``tests/search_relevance.py``); the hit rate at 1 and at 3 of its queries, as the search
  page answers them (with the correction of a query that finds nothing);
- **speed**: the benchmark's tree of ``--size`` nodes (``bench/tree.py``: the curriculum's
  titles over and over, every chapter one of nine bodies of about 3 KB), vacuumed and
  analyzed on PostgreSQL as autovacuum would after the load; for each query of
  :data:`QUERIES`, the median of ``--runs`` of the search page's work (``GET /search/?q=``
  with Django's test client: the query, the count, the first page with its snippets,
  highlights and breadcrumbs, the template) and of the top results as one types
  (``top_results()``, called directly: the view keeps its answers in the cache). The
  CPU time (``time.process_time()``) of each is recorded beside its time. The targets (issue
  26): a median over the queries of at most :data:`TARGET_MEDIAN_MS` and none slower than
  :data:`TARGET_SLOWEST_MS`, for the page and for the top results; at ``--size 222`` (the
  curriculum itself), the CPU time of an uncached search is the one to read.

Exits 1 when the target is missed, unless ``--no-fail``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_MEDIAN_MS = 30  # issue 26: the median search at 20,000 nodes
TARGET_SLOWEST_MS = 100  # issue 26: the slowest search at 20,000 nodes

# Queries of every kind the relevance set has, and body words that match thousands of
# chapters (the nine bodies repeat).
QUERIES = [
    "kernel fusion",
    "backprop",
    "quant",
    "tranformer",
    "quantisation",
    '"virtual memory"',
    "learning -reinforcement",
    "memory heirarchy",
    "трансформеры",
    "张量",
    "cudaMemcpyAsync",
    "softmax",
    "latency",
    "kernel launch",
    "graph optim",
    "zzzz",
    "binary search in a sorted list",
    "context manager",
]


def child(args):
    """Measure one scratch database (``DATABASE_URL``) and write the results as JSON."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from chapters.search import top_results
    from tests.search_relevance import QUERIES as RELEVANCE
    from tests.search_relevance import add_relevance_nodes, found_titles, hit_rates

    call_command("migrate", verbosity=0)
    result = {"database": connection.vendor, "kind": args.measure}
    if args.measure == "relevance":
        call_command("loaddata", "curriculum", verbosity=0)
        add_relevance_nodes()
        result["at_1"], result["at_3"] = hit_rates()
        result["queries"] = len(RELEVANCE)
        result["misses"] = {
            query: found_titles(query, 3)
            for query, expected in RELEVANCE
            if found_titles(query, 1) != [expected]
        }
    else:
        from bench.tree import create_tree

        create_tree(args.size)
        if connection.vendor == "postgresql":
            # As autovacuum would soon after a bulk load: statistics, and the GIN indexes'
            # pending entries merged, without which the planner prices them too high.
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE chapters_node")
        client = Client()
        page_ms, top_ms, page_cpu_ms, top_cpu_ms = {}, {}, {}, {}
        for query in QUERIES:
            page_ms[query], page_cpu_ms[query] = median_ms(
                lambda q=query: client.get("/search/", {"q": q}), args.runs
            )
            top_ms[query], top_cpu_ms[query] = median_ms(lambda q=query: top_results(q), args.runs)
        result.update(
            size=args.size,
            page_ms=page_ms,
            top_ms=top_ms,
            page_cpu_ms=page_cpu_ms,
            top_cpu_ms=top_cpu_ms,
        )
    Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")


def median_ms(function, runs):
    """Return the median time and the median CPU time, in ms, of ``runs`` calls of
    ``function``, after one to warm up."""
    function()
    times, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(times), statistics.median(cpu)


def main():
    """Parse the arguments; measure each database in processes of their own; print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--json")
    parser.add_argument("--no-fail", action="store_true")
    parser.add_argument("--measure", choices=["relevance", "speed"], help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        child(args)
        return
    from bench.run import environment, scratch_database

    results = []
    with tempfile.TemporaryDirectory() as directory:
        for database in args.databases.split(","):
            for kind in ("relevance", "speed"):
                url, drop = scratch_database(database, kind, directory, args.postgres_url)
                out = Path(directory) / f"{database}-{kind}.json"
                command = [sys.executable, __file__, "--measure", kind, "--out", str(out)]
                command += ["--size", str(args.size), "--runs", str(args.runs)]
                try:
                    subprocess.run(command, cwd=ROOT, env=environment(url), check=True)
                finally:
                    drop()
                results.append(json.loads(out.read_text(encoding="utf-8")))
    passed = report(results, args.size)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, ensure_ascii=False))
    sys.exit(0 if passed or args.no_fail else 1)


def report(results, size):
    """Print the results as Markdown tables; return whether every median meets the target."""
    print("| database | relevance queries | hit rate at 1 | hit rate at 3 |")
    print("| --- | ---: | ---: | ---: |")
    for r in results:
        if r["kind"] == "relevance":
            print(f"| {r['database']} | {r['queries']} | {r['at_1']:.1%} | {r['at_3']:.1%} |")
    for r in results:
        if r["kind"] == "relevance" and r["misses"]:
            print(f"\n{r['database']} misses: {json.dumps(r['misses'], ensure_ascii=False)}")
    speed = [r for r in results if r["kind"] == "speed"]
    print(
        f"\n| query ({size:,} nodes) | "
        + " | ".join(f"{r['database']} page ms | cpu | {r['database']} top ms | cpu" for r in speed)
        + " |"
    )
    print("| --- |" + " ---: | ---: | ---: | ---: |" * len(speed))
    for query in QUERIES:
        cells = " | ".join(
            f"{r['page_ms'][query]:.1f} | {r['page_cpu_ms'][query]:.1f} | "
            f"{r['top_ms'][query]:.1f} | {r['top_cpu_ms'][query]:.1f}"
            for r in speed
        )
        print(f"| `{query}` | {cells} |")
    passed = True
    summary = []
    for r in speed:
        for kind in ("page", "top"):
            times = r[f"{kind}_ms"].values()
            cpu = statistics.median(r[f"{kind}_cpu_ms"].values())
            median, slowest = statistics.median(times), max(times)
            summary.append(
                f"{r['database']} {kind}: median {median:.1f} ms (CPU {cpu:.1f} ms), "
                f"slowest {slowest:.1f} ms"
            )
            passed &= median <= TARGET_MEDIAN_MS and slowest <= TARGET_SLOWEST_MS
    print(
        f"\nTargets: median <= {TARGET_MEDIAN_MS} ms, slowest <= {TARGET_SLOWEST_MS} ms. "
        + "; ".join(summary)
    )
    print("PASS" if passed else "FAIL")
    return passed


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    main()
