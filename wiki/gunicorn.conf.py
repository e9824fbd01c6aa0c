"""gunicorn's settings for serving the wiki in production (``bin/serve-production``).

Read by ``gunicorn -c wiki/gunicorn.conf.py``; each name is one of gunicorn's settings
(https://docs.gunicorn.org/en/stable/settings.html). From the environment:

- ``GUNICORN_BIND``: the address to listen on. Default: ``127.0.0.1:8000``; behind a load
  balancer on another host, ``0.0.0.0:8000``.
- ``WEB_CONCURRENCY``: the number of worker processes (gunicorn's own variable). Default:
  two per CPU core plus one, gunicorn's advice for synchronous workers.
- ``GUNICORN_ACCESS_LOG``: where to write one line per request: ``-`` for standard output,
  or a file's path. Default: no access log (the load balancer or proxy in front logs them).
- ``PROMETHEUS_MULTIPROC_DIR``: a folder of this gunicorn's own where each worker writes
  its metrics (``chapters.metrics``), so that ``/metrics`` adds up every worker's, whichever
  answers; emptied as gunicorn starts. Default: none, each worker answers its own.
"""

import multiprocessing
import os
import re
from pathlib import Path

from gunicorn.config import ControlSocket
from prometheus_client import multiprocess

wsgi_app = "wiki.wsgi:application"
bind = [os.environ.get("GUNICORN_BIND") or "127.0.0.1:8000"]
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count() + 1)

# gunicorn (since 25.1) listens for gunicornc's commands (workers' status, more or fewer
# workers, reload, shutdown) on a Unix socket at one path per user by default,
# $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl, and a gunicorn that starts
# replaces the socket there: every gunicorn of the user on the host would share it, and
# gunicornc would command whichever started last. Each instance gets its own (below).
# It is kept rather than turned off as a way to look into a running server.


def on_starting(server):
    """Give this gunicorn a control socket of its own, named after the addresses it binds.

    No two running instances bind the same address. The socket is in gunicorn's folder for
    them (a checkout's folder may not be writable by the server's user, and a Unix socket's
    path is limited to 107 bytes). The addresses are gunicorn's final ones, from
    ``GUNICORN_BIND`` or ``--bind``. A path given with ``--control-socket`` is kept;
    ``--no-control-socket`` turns it off.

    Args:
        server: gunicorn's arbiter, whose settings are read and changed.
    """
    if server.cfg.control_socket == ControlSocket.default:
        name = re.sub(r"[^A-Za-z0-9.]+", "-", "-".join(server.cfg.bind)).strip("-")
        default = Path(ControlSocket.default)
        server.cfg.set("control_socket", str(default.with_name(f"gunicorn-{name}.ctl")))
    _empty_metrics_folder()


# prometheus-client's multiprocess mode (its documentation, "Multiprocess Mode (E.g.
# Gunicorn)"): each process writes its counters and histograms to files in this folder, and
# a scrape adds them up.
METRICS_FOLDER = os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def _empty_metrics_folder():
    """Make the metrics folder, or empty it of the files of a gunicorn that ran before:
    its workers' counts would otherwise be added to the new ones'."""
    if METRICS_FOLDER:
        folder = Path(METRICS_FOLDER)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink()


def child_exit(server, worker):
    """Tell prometheus-client a worker is gone, as its multiprocess mode asks (its live
    gauges' files are then dropped; counters keep counting what the worker did)."""
    if METRICS_FOLDER:
        multiprocess.mark_process_dead(worker.pid)


# A request line may be as long as gunicorn allows (its default is 4094 bytes): a page's URL
# in a script other than Latin takes up to 12 bytes a letter, and the model keeps every
# page's URL within this (chapters.models.placement.REQUEST_LINE_MAX_LENGTH).
limit_request_line = 8190

# A request that takes longer than this is stuck: its worker is killed and replaced. On a
# restart (SIGHUP, SIGTERM), workers get as long to finish the requests they have.
timeout = 30
graceful_timeout = 30
# Keep idle connections from a load balancer open a little, so it can reuse them.
keepalive = 5

# One line per problem on standard error, for the process manager's log; one per request
# only when GUNICORN_ACCESS_LOG names where. Writing it costs every worker a formatted line
# and a write per request (bench/README.md), and the load balancer or proxy in front of
# the app servers logs the same requests, so it is off unless asked for.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"
