"""Our PDF of an area against headless Chromium printing the area's print page, side by
side on one tree; the whole curriculum's PDF; the 2,000-node book's peak memory (issue 25).

Usage::

    .venv/bin/python bench/print_race.py                  # everything, about 10 minutes
    .venv/bin/python bench/print_race.py --skip-memory    # no 2,000-node book
    .venv/bin/python bench/print_race.py --memory-only    # the 2,000-node book only
    .venv/bin/python bench/print_race.py --area Systems --runs 5
    .venv/bin/python bench/print_race.py --skip-memory --processes 1   # one layout process

A scratch SQLite database in a temporary directory is given the curriculum's tree of 222
nodes (``bench/tree.py``) and served by gunicorn (two workers, the benchmark's settings).
Then, ``--runs`` times, one after the other: our PDF of the area (``--area``, an area's
title) is built in a fresh process, as a task worker builds it, and its time measured
around ``render_pdf`` (wall clock, and the CPU time of the process and of the layout
processes it started, their fork server's included); and Chromium
(``/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-background-networking
--print-to-pdf``) prints the area's ``/print/`` page from the server, its time measured from
the browser's start to its exit (wall clock; its CPU time, of the browser and the processes
it waited for, plus the server's workers'). Then the whole curriculum's PDF is built once,
and, unless ``--skip-memory``, the whole book of a tree of 2,000 nodes in a process of its
own, its setup included, whose memory is measured twice: the peak of the sum over it and
its layout processes, read from ``/proc`` every 50 ms (proportional memory, ``Pss``, which
counts a page the processes share once in all; and resident memory, which counts it in each),
and the largest single process's peak as the kernel reports it (``wait4``).

Each target of the issue gets a PASS or FAIL line: the area's PDF within twice Chromium's
time (the medians of the runs, wall clock); the 222-node book in 60 s of CPU or less; the
2,000-node book in 400 MB or less, its process tree's proportional memory at once. The
machine's load average is printed before and after.
"""

import argparse
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing import forkserver
from pathlib import Path
from urllib.parse import quote

import django

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = [
    "/usr/bin/chromium",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]
AREA_FACTOR = 2  # the area's PDF within this many times Chromium's time
WHOLE_CPU_SECONDS = 60  # the 222-node book's CPU time, at most
PEAK_MEGABYTES = 400  # the 2,000-node book's peak memory, at most
CURRICULUM, LARGE = 222, 2000


def build(root_title):
    """Build one book's PDF in this process and print its measurements as JSON.

    Args:
        root_title: an area's title, or "" for the whole curriculum.
    """
    django.setup()
    from chapters.books.content import book_of
    from chapters.books.pdf import render_pdf
    from chapters.models import Node

    root = Node.objects.get(level=0, title=root_title) if root_title else None
    book = book_of(root)
    before = os.times()
    wall, cpu = time.perf_counter(), time.process_time()
    pdf = render_pdf(book)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # The layout processes are the fork server's children, which it waited for: once it is
    # stopped and waited for here, their CPU time and the server's count among this
    # process's children's (multiprocessing's own way of stopping it; no public one).
    forkserver._forkserver._stop()
    after = os.times()
    children = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        pages = _pages(file.name)
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": cpu + children,
                "cpu_here": cpu,
                "bytes": len(pdf),
                "pages": pages,
            }
        )
    )


def _pages(path):
    """Return a PDF file's number of pages, as poppler's ``pdfinfo`` reads it (in a process
    of its own, so that counting adds nothing to the measured process's memory)."""
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    return int(next(line.split()[-1] for line in info.stdout.splitlines() if line[:6] == "Pages:"))


def make_tree(size):
    """Migrate the empty database and give it a tree of ``size`` nodes."""
    django.setup()
    from django.core.management import call_command

    from bench.tree import create_tree

    call_command("migrate", verbosity=0)
    create_tree(size)


def child(arguments, env):
    """Run this script with ``arguments`` in a process of its own.

    Returns:
        ``(output, cpu, peak, tree)``: its standard output, its CPU time in seconds (user
        and system, its children's included), the peak resident memory in MB of the largest
        of it and its children (the kernel's, ``wait4``), and the peaks in MB of the sums of
        the resident and of the proportional memory (``Pss``: a page shared by ``n``
        processes counted ``1/n`` in each) of it and all its descendants at once, read from
        ``/proc`` every 50 ms.
    """
    process = subprocess.Popen(
        [sys.executable, __file__, *arguments], cwd=ROOT, env=env, stdout=subprocess.PIPE
    )
    tree = {"rss": 0, "pss": 0}
    sampler = threading.Thread(target=_sample_tree, args=(process, tree), daemon=True)
    sampler.start()
    output = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    sampler.join()
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{arguments} ended with {os.waitstatus_to_exitcode(status)}")
    return output, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, tree


