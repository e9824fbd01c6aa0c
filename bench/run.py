"""Benchmark the wiki at several tree sizes on SQLite and PostgreSQL; print one table.

Usage, from the repository's root (see bench/README.md)::

    .venv/bin/python bench/run.py [--sizes 222,2000,20000] [--databases sqlite,postgresql]
        [--duration 10] [--connections 8] [--workers 2] [--no-fail]

Each database and size is measured by bench/measure.py in a process of its own, on a scratch
database made for it and dropped afterwards (a SQLite file in a temporary directory; a
PostgreSQL database ``bench_<pid>_<size>`` next to ``--postgres-url``). The trees of 2,000
and 20,000 nodes are kept until bench/toc.py has timed their tables of contents in turn.
After bench/measure.py, bench/proxy.py measures the page through nginx's cache
(deploy/nginx/wiki.conf) on the same database.
The cache is the project's: local memory, or Redis when ``REDIS_URL`` is set (the
benchmark empties it).
Exits 1 when a target is missed, unless ``--no-fail``.
"""

import argparse
import json
import os
import platform
import secrets
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import scale  # noqa: E402

# The targets of issue 8, against the stack floor, and of issue 19, against the honest floor.
PAGE_FLOOR_RATIO = 0.8  # warm chapter page throughput / floor throughput, at least
MAX_QUERIES_COLD, MAX_QUERIES_WARM = 4, 1
TOC_GROWTH = 12  # TOC build time at 20,000 nodes / at 2,000 nodes, at most
TOC_SIZES = (2000, 20000)
NOT_MODIFIED_FLOOR_RATIO = 1.0  # 304 throughput / floor throughput, at least
# The targets of issue 19 for editors (bench/editors.py).
EDITOR_MAX_MS = 200  # the admin's change form, its parent autocomplete, a chapter's Save
# The targets of issues 19 and 28 (bench/proxy.py): the page through each cache (nginx's,
# Varnish), for each kind of client (one that takes gzip, one that does not) / the same bytes
# as nginx's static file for that client, at least; an edit shows within the documented bound.
CACHED_STATIC_RATIO = 0.8
CACHED_RATIOS = ("cached_ratio", "cached_gzip_ratio", "varnish_ratio", "varnish_gzip_ratio")

COLUMNS = [
    ("database", "database", "{}"),
    ("nodes", "size", "{:,}"),
    ("q cold", "queries_cold", "{}"),
    ("q warm", "queries_warm", "{}"),
    ("toc ms", "toc_ms", "{:.1f}"),
    ("page cold ms", "page_cold_ms", "{:.1f}"),
    ("page warm ms", "page_warm_ms", "{:.1f}"),
    ("add ms", "add_front_ms", "{:.1f}"),
    ("move ms", "move_section_ms", "{:.1f}"),
    ("stack r/s", "rps_floor", "{:.1f}"),
    ("page r/s", "rps_page", "{:.1f}"),
    ("304 r/s", "rps_not_modified", "{:.1f}"),
    ("page/stack", "page_ratio", "{:.3f}"),
    ("304/stack", "not_modified_ratio", "{:.3f}"),
    ("honest r/s", "rps_honest_floor", "{:.1f}"),
    ("page/honest", "honest_page_ratio", "{:.3f}"),
    ("304/honest", "honest_not_modified_ratio", "{:.3f}"),
    ("honest cpu µs", "cpu_us_honest_floor", "{:.0f}"),
    ("page cpu µs", "cpu_us_page", "{:.0f}"),
    ("304 cpu µs", "cpu_us_not_modified", "{:.0f}"),
    ("form ms", "admin_form_ms", "{:.1f}"),
    ("form bytes", "admin_form_bytes", "{:,}"),
    ("parents ms", "admin_autocomplete_ms", "{:.1f}"),
    ("admin save ms", "admin_save_ms", "{:.1f}"),
    ("editor save ms", "editor_save_ms", "{:.1f}"),
    ("outline ms", "outline_section_ms", "{:.1f}"),
    ("outline move ms", "outline_move_ms", "{:.1f}"),
    ("static r/s", "rps_static", "{:.1f}"),
    ("cached r/s", "rps_cached", "{:.1f}"),
    ("cached/static", "cached_ratio", "{:.3f}"),
    ("gz cached/static", "cached_gzip_ratio", "{:.3f}"),
    ("varnish/static", "varnish_ratio", "{:.3f}"),
    ("gz varnish/static", "varnish_gzip_ratio", "{:.3f}"),
    ("edit seen s", "edit_seen_max_s", "{:.2f}"),
    # Issue 19 (bench/scale.py).
    ("page KB", "page_kb", "{:.1f}"),
    ("toc KB", "resource_kb", "{:.1f}"),
    ("edit ms", "edit_first_ms", "{:.1f}"),
    ("edit max ms", "edit_first_max_ms", "{:.1f}"),
    ("load max ms", "load_max_ms", "{:.1f}"),
    ("RSS MB", "worker_rss_mb", "{:.1f}"),
]


