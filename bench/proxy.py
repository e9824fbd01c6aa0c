"""The shipped reverse proxies, run as they are, and the benchmark of the caches in front.

The context managers :func:`nginx` and :func:`varnish` start ``deploy/nginx/wiki.conf``
and ``deploy/varnish/wiki.vcl`` as shipped, for one user, in a folder of their own: only
the address of the wiki, the port they listen on and nginx's cache folder are replaced
(:func:`templated`, which fails when the shipped file no longer has the line it replaces).
``tests/test_proxy.py`` checks what they keep; this module's ``main`` measures them.

Run by bench/run.py for each database and size, after bench/measure.py, on the same scratch
database (bench/run.py sets the environment as for bench/measure.py)::

    python -m bench.proxy --url /a/chapter/ --out result.json --duration 10 --connections 8

Writes one JSON object to ``--out``: requests per second of the chapter page through
nginx's cache and through Varnish, and of the same bytes served by nginx as a static file,
each for a client that takes gzip and for one that does not (``CLIENTS``), measured in turn
(``ROUNDS`` rounds of all six, each rate the median of its runs), and the seconds from each
of ``EDITS`` committed edits to the first page through nginx's cache that shows it.
"""

import argparse
import gzip
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import django

from bench.serving import free_port, gunicorn_command

__all__ = [
    "NGINX",
    "VARNISHD",
    "VARNISHSTAT",
    "edit_bound",
    "fetch",
    "free_port",
    "main",
    "nginx",
    "templated",
    "varnish",
]

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx" / "wiki.conf"
VARNISH_VCL = ROOT / "deploy" / "varnish" / "wiki.vcl"
# Debian's binaries (in /usr/sbin, which a user's PATH may not have).
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
VARNISHD = shutil.which("varnishd") or "/usr/sbin/varnishd"
VARNISHSTAT = shutil.which("varnishstat") or "/usr/bin/varnishstat"

ROUNDS = 3  # the static file and the page through each cache, measured in turn this often
# The two kinds of client, by the headers they send: a browser, and curl or a bot. Each names
# the host without the port, as nginx passes it on, so that Varnish, which passes the
# client's Host, is sent the same page (it names its own absolute URL).
CLIENTS = {
    "gzip": ("Host: 127.0.0.1", "Accept-Encoding: gzip, deflate, br"),
    "plain": ("Host: 127.0.0.1",),
}
WARM_UP_SECONDS = 2
EDITS = 5  # edits timed through the cache
# Response headers the static file does not repeat from the page: nginx sets its own.
OWN_HEADERS = {
    "connection",
    "content-length",
    "content-type",
    "date",
    "etag",
    "keep-alive",
    "last-modified",
    "server",
    "x-cache-status",
}


def templated(text, replacements):
    """Return ``text`` with each key of ``replacements`` replaced by its value.

    Raises:
        ValueError: a key is not in ``text`` exactly once (the shipped file changed, and
            what runs would no longer be what is shipped).
    """
    for old, new in replacements.items():
        if text.count(old) != 1:
            raise ValueError(f"{old!r} is in the shipped configuration {text.count(old)} times")
        text = text.replace(old, new)
    return text


def fetch(port, path, headers=None, method="GET"):
    """Send one request to 127.0.0.1:``port``; return the status, headers and body.

    Returns:
        ``(status, headers, body)``, the headers an ``http.client.HTTPMessage``.
    """
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        client.request(method, path, headers=headers or {})
        response = client.getresponse()
        return response.status, response.headers, response.read()
    finally:
        client.close()


def wait_for(port, process, log, seconds=60):
    """Wait until ``port`` takes connections; fail with ``log`` if ``process`` ends first.

    Raises:
        RuntimeError: the process ended, or the port did not open within ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} ended:\n{Path(log).read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing on port {port}:\n{Path(log).read_text()}") from None
            time.sleep(0.1)


@contextmanager
def running(command, port, log):
    """Run ``command`` until the block ends; yield once ``port`` takes connections."""
    with open(log, "wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            wait_for(port, process, log)
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


@contextmanager
def nginx(folder, upstream, extra="", workers=1):
    """Run nginx with ``deploy/nginx/wiki.conf`` in front of 127.0.0.1:``upstream``.

    Args:
        folder: a folder of its own for its configuration, cache, logs and temporary files.
        upstream: the port gunicorn listens on.
        extra: more of nginx's configuration for the http block (the benchmark's static
            file).
        workers: nginx's worker processes.

    Yields:
        The port it listens on.
    """
    folder = Path(folder)
    port = free_port()
    conf = templated(
        NGINX_CONF.read_text(encoding="utf-8"),
        {
            "proxy_cache_path /var/cache/nginx/wiki ": f"proxy_cache_path {folder}/cache ",
            "server 127.0.0.1:8000;": f"server 127.0.0.1:{upstream};",
            "listen 80;": f"listen 127.0.0.1:{port};",
        },
    )
    (folder / "wiki.conf").write_text(conf, encoding="utf-8")
    temporary = "\n".join(
        f"    {kind}_temp_path {folder}/{kind};"
        for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    )
    # sendfile and tcp_nopush as Debian's /etc/nginx/nginx.conf sets them. nginx started by
    # root runs its workers as "nobody", who could not write the folder.
    user = "user root;" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"""{user}