def _sample_tree(process, tree):
    """Keep in ``tree`` the largest sums of the resident (``rss``) and proportional
    (``pss``) memory, in MB, of ``process`` and its descendants, until it has ended."""
    while process.returncode is None and Path(f"/proc/{process.pid}").exists():
        rss = pss = 0
        for pid in _descendants(process.pid):
            rss += _kilobytes(f"/proc/{pid}/status", "VmRSS")
            pss += _kilobytes(f"/proc/{pid}/smaps_rollup", "Pss")
        tree["rss"] = max(tree["rss"], rss / 1024)
        tree["pss"] = max(tree["pss"], pss / 1024)
        time.sleep(0.05)


def _descendants(pid):
    """Return ``pid`` and the pids of its descendants now."""
    found, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                waiting += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def _kilobytes(path, field):
    """Return a ``field`` of a ``/proc`` file in kB (0 once the process has gone)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return 0
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def ours(area, env):
    """Return the measurements of our PDF of ``area`` (or of the whole curriculum for "")."""
    output, _cpu, peak, tree = child(["--build", area], env)
    return {**json.loads(output), "peak": peak, "tree": tree}


def chromium(url, scratch, server):
    """Print ``url`` with headless Chromium; return its wall-clock time, its CPU time and
    the server's workers' CPU time while it ran, in seconds, and the PDF's pages."""
    from bench.measure import workers_cpu_seconds

    target = Path(scratch) / "chromium.pdf"
    target.unlink(missing_ok=True)
    profile = tempfile.mkdtemp(dir=scratch)
    served = workers_cpu_seconds(server.pid)
    wall = time.perf_counter()
    process = subprocess.Popen(
        [*CHROMIUM, f"--user-data-dir={profile}", f"--print-to-pdf={target}", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _pid, _status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - wall
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "server_cpu": workers_cpu_seconds(server.pid) - served,
        "pages": _pages(target),
    }


def serve(env, scratch):
    """Start gunicorn on the scratch database; return its process and address."""
    from bench.measure import free_port, gunicorn_command, wait_until_up

    port = free_port()
    log = open(Path(scratch) / "gunicorn.log", "wb")  # noqa: SIM115 (open while it runs)
    server = subprocess.Popen(
        gunicorn_command(port, 2), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    wait_until_up(f"http://127.0.0.1:{port}/")
    return server, f"http://127.0.0.1:{port}"


def environment(scratch, size):
    """Return the environment of a process working on the scratch database of ``size``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(
        DATABASE_URL=f"sqlite:///{scratch}/tree-{size}.sqlite3",
        DJANGO_SETTINGS_MODULE="bench.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        WIKI_BOOKS_ROOT=str(Path(scratch) / "books"),
        PYTHONPATH=str(ROOT),
    )
    return env


def verdict(passed, text):
    """Print one target's line."""
    print(f"{'PASS' if passed else 'FAIL'}  {text}")


def race(area, runs, skip_memory, memory_only):
    """Measure everything (or the memory only, or all but it) and print the results, one
    line per target."""
    load = os.getloadavg()
    ours_runs, chromium_runs, whole, large = [], [], None, None
    with tempfile.TemporaryDirectory(prefix="print-race-") as scratch:
        if not memory_only:
            env = environment(scratch, CURRICULUM)
            child(["--make", str(CURRICULUM)], env)
            ours_runs, chromium_runs = _side_by_side(env, scratch, area, runs)
            whole = ours("", env)
        if not skip_memory:
            large_env = environment(scratch, LARGE)
            child(["--make", str(LARGE)], large_env)
            _output, cpu, peak, tree = child(["--build", ""], large_env)
            large = {**json.loads(_output), "process_cpu": cpu, "peak": peak, "tree": tree}
    after = os.getloadavg()
    _report(area, ours_runs, chromium_runs, whole, large, (load, after))


def _side_by_side(env, scratch, area, runs):
    """Serve the scratch database and run both sides of the race ``runs`` times; return
    the measurements of each side's runs."""
    server, address = serve(env, scratch)
    try:
        url = f"{address}/print/{quote(_area_path(env, area))}/"
        ours_runs, chromium_runs = [], []
        for _ in range(runs):
            ours_runs.append(ours(area, env))
            chromium_runs.append(chromium(url, scratch, server))
    finally:
        server.terminate()
        server.wait(timeout=60)
    return ours_runs, chromium_runs


def _area_path(env, area):
    """Return the path of the area titled ``area`` in the scratch database."""
    code = (
        "import django; django.setup(); from chapters.models import Node; "
        f"print(Node.objects.get(level=0, title={area!r}).path)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def _report(area, ours_runs, chromium_runs, whole, large, loads):
    """Print the measurements and a PASS or FAIL line per target."""
    (before, after) = loads
    print(
        f"load average before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, after "
        f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} (a machine others work on too)"
    )
    if whole is not None:
        _report_race(area, ours_runs, chromium_runs, whole)
    if large is not None:
        tree = large["tree"]
        verdict(
            tree["pss"] <= PEAK_MEGABYTES,
            f"{LARGE:,} nodes: peak memory of the whole process tree {tree['pss']:.0f} MB "
            f"(proportional; resident, shared pages counted in each process: "
            f"{tree['rss']:.0f} MB) ≤ {PEAK_MEGABYTES} MB; its largest process "
            f"{large['peak']:.0f} MB ({large['cpu']:.1f} s CPU building, "
            f"{large['process_cpu']:.1f} s in all; {large['wall']:.1f} s wall clock; "
            f"{large['pages']:,} pages, {large['bytes'] / 1e6:.1f} MB)",
        )


def _report_race(area, ours_runs, chromium_runs, whole):
    """Print the race's runs, and the lines of the area's and the whole curriculum's
    targets."""
    for number, (mine, theirs) in enumerate(zip(ours_runs, chromium_runs, strict=True), 1):
        print(
            f"run {number}: our PDF of {area} {mine['wall']:.2f} s ({mine['cpu']:.2f} s CPU, "
            f"{mine['cpu_here']:.2f} s of it in the building process; {mine['pages']} pages, "
            f"peak {mine['peak']:.0f} MB, the process tree's {mine['tree']['pss']:.0f} MB); "
            f"Chromium {theirs['wall']:.2f} s "
            f"({theirs['cpu']:.2f} s CPU + the server's {theirs['server_cpu']:.2f} s, "
            f"{theirs['pages']} pages)"
        )
    ours_wall = statistics.median(run["wall"] for run in ours_runs)
    ours_cpu = statistics.median(run["cpu"] for run in ours_runs)
    theirs_wall = statistics.median(run["wall"] for run in chromium_runs)
    theirs_cpu = statistics.median(run["cpu"] + run["server_cpu"] for run in chromium_runs)
    verdict(
        ours_wall <= AREA_FACTOR * theirs_wall,
        f"{area}: our PDF {ours_wall:.2f} s (median; CPU {ours_cpu:.2f} s) ≤ {AREA_FACTOR} × "
        f"Chromium's {theirs_wall:.2f} s (median; CPU {theirs_cpu:.2f} s) = "
        f"{AREA_FACTOR * theirs_wall:.2f} s: {ours_wall / theirs_wall:.2f} ×",
    )
    verdict(
        whole["cpu"] <= WHOLE_CPU_SECONDS,
        f"whole curriculum, {CURRICULUM} nodes: {whole['cpu']:.1f} s CPU ≤ {WHOLE_CPU_SECONDS} s "
        f"({whole['wall']:.1f} s wall clock, {whole['pages']} pages, "
        f"{whole['bytes'] / 1e6:.1f} MB, peak {whole['peak']:.0f} MB, the process tree's "
        f"{whole['tree']['pss']:.0f} MB)",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", default="Systems", help="the area's title")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side of the race")
    parser.add_argument("--skip-memory", action="store_true", help="no 2,000-node book")
    parser.add_argument("--memory-only", action="store_true", help="the 2,000-node book only")
    parser.add_argument(
        "--processes", type=int, help="the book's layout processes (BOOK_LAYOUT_PROCESSES)"
    )
    parser.add_argument("--build", help=argparse.SUPPRESS)
    parser.add_argument("--make", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if arguments.processes is not None:
        os.environ["BENCH_BOOK_PROCESSES"] = str(arguments.processes)
    if arguments.make is not None:
        make_tree(arguments.make)
    elif arguments.build is not None:
        build(arguments.build)
    else:
        race(arguments.area, arguments.runs, arguments.skip_memory, arguments.memory_only)


if __name__ == "__main__":
    main()