def scratch_database(database, size, directory, postgres_url):
    """Create an empty database for one run; return its URL and a function that drops it."""
    if database == "sqlite":
        return f"sqlite:///{directory}/bench-{size}.sqlite3", lambda: None
    import psycopg

    name = f"bench_{os.getpid()}_{size}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')

    def drop():
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return urlsplit(postgres_url)._replace(path=f"/{name}").geturl(), drop


def environment(url):
    """Return the environment of a measuring process on the database at ``url``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="bench.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
    )
    return env


def run_measuring(command, out, url, drop):
    """Run a measuring ``command`` on the scratch database at ``url``; return what it wrote.

    Args:
        command: the measuring process's command line (``python -m bench.<module> ...``).
        out: the JSON file it writes its measurements to.
        url: the scratch database's URL.
        drop: the function that drops that database, called when the process fails.

    Raises:
        subprocess.CalledProcessError: the process failed (the database is dropped first).
    """
    try:
        subprocess.run(command, cwd=ROOT, env=environment(url), check=True)
    except BaseException:
        drop()
        raise
    return json.loads(out.read_text(encoding="utf-8"))


def measure(database, size, args, directory):
    """Run bench/measure.py for one database and size.

    Returns:
        Its measurements, the scratch database's URL, and a function that drops it (the
        caller's to call: the table of contents is timed on two of them afterwards).
    """
    url, drop = scratch_database(database, size, directory, args.postgres_url)
    out = Path(directory) / f"{database}-{size}.json"
    command = [sys.executable, "-m", "bench.measure", "--size", str(size), "--out", str(out)]
    command += ["--duration", str(args.duration), "--connections", str(args.connections)]
    command += ["--workers", str(args.workers)]
    result = run_measuring(command, out, url, drop)
    result.update(behind_the_cache(result["url"], args, directory, url, drop))
    not_modified = result["rps_not_modified"]  # None when the page answered no 304
    for prefix, floor in (("", result["rps_floor"]), ("honest_", result["rps_honest_floor"])):
        result[f"{prefix}page_ratio"] = result["rps_page"] / floor
        result[f"{prefix}not_modified_ratio"] = (
            None if not_modified is None else not_modified / floor
        )
    return result, url, drop


def behind_the_cache(page, args, directory, url, drop):
    """Run bench/proxy.py on the database at ``url`` for the page ``page``; return its
    measurements, with the ratios of the page through each cache to the static file, for
    each kind of client, and the slowest edit to show."""
    out = Path(directory) / "proxy.json"
    command = [sys.executable, "-m", "bench.proxy", "--url", page, "--out", str(out)]
    command += ["--duration", str(args.duration), "--connections", str(args.connections)]
    command += ["--workers", str(args.workers)]
    result = run_measuring(command, out, url, drop)
    rps = result["rps"]
    for key, cache, client in [
        ("cached_ratio", "nginx", "plain"),
        ("cached_gzip_ratio", "nginx", "gzip"),
        ("varnish_ratio", "varnish", "plain"),
        ("varnish_gzip_ratio", "varnish", "gzip"),
    ]:
        result[key] = rps[f"{cache} {client}"] / rps[f"static {client}"]
    result["edit_seen_max_s"] = max(result["edit_seen_s"])
    return result


def toc_in_turn(urls, directory):
    """Run bench/toc.py on the trees at ``urls``; return their tables of contents' best
    times, timed in turn in one process."""
    out = Path(directory) / "toc.json"
    command = [sys.executable, "-m", "bench.toc", "--out", str(out), *urls]
    subprocess.run(command, cwd=ROOT, env=environment(urls[0]), check=True)
    return json.loads(out.read_text(encoding="utf-8"))["toc_ms"]


def table(results):
    """Return the results as a Markdown table, one row per database and size."""
    rows = [[title for title, _, _ in COLUMNS]]
    for result in results:
        rows.append(
            [
                "–" if result.get(key) is None else form.format(result[key])
                for _, key, form in COLUMNS
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["| " + " | ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) + " |"
             for row in rows]  # fmt: skip
    lines.insert(1, "| " + " | ".join("-" * (w - 1) + ":" for w in widths) + " |")
    return "\n".join(lines)


def checks(results, sizes):
    """Return ``(passed, line)`` for each target, per database."""
    lines = []
    for database in dict.fromkeys(result["database"] for result in results):
        rows = [result for result in results if result["database"] == database]

        def listed(key, form="{:.3f}", rows=rows):
            return ", ".join("none" if r[key] is None else form.format(r[key]) for r in rows)

        ratios = [r["page_ratio"] for r in rows]
        lines.append(
            (
                min(ratios) >= PAGE_FLOOR_RATIO,
                f"{database}: warm page / stack floor >= {PAGE_FLOOR_RATIO}: "
                f"{listed('page_ratio')}",
            )
        )
        honest = [r["honest_page_ratio"] for r in rows]
        lines.append(
            (
                min(honest) >= PAGE_FLOOR_RATIO,
                f"{database}: warm page / honest floor >= {PAGE_FLOOR_RATIO}: "
                f"{listed('honest_page_ratio')}",
            )
        )
        honest_not_modified = [r["honest_not_modified_ratio"] for r in rows]
        lines.append(
            (
                None not in honest_not_modified
                and min(honest_not_modified) >= NOT_MODIFIED_FLOOR_RATIO,
                f"{database}: 304 / honest floor >= {NOT_MODIFIED_FLOOR_RATIO}: "
                f"{listed('honest_not_modified_ratio')}"
                + (" (no ETag, so no 304)" if None in honest_not_modified else ""),
            )
        )
        queries = {(r["queries_cold"], r["queries_warm"]) for r in rows}
        cold, warm = max(q[0] for q in queries), max(q[1] for q in queries)
        lines.append(
            (
                len(queries) == 1 and cold <= MAX_QUERIES_COLD and warm <= MAX_QUERIES_WARM,
                f"{database}: queries per page the same at every size, cold <= "
                f"{MAX_QUERIES_COLD}, warm <= {MAX_QUERIES_WARM}: cold "
                f"{listed('queries_cold', '{}')}; warm {listed('queries_warm', '{}')}",
            )
        )
        turns = [r["toc_in_turn_ms"] for r in rows if "toc_in_turn_ms" in r]
        if turns:
            small, large = turns[0]
            lines.append(
                (
                    large / small <= TOC_GROWTH,
                    f"{database}: TOC(20,000) / TOC(2,000) <= {TOC_GROWTH}: "
                    f"{large / small:.1f} (timed in turn in one process: {small:.1f} and "
                    f"{large:.1f} ms)",
                )
            )
        else:
            lines.append((None, f"{database}: TOC(20,000) / TOC(2,000): not measured"))
        not_modified = [r["not_modified_ratio"] for r in rows]
        lines.append(
            (
                None not in not_modified and min(not_modified) >= NOT_MODIFIED_FLOOR_RATIO,
                f"{database}: 304 / stack floor >= {NOT_MODIFIED_FLOOR_RATIO}: "
                f"{listed('not_modified_ratio')}"
                + (" (no ETag, so no 304)" if None in not_modified else ""),
            )
        )
        failures = [sum(r["wrk_errors"].values()) for r in rows]
        lines.append(
            (
                not any(failures),
                f"{database}: no request under load failed or timed out: "
                + ", ".join(map(str, failures)),
            )
        )
        lines.extend(editor_checks(database, rows))
        lines.append(
            (
                min(r[key] for r in rows for key in CACHED_RATIOS) >= CACHED_STATIC_RATIO,
                f"{database}: page through nginx's cache and Varnish / nginx's static file, "
                f"plain and gzipped, >= {CACHED_STATIC_RATIO}: "
                + "; ".join(f"{key} {listed(key)}" for key in CACHED_RATIOS),
            )
        )
        # The documented bound: s-maxage + stale-while-revalidate + 1 s, and one render of
        # the page after the edit (the cold page's time, measured in-process).
        bounds = [r["edit_bound_s"] + r["page_cold_ms"] / 1000 for r in rows]
        lines.append(
            (
                all(
                    r["edit_seen_max_s"] <= bound and not sum(r["proxy_wrk_errors"].values())
                    for r, bound in zip(rows, bounds, strict=True)
                ),
                f"{database}: an edit shows through the cache within s-maxage + "
                f"stale-while-revalidate + 1 = {rows[0]['edit_bound_s']} s and a cold page, "
                f"slowest of {len(rows[0]['edit_seen_s'])}: "
                + ", ".join(
                    f"{r['edit_seen_max_s']:.2f} <= {bound:.2f} s"
                    for r, bound in zip(rows, bounds, strict=True)
                )
                + "; failed requests through it: "
                + ", ".join(str(sum(r["proxy_wrk_errors"].values())) for r in rows),
            )
        )
        lines.append(
            (
                all(r["writes_seen"] for r in rows),
                f"{database}: pages show an added chapter and a moved section at once: "
                + ", ".join("yes" if r["writes_seen"] else "NO" for r in rows),
            )
        )
        lines.extend(scale.checks(database, rows))
    return lines


def editor_checks(database, rows):
    """Return ``(passed, line)`` for the editors' targets on one database's rows."""

    def listed(key, rows=rows):
        return ", ".join(f"{r[key]:.1f}" for r in rows)

    lines = []
    for key, what in (
        ("admin_form_ms", "admin change form"),
        ("admin_autocomplete_ms", "admin parent autocomplete"),
        ("admin_save_ms", "admin Save of a chapter"),
        ("editor_save_ms", "site editor Save of a chapter"),
        ("outline_ms", "the whole wiki's outline"),
        ("outline_section_ms", "a section's outline"),
        ("outline_branch_ms", "a branch of the outline opened"),
        ("outline_move_ms", "a move on the outline"),
    ):
        passed = max(r[key] for r in rows) <= EDITOR_MAX_MS
        lines.append((passed, f"{database}: {what} <= {EDITOR_MAX_MS} ms: {listed(key)}"))
    options = [r["admin_form_options"] for r in rows]
    lines.append(
        (
            len(set(options)) == 1,
            f"{database}: admin change form's <option>s the same at every size (no select of "
            f"the tree): {', '.join(map(str, options))}; bytes "
            + ", ".join(f"{r['admin_form_bytes']:,}" for r in rows),
        )
    )
    return lines


def machine():
    """Return a line describing this machine, for the record."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith("model name")
        ]
        cpu = models[0] if models else cpu
    memory = ""
    if hasattr(os, "sysconf"):
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    return (
        f"{platform.node()}: {cpu}, {os.cpu_count()} cores{memory}; {platform.system()} "
        f"{platform.release()}; Python {platform.python_version()}"
    )


