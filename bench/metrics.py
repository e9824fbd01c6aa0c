"""Time what the metrics middleware adds to every request (issue 28).

Usage, from the repository's root (see bench/README.md, "Metrics")::

    .venv/bin/python bench/metrics.py [--number 20000]

In-process, without a database or a server: :class:`chapters.metrics.RequestMetricsMiddleware`
around a view that does nothing, against the same view alone, each timed by Python's
``timeit`` (best of 7 runs of ``--number`` calls, the garbage collector off while it
times), for the two kinds of request it sees: one that Django resolved (``resolver_match``
set) and a reader's kept page, answered before URL resolution, whose view the middleware
looks up (once per path and process, then from its own memory). Prints microseconds per
request for each, and the machine's load.
"""

import argparse
import os
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django  # noqa: E402

django.setup()

from django.http import HttpResponse  # noqa: E402
from django.test import RequestFactory  # noqa: E402
from django.urls import resolve  # noqa: E402

from chapters.metrics import RequestMetricsMiddleware  # noqa: E402

PAGE = "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/"


def best(call, number):
    """Return the best of 7 timings of ``number`` calls, in microseconds per call."""
    return min(timeit.repeat(call, number=number, repeat=7)) / number * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per timing")
    number = parser.parse_args().number
    response = HttpResponse(b"page")

    def view(request):
        return response

    measured = RequestMetricsMiddleware(view)
    resolved = RequestFactory().get(PAGE)
    resolved.resolver_match = resolve(PAGE)
    kept = RequestFactory().get(PAGE)
    alone = best(lambda: view(resolved), number)
    rows = [
        ("resolved request", best(lambda: measured(resolved), number) - alone),
        ("reader's kept page", best(lambda: measured(kept), number) - alone),
    ]
    print(f"load average: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    for name, added in rows:
        print(f"{name}: +{added:.1f} µs per request")


if __name__ == "__main__":
    main()
