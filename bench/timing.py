"""Timing a call in process: the median of a few runs, the fastest of several, one run.

Shared by bench/measure.py and bench/editors.py (the editors' forms and saves).
"""

import gc
import statistics
import time
import timeit

__all__ = ["BUDGET_SECONDS", "REPEAT", "TOC_RUNS", "best_ms", "median_ms", "once_ms"]

REPEAT = 5  # timings are the median of this many runs...
BUDGET_SECONDS = 10  # ...or of as many as fit in this time
TOC_RUNS = 7  # the table of contents' time is the best of this many runs


def median_ms(function, before=None):
    """Return the median time of ``function()`` in milliseconds, calling ``before()`` first.

    Runs it ``REPEAT`` times, or fewer once the runs took ``BUDGET_SECONDS`` (at least once).
    """
    times = []
    while len(times) < REPEAT and sum(times) < BUDGET_SECONDS * 1000:
        if before is not None:
            before()
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def best_ms(function, before=None, runs=TOC_RUNS):
    """Return the fastest of ``runs`` calls of ``function()`` in milliseconds, each timed by
    Python's ``timeit`` (the garbage collector off while it times), after ``before()`` and a
    collection of what the call before left.

    The fastest, as ``timeit``'s documentation advises of its repeats: "the lowest value
    gives a lower bound for how fast your machine can run the given code snippet; higher
    values ... are typically not caused by variability in Python's speed, but by other
    processes interfering with your timing accuracy".
    """
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        gc.collect()
        times.append(timeit.Timer(function).timeit(number=1) * 1000)
    return min(times)


def once_ms(function):
    """Return the time of one call of ``function()`` in milliseconds."""
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1000