daemon off;
worker_processes {workers};
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{
    worker_connections 1024;
}}
http {{
    access_log off;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
{temporary}
    include {folder}/wiki.conf;
{extra}
}}
""",
        encoding="utf-8",
    )
    command = [NGINX, "-p", str(folder), "-e", str(folder / "error.log")]
    command += ["-c", str(folder / "nginx.conf")]
    with running(command, port, folder / "nginx.out"):
        yield port


@contextmanager
def varnish(folder, upstream):
    """Run varnishd with ``deploy/varnish/wiki.vcl`` in front of 127.0.0.1:``upstream``.

    Args:
        folder: a folder of its own for its VCL and working directory.
        upstream: the port gunicorn listens on.

    Yields:
        The port it listens on.
    """
    folder = Path(folder)
    port = free_port()
    vcl = templated(
        VARNISH_VCL.read_text(encoding="utf-8"),
        {'.port = "8000";': f'.port = "{upstream}";'},
    )
    (folder / "wiki.vcl").write_text(vcl, encoding="utf-8")
    command = [VARNISHD, "-F", "-j", "none", "-n", str(folder / "varnish")]
    command += ["-a", f"127.0.0.1:{port}", "-f", str(folder / "wiki.vcl"), "-s", "malloc,32m"]
    with running(command, port, folder / "varnishd.out"):
        yield port


@contextmanager
def gunicorn(folder, workers):
    """Serve the scratch database with gunicorn and the project's configuration.

    Yields:
        The port it listens on, once it answers.
    """
    port = free_port()
    with open(Path(folder) / "gunicorn.log", "wb") as log:
        server = subprocess.Popen(
            gunicorn_command(port, workers), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            wait_for(port, server, Path(folder) / "gunicorn.log", seconds=120)
            yield port
        finally:
            server.terminate()
            server.wait(timeout=60)


def static_server(folder, page_headers):
    """Return nginx's configuration of a server answering ``/page.html`` from ``folder``,
    with the page's own headers (those nginx does not set itself), and its port.

    ``folder`` holds ``page.html`` and the wiki's gzipped answer beside it,
    ``page.html.gz``, which nginx sends a client that takes gzip (``gzip_static``).
    """
    port = free_port()
    lines = [
        f'        add_header {name} "{value}";'
        for name, value in page_headers.items()
        if name.lower() not in OWN_HEADERS
    ]
    extra = "\n".join(
        [
            "    server {",
            f"        listen 127.0.0.1:{port};",
            f"        root {folder};",
            "        types { text/html html; }",
            "        charset utf-8;",
            "        gzip_static on;",
            *lines,
            "    }",
        ]
    )
    return extra, port


def edit_seen_seconds(port, url, chapter, span, edits=EDITS):
    """Return the seconds from each of ``edits`` edits of ``chapter``'s body to the first
    page through the cache at ``port`` that shows it.

    Before each edit the page is read until the cache answers it (HIT), then the edit waits
    a share of ``span`` seconds (the documented bound), a different share each time, so
    that the edits fall at different points of the kept copy's life: fresh, stale, past
    both. Then one reader asks again and again until the page shows the edit.
    """
    from chapters.models import Node

    times = []
    for number in range(edits):
        while fetch(port, url)[1]["X-Cache-Status"] != "HIT":
            time.sleep(0.05)
        time.sleep(span * number / edits)
        marker = f"Benchmark edit {number} at {time.time():.3f}"
        node = Node.objects.get(pk=chapter)
        node.body = f"{node.body}\n\n{marker}\n"
        node.save()
        committed = time.monotonic()
        while marker.encode() not in fetch(port, url)[2]:
            time.sleep(0.01)
        times.append(time.monotonic() - committed)
    return times


def edit_bound(settings):
    """Return the documented bound, in seconds, on the time an edit takes to show through
    the cache, the render of the page aside: s-maxage + stale-while-revalidate + 1 (nginx
    counts whole seconds)."""
    return settings.WIKI_SHARED_CACHE_SECONDS + settings.WIKI_SHARED_CACHE_STALE_SECONDS + 1


def wrk_rates(targets, duration, connections):
    """Run wrk on each of ``targets`` (``{name: (url, headers)}``) in turn, ``ROUNDS`` times;
    return each one's median rate, and its completed requests and failures summed."""
    from bench.measure import wrk

    for url, headers in targets.values():
        wrk(url, WARM_UP_SECONDS, connections, headers)
    rates = {name: [] for name in targets}
    done, failed = dict.fromkeys(targets, 0), dict.fromkeys(targets, 0)
    for _ in range(ROUNDS):
        for name, (url, headers) in targets.items():
            rate, requests, failures = wrk(url, duration, connections, headers)
            rates[name].append(rate)
            done[name] += requests
            failed[name] += failures
    return {name: statistics.median(each) for name, each in rates.items()}, done, failed


