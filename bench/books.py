"""Our PDF of a section, an area, the whole curriculum and the 2,000-node tree, each against
headless Chromium printing the same print page (issue 25); or count the builds that
concurrent requests for one book start, through gunicorn.

Usage::

    .venv/bin/python bench/books.py                        # every scope, about 30 minutes
    .venv/bin/python bench/books.py --scopes section,area  # some of them
    .venv/bin/python bench/books.py --area Systems --runs 5 --processes 1
    .venv/bin/python bench/books.py --requests             # 100 requests, SQLite
    .venv/bin/python bench/books.py --requests --database-url postgres://postgres@127.0.0.1/books_bench

The scopes: ``section``, the first section of the area ``--area`` (or the section titled
``--section``); ``area``, that area; ``curriculum``, the whole curriculum of 222 nodes;
``large``, the whole tree of 2,000 nodes. Each tree (``bench/tree.py``: the curriculum's
shape, every chapter one of nine bodies of about 3 KB with headings, code, a table, math)
is a scratch SQLite database in a temporary directory, served by gunicorn (two workers, the
benchmark's settings, ``bench/settings.py``). For each scope, one after the other, ``--runs``
times (once for ``curriculum`` and ``large``): our PDF is built in a fresh process as a task
worker builds it (``bench/book_race.py``; its time measured around ``render_pdf``, the
layout processes' CPU included), then Chromium (``/usr/bin/chromium --headless --no-sandbox
--disable-gpu --disable-background-networking --print-to-pdf``) prints the scope's
``/print/`` page from the server, from the browser's start to its exit, the server's
rendering included. Each side's wall-clock time, CPU time, peak memory (the sum over its
process tree of resident memory, read every 50 ms: for us the building process and its
layout processes, for Chromium the browser and its renderers; for the 2,000-node book,
whose target is memory, of proportional memory, ``Pss``, which counts once a page they
share, but whose reading stalls the process read, so not for the books timed) and pages are
printed, the medians of the runs, with one PASS or FAIL line per target: the area's PDF
within twice Chromium's time (wall clock); the curriculum's PDF in 60 s of CPU or less; the
2,000-node book in 400 MB or less. The load average is printed before and after. Chromium
is stopped past ``--chromium-limit`` (8,000 MB of its processes' resident memory, or 30
minutes), which the 2,000-node print page may need (its renderer held 4 GB for the 222-node
one), and the row says so.

The ``--requests`` mode (:mod:`bench.book_requests`) makes a fresh database (the SQLite
file of a temporary directory, or the PostgreSQL database that ``--database-url`` names,
dropped and created anew), gives it the curriculum's tree, serves it with gunicorn and sends
concurrent anonymous requests for one book; it prints how many builds they started, their
answer times, then the time a worker takes to build the book and the answer times of as
many requests for the built book.
"""

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import book_race  # noqa: E402 (after the path is set)

AREA_FACTOR = 2  # the area's PDF within this many times Chromium's time
WHOLE_CPU_SECONDS = 60  # the 222-node book's CPU time, at most
PEAK_MEGABYTES = 400  # the 2,000-node book's peak memory, at most
CURRICULUM, LARGE = 222, 2000
SCOPES = ("section", "area", "curriculum", "large")


