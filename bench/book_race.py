"""The measurements of ``bench/books.py``: a book's PDF built in a process of its own as a task
worker builds it, and headless Chromium printing the same print page, each timed with its
CPU and its process tree's peak memory (issue 25).

Run by ``bench/books.py``; this module is also the entry of the processes it starts::

    python bench/book_race.py --make 222        # migrate a scratch database, give it a tree
    python bench/book_race.py --build PATH      # build PATH's PDF ("" the whole curriculum)

Both read the scratch database from the environment :func:`environment` gives.
"""

import argparse
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing import forkserver
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = [
    "/usr/bin/chromium",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]


def build(path):
    """Build one book's PDF in this process and print its measurements as JSON.

    Args:
        path: a section's or an area's path, or "" for the whole curriculum.
    """
    django.setup()
    from chapters.books.content import book_of
    from chapters.books.pdf import render_pdf
    from chapters.models import Node

    book = book_of(Node.objects.get(path=path) if path else None)
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
    """Run this module with ``arguments`` in a process of its own; return what
    :func:`measured` returns."""
    return measured([sys.executable, __file__, *arguments], env, stdout=subprocess.PIPE)


def measured(command, env, proportional=True, limit=None, **popen):
    """Run ``command`` to its end, measuring its time, CPU and memory.

    Args:
        command: the command's arguments.
        env: its environment.
        proportional: also read the proportional memory (``Pss``) of its process tree, which
            stalls a process of gigabytes (:func:`_sample_tree`).
        limit: ``(megabytes, seconds)``: stop the command (``SIGKILL`` to its process group)
            once its process tree's resident memory or its time passes either, so that one
            side of a race cannot take the machine's memory; None for no limit.
        popen: more arguments of ``subprocess.Popen`` (``stdout=subprocess.PIPE`` to read its
            output).

    Returns:
        A dict: ``output``, its standard output (bytes, or None when not piped); ``wall``,
        its wall-clock time in seconds; ``cpu``, its CPU time in seconds (user and system,
        of the children it waited for too); ``peak``, the peak resident memory in MB of the
        largest of it and those children (the kernel's, ``wait4``); ``tree``, the peaks in
        MB of the sums of the resident (``rss``) and of the proportional memory (``pss``: a
        page shared by ``n`` processes counted ``1/n`` in each) of it and all its
        descendants at once, read from ``/proc`` every 50 ms (``pss`` None unless
        ``proportional``); ``stopped``, why it was stopped at its ``limit`` ("" if not).

    Raises:
        RuntimeError: the command ended with an error (and was not stopped).
    """
    wall = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True, **popen)
    tree = {"rss": 0, "pss": 0 if proportional else None, "stopped": ""}
    sampler = threading.Thread(
        target=_sample_tree, args=(process, tree, proportional, limit), daemon=True
    )
    sampler.start()
    output = process.stdout.read() if process.stdout is not None else None
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - wall
    sampler.join()
    stopped = tree.pop("stopped")
    if os.waitstatus_to_exitcode(status) and not stopped:
        raise RuntimeError(f"{command} ended with {os.waitstatus_to_exitcode(status)}")
    return {
        "output": output,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": usage.ru_maxrss / 1024,
        "tree": tree,
        "stopped": stopped,
    }