def measure(url, duration, connections, workers):
    """Serve the wiki with gunicorn behind nginx's cache and Varnish; measure the page for
    each kind of client, and an edit.

    Returns:
        The measurements, as ``main`` writes them: ``rps`` by target, ``static``, ``nginx``
        or ``varnish`` and a kind of client (``static gzip``, ...).

    Raises:
        RuntimeError: the page did not answer 200, or a cache did not keep it.
    """
    from django.conf import settings

    from chapters.models import Node

    with tempfile.TemporaryDirectory(prefix="bench-proxy-") as scratch:
        scratch = Path(scratch)
        with gunicorn(scratch, workers) as upstream:
            # The host nginx passes on ($host: the address without its port).
            status, headers, page = fetch(upstream, url, {"Host": "127.0.0.1"})
            zipped = fetch(upstream, url, {"Host": "127.0.0.1", "Accept-Encoding": "gzip"})[2]
            if status != 200 or gzip.decompress(zipped) != page:
                raise RuntimeError(f"gunicorn answered {status} for {url}, or no gzip")
            for name in ("static", "nginx", "varnish"):
                (scratch / name).mkdir()
            (scratch / "static" / "page.html").write_bytes(page)
            (scratch / "static" / "page.html.gz").write_bytes(zipped)
            extra, static = static_server(scratch / "static", dict(headers.items()))
            with (
                nginx(scratch / "nginx", upstream, extra=extra) as port,
                varnish(scratch / "varnish", upstream) as varnish_port,
            ):
                served = {
                    "static": (static, "/page.html"),
                    "nginx": (port, url),
                    "varnish": (varnish_port, url),
                }
                for name, (at, path) in served.items():
                    _check_kept(name, at, path, page)
                targets = {
                    f"{name} {client}": (f"http://127.0.0.1:{at}{path}", CLIENTS[client])
                    for client in CLIENTS
                    for name, (at, path) in served.items()
                }
                rates, requests, errors = wrk_rates(targets, duration, connections)
                chapter = Node.objects.get(path=url.strip("/")).pk
                seen = edit_seen_seconds(port, url, chapter, edit_bound(settings))
    return {
        "rps": rates,
        "rps_static": rates["static plain"],
        "rps_cached": rates["nginx plain"],
        "proxy_wrk_requests": requests,
        "proxy_wrk_errors": errors,
        "cache_control": headers["Cache-Control"],
        "edit_bound_s": edit_bound(settings),
        "edit_seen_s": seen,
    }


def _check_kept(name, port, path, page):
    """Check that ``path`` at ``port`` answers ``page`` to each kind of client, from the
    cache after the first request (but for the static file), gzipped to a client that takes
    gzip.

    Raises:
        RuntimeError: it does not.
    """
    for client, sent in CLIENTS.items():
        headers = dict(header.split(": ", 1) for header in sent)
        answers = [fetch(port, path, headers) for _ in range(3)]
        status, said, body = answers[-1]
        kept = name == "static" or said.get("X-Cache-Status", said.get("X-Cache")) == "HIT"
        plain = gzip.decompress(body) if said["Content-Encoding"] == "gzip" else body
        zipped_as_asked = (said["Content-Encoding"] == "gzip") == (client == "gzip")
        if status != 200 or not kept or plain != page or not zipped_as_asked:
            raise RuntimeError(f"{name} did not keep {path} for the {client} client")


def main():
    """Parse the arguments, measure, and write the measurements as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the chapter page's path")
    parser.add_argument("--out", required=True)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    django.setup()
    result = measure(args.url, args.duration, args.connections, args.workers)
    Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
