"""Time the table of contents on two trees in turn, in one process; run by bench/run.py.

Usage (bench/run.py sets ``DJANGO_SETTINGS_MODULE=bench.settings`` and
``DJANGO_SECRET_KEY``, and passes the scratch databases it kept)::

    python -m bench.toc --out result.json DATABASE_URL_OF_2000 DATABASE_URL_OF_20000

The growth target compares the table of contents' time at two sizes. Measured by
bench/measure.py, each in the process of its own size, the two are minutes apart, and
whatever else the machine does in those minutes (a neighbour on a shared host) lands in the
ratio: one run on a busy machine gave 8.0 on SQLite and 17.1 on PostgreSQL for the same
code. Here the two trees are timed alternately, ``RUNS`` times each, so that both see the
same machine. Each call is timed by Python's ``timeit``, which turns the garbage collector
off while it times ("it makes independent timings more comparable"), after a collection of
what the call before left; each time is the best of its runs, as ``timeit``'s documentation
advises. With the collector on, a full collection that happens to fall in a run walks every
object of the process, and the ratio was about 11 instead of 9.5 (``bench/README.md``).
"""

import argparse
import gc
import json
import timeit
from pathlib import Path

import dj_database_url
import django

RUNS = 9


def use(url):
    """Point Django's default database at ``url`` (same engine), closing the old connection."""
    from django.db import connections

    connections["default"].close()
    parsed = dj_database_url.parse(url)
    connections["default"].settings_dict.update(
        {key: parsed[key] for key in ("NAME", "USER", "PASSWORD", "HOST", "PORT")}
    )


def main():
    """Parse the arguments, time both trees in turn and write the best times as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("urls", nargs=2)
    args = parser.parse_args()
    django.setup()
    from chapters import caching, navigation
    from chapters.models import Node

    times = {url: [] for url in args.urls}
    sizes = {}
    for url in args.urls:  # connect, and read each tree once, before timing
        use(url)
        sizes[url] = Node.objects.count()
        navigation.table_of_contents()
    for _ in range(RUNS):
        for url in args.urls:
            use(url)
            Node.objects.exists()  # connected before the clock starts
            caching.clear()
            gc.collect()
            seconds = timeit.Timer(navigation.table_of_contents).timeit(number=1)
            times[url].append(seconds * 1000)
    use(args.urls[0])
    result = {"sizes": [sizes[url] for url in args.urls]}
    result["toc_ms"] = [min(times[url]) for url in args.urls]
    Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
