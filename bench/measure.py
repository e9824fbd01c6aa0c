"""Measure one tree size on one database; run by bench/run.py in a process of its own.

Usage (bench/run.py sets the environment: ``DATABASE_URL`` of an empty scratch database,
``DJANGO_SETTINGS_MODULE=bench.settings``, ``DJANGO_SECRET_KEY``)::

    python -m bench.measure --size 2000 --out result.json --duration 10 --connections 8

Writes one JSON object of measurements to ``--out``. In-process, with Django's test client:
queries and time of a chapter page with the cache emptied (cold) and again (warm), the time
to build the table of contents, to add a chapter at the front of the first section and to
move a section to another area. Then under gunicorn and wrk: requests per second of the
stack floor (bench/urls.py), of the honest floor (bench/floor/), of the warm chapter page,
and of the page answered 304 to its ETag. Last, the editors' forms and saves
(bench/editors.py).
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import django

from bench.serving import free_port, gunicorn_command, wait_until_up
from bench.timing import best_ms, median_ms, once_ms

# wrk's run before each measured one, to fill every worker's cache: this long, plus the time
# a cold page takes times COLD_PAGES_IN_WARM_UP (each worker renders it once, the workers
# share the cores, and a page takes seconds at 20,000 nodes).
WARM_UP_SECONDS = 2
COLD_PAGES_IN_WARM_UP = 3
# The floor, the page and the 304 are measured in turn this many times, and each rate is the
# median of its runs: the machine's other work drifts over a minute, and would otherwise
# weigh on whichever of them ran at the time.
ROUNDS = 3


def measure_in_process(url):
    """Return the queries and timings of ``url``'s page and of the table of contents."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from chapters import caching, navigation

    client = Client()

    def get():
        response = client.get(url)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        return response

    get()  # loads templates and URLs once, so "cold" measures only an empty cache
    caching.clear()
    with CaptureQueriesContext(connection) as cold:
        get()
    with CaptureQueriesContext(connection) as warm:
        page = get()
    return {
        "queries_cold": len(cold),
        "queries_warm": len(warm),
        "page_bytes": len(page.content),
        "page_cold_ms": median_ms(get, before=caching.clear),
        "page_warm_ms": median_ms(get),
        "toc_ms": best_ms(navigation.table_of_contents, before=caching.clear),
    }


def measure_writes():
    """Return the time to add a chapter at the front of the first section and to move a
    section to another area, as the admin's forms and drag-and-drop do them.

    Both are checked afterwards on the pages, which were served (and so cached) before:
    the new chapter is listed first in its section; the moved section is served at its new
    path, its old path redirects there, and its new area lists it.
    """
    from django.test import Client

    from chapters.models import Node

    client = Client()
    section = Node.objects.filter(level=1).first()
    first = section.get_children().first()
    client.get(section.get_absolute_url())  # fill the caches, so the pages must notice
    chapter = Node(title="A Benchmark Chapter", kind=Node.Kind.CHAPTER, parent=section)
    chapter.body = first.body

    def add():
        chapter.full_clean()
        Node.objects.insert_node(chapter, section, position="first-child", save=True)

    add_ms = once_ms(add)
    text = client.get(section.get_absolute_url()).text
    new_link, old_link = f'href="/{chapter.path}/"', f'href="/{first.path}/"'
    added_first = new_link in text and text.index(new_link) < text.index(old_link)

    moved = Node.objects.filter(level=1).first()
    target = Node.objects.filter(level=0).exclude(children__slug=moved.slug).last()
    old_url, target_url = moved.get_absolute_url(), target.get_absolute_url()
    client.get(old_url), client.get(target_url)
    move_ms = once_ms(lambda: Node.objects.move_node(moved, target, "last-child"))
    moved.refresh_from_db()
    new_url = moved.get_absolute_url()
    moved_seen = (
        client.get(new_url).status_code == 200
        and client.get(old_url).get("Location") == new_url
        and f'href="{new_url}"' in client.get(target_url).text
    )
    seen = added_first and moved_seen
    return {"add_front_ms": add_ms, "move_section_ms": move_ms, "writes_seen": seen}


def wrk(url, duration, connections, headers=()):
    """Run wrk against ``url``; return requests per second, requests and failures.

    A failure is an answer of 400 or more, or a request unanswered after 30 seconds.

    Raises:
        RuntimeError: wrk failed or printed no rate.
    """
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--timeout", "30s"]
    for header in headers:
        command += ["-H", header]
    result = subprocess.run([*command, url], capture_output=True, text=True, check=False)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    if result.returncode or not rate:
        raise RuntimeError(f"wrk failed on {url}:\n{result.stdout}{result.stderr}")
    requests = re.search(r"(\d+) requests in", result.stdout)
    failures = re.findall(r"(?:Non-2xx or 3xx responses:|timeout) +(\d+)", result.stdout)
    return float(rate.group(1)), int(requests.group(1)), sum(int(number) for number in failures)


