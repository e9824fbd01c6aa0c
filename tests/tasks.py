"""Tasks for the tests of the worker (tests/test_worker.py): django-tasks runs only tasks
defined at a module's top level."""

import time
from pathlib import Path

from django_tasks import task


@task()
def append_line(path, line, seconds=0.0):
    """Wait ``seconds``, then add ``line`` to the file at ``path`` unless it holds it already:
    an idempotent task, done once however often it runs."""
    time.sleep(seconds)
    file = Path(path)
    lines = file.read_text().splitlines() if file.exists() else []
    if line not in lines:
        file.write_text("".join(f"{text}\n" for text in [*lines, line]))


@task()
def fail(message):
    """Raise ``RuntimeError(message)``."""
    raise RuntimeError(message)
