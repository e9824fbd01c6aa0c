"""Time the books of the whole curriculum at several tree sizes, on SQLite; or count the
builds that concurrent requests for one book start, through gunicorn.

Usage::

    .venv/bin/python bench/books.py                  # 222 and 2,000 nodes
    .venv/bin/python bench/books.py --sizes 222      # one size
    .venv/bin/python bench/books.py --requests       # 100 requests, SQLite
    .venv/bin/python bench/books.py --requests --database-url postgres://postgres@127.0.0.1/books_bench

For each size, a scratch SQLite database in a temporary directory is migrated and given a
tree of the curriculum's shape (``bench/tree.py``: every chapter a body of about 3 KB with
headings, code, a table, math and the rest); then the whole curriculum is built once as a
PDF and once as an EPUB, as ``manage.py build_books`` builds them, and each one's time (wall
clock, and the process's CPU time, which other work on the machine changes less), size and
the PDF's number of pages are printed, then the process's peak memory. The results go in
bench/README.md.

The ``--requests`` mode (:mod:`bench.book_requests`) makes a fresh database (the SQLite
file of a temporary directory, or the PostgreSQL database that ``--database-url`` names,
dropped and created anew), gives it the curriculum's tree, serves it with gunicorn and sends
concurrent anonymous requests for one book; it prints how many builds they started, their
answer times, then the time a worker takes to build the book and the answer times of as
many requests for the built book.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent


def timed(function):
    """Return ``function()``'s result, its wall-clock time and its CPU time, in seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def measure(size):
    """Return ``(wall, cpu, bytes, pages)`` of the PDF and ``(wall, cpu, bytes)`` of the
    EPUB, times in seconds."""
    from django.core.management import call_command

    from bench.tree import create_tree
    from chapters.books.content import book_of
    from chapters.books.epub import render_epub
    from chapters.books.pdf import render_pdf

    call_command("migrate", verbosity=0)
    create_tree(size)
    pdf, pdf_wall, pdf_cpu = timed(lambda: render_pdf(book_of(None)))
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        info = subprocess.run(["pdfinfo", file.name], capture_output=True, text=True).stdout
    pages = next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:"))
    epub, epub_wall, epub_cpu = timed(lambda: render_epub(book_of(None)))
    return (pdf_wall, pdf_cpu, len(pdf), int(pages)), (epub_wall, epub_cpu, len(epub))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="222,2000", help="tree sizes, comma-separated")
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--requests", action="store_true", help="count the builds concurrent requests start"
    )
    parser.add_argument("--database-url", help="--requests: a PostgreSQL database to make anew")
    parser.add_argument("--count", type=int, default=100, help="--requests: how many requests")
    parser.add_argument("--workers", type=int, default=2, help="--requests: gunicorn workers")
    parser.add_argument("--book", default="/books/epub/", help="--requests: the book's path")
    arguments = parser.parse_args()
    if arguments.requests:
        sys.path.insert(0, str(ROOT))
        from bench.book_requests import run

        run(arguments.database_url, arguments.count, arguments.workers, arguments.book)
        return
    if arguments.size is None:
        for size in arguments.sizes.split(","):
            with tempfile.TemporaryDirectory() as scratch:
                env = {
                    **os.environ,
                    "DATABASE_URL": f"sqlite:///{scratch}/bench.sqlite3",
                    "DJANGO_SETTINGS_MODULE": "wiki.settings",
                    "DJANGO_DEBUG": "1",
                }
                subprocess.run(
                    [sys.executable, __file__, "--size", size], env=env, cwd=ROOT, check=True
                )
        return
    sys.path.insert(0, str(ROOT))
    django.setup()
    (pdf_wall, pdf_cpu, pdf_bytes, pages), (epub_wall, epub_cpu, epub_bytes) = measure(
        arguments.size
    )
    print(
        f"{arguments.size:>6,} nodes: PDF {pdf_wall:6.1f} s ({pdf_cpu:.1f} s CPU), "
        f"{pdf_bytes / 1e6:.1f} MB, {pages:,} pages; EPUB {epub_wall:.1f} s "
        f"({epub_cpu:.1f} s CPU), {epub_bytes / 1e6:.1f} MB; peak memory "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB"
    )


if __name__ == "__main__":
    main()