def head_status(url, headers):
    """Return the status and headers of a GET of ``url`` with ``headers`` (a 304 included)."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def measure_served(url, page, cold_ms, duration, connections, workers):
    """Serve the project with gunicorn and load it with wrk: stack floor, warm page, 304, and
    the honest floor, served by a gunicorn of its own.

    Args:
        url: the chapter page's path.
        page: the page's bytes, which the floor answers with.
        cold_ms: the time of the page with the cache empty, to warm every worker up.
        duration: seconds of each measured wrk run.
        connections: wrk's open connections.
        workers: gunicorn's worker processes.

    Returns:
        Requests per second of each (None for the 304 when the page has no ETag), wrk's
        completed requests and failures of each, and the page's ETag.

    Raises:
        RuntimeError: gunicorn did not start, or did not answer the page with 200.
    """
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as scratch:
        floor_file = Path(scratch) / "page.html"
        floor_file.write_bytes(page)
        port = free_port()
        log = open(Path(scratch) / "gunicorn.log", "wb")  # noqa: SIM115
        floor_port, floor_log = free_port(), open(Path(scratch) / "floor.log", "wb")  # noqa: SIM115
        floor_server = start_honest_floor(root, floor_port, workers, floor_file, floor_log)
        server = subprocess.Popen(
            gunicorn_command(port, workers),
            cwd=root,
            env={**os.environ, "BENCH_FLOOR_FILE": str(floor_file)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        honest_floor = f"http://127.0.0.1:{floor_port}/"

        def address(path):
            """Return the URL of ``path`` on the product's server, or ``path`` if a URL."""
            return path if "://" in path else f"{base}{path}"

        try:
            wait_until_up(f"{base}/bench-floor/")
            wait_until_up(honest_floor)
            results = {}
            status, headers = head_status(f"{base}{url}", {})
            if status != 200:
                raise RuntimeError(f"gunicorn answered {status} for {url}")
            etag = headers.get("ETag")
            targets = {"floor": ("/bench-floor/", ()), "page": (url, ())}
            targets["honest_floor"] = (honest_floor, ())
            if etag and head_status(f"{base}{url}", {"If-None-Match": etag})[0] == 304:
                targets["not_modified"] = (url, (f"If-None-Match: {etag}",))
            else:
                results["not_modified"] = None
            warm_up = WARM_UP_SECONDS + math.ceil(COLD_PAGES_IN_WARM_UP * cold_ms / 1000)
            for path, extra in targets.values():
                wrk(address(path), warm_up, connections, extra)
                wait_until_up(address(path))  # after the requests wrk left queued
            rates = {name: [] for name in targets}
            requests, errors = dict.fromkeys(targets, 0), dict.fromkeys(targets, 0)
            cpu = dict.fromkeys(targets, 0.0)
            for _ in range(ROUNDS):
                for name, (path, extra) in targets.items():
                    serving = floor_server if name == "honest_floor" else server
                    before = workers_cpu_seconds(serving.pid)
                    rate, done, failed = wrk(address(path), duration, connections, extra)
                    cpu[name] += workers_cpu_seconds(serving.pid) - before
                    rates[name].append(rate)
                    requests[name] += done
                    errors[name] += failed
                    wait_until_up(address(path))
            results.update({name: statistics.median(each) for name, each in rates.items()})
        finally:
            for each in (server, floor_server):
                each.terminate()
                each.wait(timeout=60)
            log.close()
            floor_log.close()
    return {
        **{f"rps_{name}": rate for name, rate in results.items()},
        "rps_rounds": rates,
        "wrk_requests": requests,
        "wrk_errors": errors,
        "etag": etag,
        "access_log": os.environ.get("GUNICORN_ACCESS_LOG") or None,
        **{
            f"cpu_us_{name}": seconds / requests[name] * 1e6 if requests[name] else None
            for name, seconds in cpu.items()
        },
    }


def workers_cpu_seconds(parent):
    """Return the CPU time, user and system, that the worker processes of the gunicorn
    ``parent`` have used so far, in seconds (Linux's ``/proc/<pid>/stat``; 0 elsewhere).

    On a machine shared with other work, the rate of requests moves with what else runs;
    the CPU time a worker spends on a request moves much less, so it tells where a change
    of rate comes from.
    """
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[1]) == parent:  # fields 4, 14 and 15 of proc(5): ppid, utime, stime
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.0


def start_honest_floor(root, port, workers, floor_file, log):
    """Start gunicorn serving the honest floor (``bench/floor/``) on ``port``.

    With the product's gunicorn settings (``wiki/gunicorn.conf.py``: the same worker class,
    timeouts and keep-alive) and as many workers, but the floor's application and no access
    log, whatever ``GUNICORN_ACCESS_LOG`` says.

    Args:
        root: the repository's root.
        port: a free loopback port.
        workers: gunicorn's worker processes.
        floor_file: the file holding the page's bytes.
        log: an open file for gunicorn's output.

    Returns:
        The gunicorn process.
    """
    return subprocess.Popen(
        [*gunicorn_command(port, workers), "bench.floor.wsgi:application"],
        cwd=root,
        env={
            **os.environ,
            "BENCH_FLOOR_FILE": str(floor_file),
            "DJANGO_SETTINGS_MODULE": "bench.floor.settings",
            "GUNICORN_ACCESS_LOG": "",
        },
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def main():
    """Parse the arguments, build the tree and write the measurements as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from bench.tree import create_tree

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    chapters = create_tree(args.size)
    result = {"size": args.size, "database": connection.vendor}
    result["generate_s"] = time.perf_counter() - start
    result["cache"] = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
    url = f"/{chapters[len(chapters) // 2]}/"
    result["url"] = url
    result.update(measure_in_process(url))
    from django.test import Client

    page = Client().get(url).content
    result.update(
        measure_served(
            url, page, result["page_cold_ms"], args.duration, args.connections, args.workers
        )
    )
    from bench.scale import measure_scale

    result.update(measure_scale(url, args.workers, args.duration, args.connections))
    result.update(measure_writes())
    from bench.editors import measure_editors

    result.update(measure_editors(url.strip("/")))
    Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