def race(scopes, area, section, runs, limit):
    """Measure each scope's two sides; return ``{scope: (title, ours, Chromium's)}``, each
    side a list of runs (:func:`book_race.ours`, :func:`book_race.chromium`, stopped at
    ``limit``: ``(megabytes, seconds)``)."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="books-bench-") as scratch:
        for size, group in ((CURRICULUM, SCOPES[:3]), (LARGE, SCOPES[3:])):
            wanted = [scope for scope in group if scope in scopes]
            if not wanted:
                continue
            env = book_race.environment(scratch, size)
            book_race.child(["--make", str(size)], env)
            server, address = book_race.serve(env, scratch)
            try:
                for scope in wanted:
                    title, path = _scope(env, scope, area, section)
                    url = f"{address}/print/{quote(path)}/" if path else f"{address}/print/"
                    ours_runs, theirs_runs = [], []
                    for _ in range(runs if scope in ("section", "area") else 1):
                        ours_runs.append(book_race.ours(path, env, scope == "large"))
                        theirs_runs.append(book_race.chromium(url, scratch, server, limit))
                    results[scope] = (title, ours_runs, theirs_runs)
            finally:
                server.terminate()
                server.wait(timeout=60)
    return results


def _scope(env, scope, area, section):
    """Return a scope's title and its node's path ("" for a whole tree)."""
    if scope == "area":
        return area, book_race.node_path(env, level=0, title=area)
    if scope == "section":
        if section:
            return section, book_race.node_path(env, level=1, title=section)
        path = book_race.node_path(env, level=1, parent__title=area)
        return path.rsplit("/", 1)[-1], path
    if scope == "curriculum":
        return f"the whole curriculum ({CURRICULUM} nodes)", ""
    return f"the whole tree of {LARGE:,} nodes", ""


def report(results, loads):
    """Print each scope's medians, then one PASS or FAIL line per target measured."""
    before, after = loads
    print(
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, after "
        f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} (a machine others work on too)"
    )
    print(
        "| scope | runs | ours: wall | CPU | peak (tree; largest process) | pages "
        "| Chromium: wall | CPU + server's | peak (tree, resident) | pages | wall ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for scope, (title, ours_runs, theirs_runs) in results.items():
        mine = _median(ours_runs)
        row = (
            f"| {scope}: {title} | {len(ours_runs)} | {mine['wall']:.2f} s | {mine['cpu']:.2f} s "
            f"| {_memory(mine)}; {mine['peak']:.0f} MB | {mine['pages']:,} "
        )
        stopped = [run for run in theirs_runs if run["stopped"]]
        if stopped:
            run = stopped[0]
            print(
                f"{row}| {run['stopped']}: {run['wall']:.0f} s | {run['cpu']:.2f} s + "
                f"{run['server_cpu']:.2f} s | {run['tree']['rss']:.0f} MB | — | — |"
            )
            continue
        theirs = _median(theirs_runs)
        print(
            f"{row}| {theirs['wall']:.2f} s | {theirs['cpu']:.2f} s + {theirs['server_cpu']:.2f} s "
            f"| {theirs['rss']:.0f} MB | {theirs['pages']:,} "
            f"| {mine['wall'] / theirs['wall']:.2f} × |"
        )
    _verdicts(results)


def _memory(median):
    """Return a side's peak memory as the report writes it: proportional when read."""
    if "pss" in median:
        return f"{median['pss']:.0f} MB"
    return f"{median['rss']:.0f} MB resident"


def _median(runs):
    """Return the medians over ``runs`` of what the report shows."""
    keys = ("wall", "cpu", "peak", "pages", "server_cpu")
    median = {key: statistics.median(run[key] for run in runs) for key in keys if key in runs[0]}
    if runs[0]["tree"]["pss"] is not None:
        median["pss"] = statistics.median(run["tree"]["pss"] for run in runs)
    median["rss"] = statistics.median(run["tree"]["rss"] for run in runs)
    return median


def _verdicts(results):
    """Print one PASS or FAIL line per target whose scope was measured."""
    if "area" in results:
        title, ours_runs, theirs_runs = results["area"]
        mine, theirs = _median(ours_runs), _median(theirs_runs)
        _verdict(
            mine["wall"] <= AREA_FACTOR * theirs["wall"],
            f"{title}: our PDF {mine['wall']:.2f} s (median; CPU {mine['cpu']:.2f} s) ≤ "
            f"{AREA_FACTOR} × Chromium's {theirs['wall']:.2f} s = "
            f"{AREA_FACTOR * theirs['wall']:.2f} s: {mine['wall'] / theirs['wall']:.2f} ×",
        )
    if "curriculum" in results:
        mine = results["curriculum"][1][0]
        _verdict(
            mine["cpu"] <= WHOLE_CPU_SECONDS,
            f"whole curriculum, {CURRICULUM} nodes: {mine['cpu']:.1f} s CPU ≤ "
            f"{WHOLE_CPU_SECONDS} s ({mine['wall']:.1f} s wall clock, {mine['pages']} pages)",
        )
    if "large" in results:
        mine = results["large"][1][0]
        _verdict(
            mine["tree"]["pss"] <= PEAK_MEGABYTES,
            f"{LARGE:,} nodes: peak memory of the whole process tree {mine['tree']['pss']:.0f} MB "
            f"(proportional; resident, shared pages counted in each process: "
            f"{mine['tree']['rss']:.0f} MB) ≤ {PEAK_MEGABYTES} MB; its largest process "
            f"{mine['peak']:.0f} MB ({mine['cpu']:.1f} s CPU building, "
            f"{mine['process_cpu']:.1f} s in all; {mine['wall']:.1f} s wall clock; "
            f"{mine['pages']:,} pages, {mine['bytes'] / 1e6:.1f} MB)",
        )


def _verdict(passed, text):
    """Print one target's line."""
    print(f"{'PASS' if passed else 'FAIL'}  {text}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scopes", default=",".join(SCOPES), help="comma-separated, of " + ", ".join(SCOPES)
    )
    parser.add_argument("--area", default="Systems", help="the area's title")
    parser.add_argument("--section", help="the section's title (the area's first by default)")
    parser.add_argument("--runs", type=int, default=3, help="runs of the section and the area")
    parser.add_argument(
        "--chromium-limit",
        default="8000,1800",
        help="stop Chromium past these megabytes (its processes' resident memory) or seconds",
    )
    parser.add_argument(
        "--processes", type=int, help="the book's layout processes (BOOK_LAYOUT_PROCESSES)"
    )
    parser.add_argument(
        "--requests", action="store_true", help="count the builds concurrent requests start"
    )
    parser.add_argument("--database-url", help="--requests: a PostgreSQL database to make anew")
    parser.add_argument("--count", type=int, default=100, help="--requests: how many requests")
    parser.add_argument("--workers", type=int, default=2, help="--requests: gunicorn workers")
    parser.add_argument("--book", default="/books/epub/", help="--requests: the book's path")
    arguments = parser.parse_args()
    if arguments.requests:
        from bench.book_requests import run

        run(arguments.database_url, arguments.count, arguments.workers, arguments.book)
        return
    scopes = arguments.scopes.split(",")
    if unknown := set(scopes) - set(SCOPES):
        parser.error(f"unknown scopes: {', '.join(sorted(unknown))}")
    if arguments.processes is not None:
        os.environ["BENCH_BOOK_PROCESSES"] = str(arguments.processes)
    before = os.getloadavg()
    megabytes, seconds = (int(number) for number in arguments.chromium_limit.split(","))
    results = race(scopes, arguments.area, arguments.section, arguments.runs, (megabytes, seconds))
    report(results, (before, os.getloadavg()))


if __name__ == "__main__":
    main()