def _sample_tree(process, tree, proportional, limit=None):
    """Keep in ``tree`` the largest sums of the resident (``rss``) and, if ``proportional``,
    the proportional (``pss``) memory, in MB, of ``process`` and its descendants, until it
    has ended.

    A process's ``Pss`` is read from ``/proc/<pid>/smaps_rollup``, which walks its pages
    holding its memory map's lock: 0.3 s for a renderer of 4 GB, which stalls the renderer
    while it lasts, so Chromium's tree is measured by its resident memory alone (``status``,
    which costs nothing). Past ``limit`` (``(megabytes, seconds)``, :func:`measured`), the
    process group is killed and ``tree["stopped"]`` says why.
    """
    started = time.perf_counter()
    while process.returncode is None and Path(f"/proc/{process.pid}").exists():
        rss = pss = 0
        for pid in _descendants(process.pid):
            rss += _kilobytes(f"/proc/{pid}/status", "VmRSS")
            if proportional:
                pss += _kilobytes(f"/proc/{pid}/smaps_rollup", "Pss")
        tree["rss"] = max(tree["rss"], rss / 1024)
        if proportional:
            tree["pss"] = max(tree["pss"], pss / 1024)
        if limit is not None and not tree["stopped"]:
            megabytes, seconds = limit
            if rss / 1024 > megabytes or time.perf_counter() - started > seconds:
                tree["stopped"] = (
                    f"stopped past {megabytes:,} MB"
                    if rss / 1024 > megabytes
                    else f"stopped after {seconds:,} s"
                )
                os.killpg(process.pid, signal.SIGKILL)
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


def ours(path, env, proportional=False):
    """Build the PDF of the node at ``path`` (or of the whole curriculum for "") in a fresh
    process, as a task worker does; with ``proportional``, its process tree's ``Pss`` read
    as it runs, which stalls each process a little at each reading (:func:`_sample_tree`),
    so not while it is timed.

    Returns:
        The measurements :func:`build` prints (``wall`` and ``cpu`` around ``render_pdf``,
        the layout processes' CPU included; ``cpu_here``, the building process's own;
        ``bytes``; ``pages``), with the process's CPU in all (``process_cpu``), its
        ``peak`` and ``tree`` memory (:func:`measured`), its setup included.
    """
    run = measured(
        [sys.executable, __file__, "--build", path],
        env,
        proportional=proportional,
        stdout=subprocess.PIPE,
    )
    return {
        **json.loads(run["output"]),
        "process_cpu": run["cpu"],
        "peak": run["peak"],
        "tree": run["tree"],
    }


def chromium(url, scratch, server, limit=None):
    """Print ``url`` with headless Chromium, from its start to its exit.

    Returns:
        A dict: ``wall``; ``cpu``, of the browser and the processes it waited for (not its
        renderers, which the kernel counts to no one we wait for); ``server_cpu``, the
        server's workers' CPU while it ran; ``peak`` and ``tree`` as :func:`measured` gives
        them, resident memory only (the tree's counts the renderers); ``pages``, of the PDF
        it printed (None when it was stopped); ``stopped``, why it was stopped at ``limit``
        (:func:`measured`), or "".
    """
    from bench.measure import workers_cpu_seconds

    target = Path(scratch) / "chromium.pdf"
    target.unlink(missing_ok=True)
    profile = tempfile.mkdtemp(dir=scratch)
    served = workers_cpu_seconds(server.pid)
    run = measured(
        [*CHROMIUM, f"--user-data-dir={profile}", f"--print-to-pdf={target}", url],
        os.environ,
        proportional=False,
        limit=limit,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return {
        "wall": run["wall"],
        "cpu": run["cpu"],
        "server_cpu": workers_cpu_seconds(server.pid) - served,
        "peak": run["peak"],
        "tree": run["tree"],
        "pages": None if run["stopped"] else _pages(target),
        "stopped": run["stopped"],
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


def node_path(env, **lookup):
    """Return the path of the node found by ``lookup`` (``Node.objects.filter(...)``'s first,
    in tree order) in the scratch database of ``env``."""
    code = (
        "import django; django.setup(); from chapters.models import Node; "
        f"print(Node.objects.filter(**{lookup!r}).first().path)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def main():
    """The entry of the processes :func:`child` and :func:`ours` start."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", help="build this path's PDF")
    parser.add_argument("--make", type=int, help="migrate and make a tree of this many nodes")
    arguments = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if arguments.make is not None:
        make_tree(arguments.make)
    elif arguments.build is not None:
        build(arguments.build)


if __name__ == "__main__":
    main()