def main():
    """Measure every database and size, print the table and the targets; exit 1 on a miss."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="222,2000,20000", help="tree sizes, in nodes")
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--duration", type=int, default=10, help="seconds of each wrk run")
    parser.add_argument("--connections", type=int, default=8, help="wrk's connections")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn's workers")
    parser.add_argument(
        "--postgres-url",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL database to connect to while creating and dropping scratch ones",
    )
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--no-fail", action="store_true", help="exit 0 even if a target fails")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    databases = args.databases.split(",")
    if unknown := set(databases) - {"sqlite", "postgresql"}:
        parser.error(f"unknown database {', '.join(sorted(unknown))}: sqlite or postgresql")
    if shutil.which("wrk") is None:
        sys.exit("bench/run.py: wrk is missing; install it with: sudo apt-get install -y wrk")
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        sys.exit("bench/run.py: nginx is missing; install it with: sudo apt-get install -y nginx")

    started = datetime.now(UTC)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-") as directory:
        for database in databases:
            kept = {}  # the trees the table of contents is timed on afterwards
            try:
                for size in sizes:
                    print(f"== {database}, {size:,} nodes", file=sys.stderr, flush=True)
                    result, url, drop = measure(database, size, args, directory)
                    results.append(result)
                    if size in TOC_SIZES and set(TOC_SIZES) <= set(sizes):
                        kept[size] = (result, url, drop)
                    else:
                        drop()
                if kept:
                    print(f"== {database}, tables of contents in turn", file=sys.stderr)
                    urls = [kept[size][1] for size in TOC_SIZES]
                    kept[TOC_SIZES[1]][0]["toc_in_turn_ms"] = toc_in_turn(urls, directory)
            finally:
                for _, _, drop in kept.values():
                    drop()
    cache = results[0]["cache"]
    print(f"\n{started:%Y-%m-%d %H:%M} UTC, {machine()}")
    print(f"the product's access log: {results[0]['access_log'] or 'off'} (GUNICORN_ACCESS_LOG)")
    print(
        f"cache {cache}; gunicorn {args.workers} workers; wrk {args.connections} connections, "
        f"{args.duration} s per run\n"
    )
    print(table(results))
    print()
    failed = False
    for passed, line in checks(results, sizes):
        word = {True: "PASS", False: "FAIL", None: "----"}[passed]
        failed |= passed is False
        print(f"{word}  {line}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    sys.exit(1 if failed and not args.no_fail else 0)


if __name__ == "__main__":
    main()
