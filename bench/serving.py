"""The project under gunicorn on a loopback port, for the benchmarks that send it requests:
a free port, gunicorn's command as production runs it, waiting until it answers.
"""

import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["free_port", "gunicorn_command", "wait_until_up"]


def free_port():
    """Return a TCP port on the loopback address that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_up(url, seconds=120):
    """Poll ``url`` until it answers; raise RuntimeError after ``seconds``.

    Also waits out the requests a wrk run left queued: the server takes connections in
    order, so it answers this one after them.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=seconds):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.25)
    raise RuntimeError(f"gunicorn did not answer {url} within {seconds} s")


def gunicorn_command(port, workers):
    """Return the command that runs gunicorn as production does, on a loopback ``port``.

    With the project's settings (``wiki/gunicorn.conf.py``: its worker class, timeouts and
    access log), ``workers`` synchronous workers, and no control socket. Run from the
    repository's root; an application given after it replaces the project's.
    """
    root = Path(__file__).resolve().parent.parent
    return [
        str(Path(sys.executable).with_name("gunicorn")),
        "--config",
        str(root / "wiki" / "gunicorn.conf.py"),
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--no-control-socket",
    ]
