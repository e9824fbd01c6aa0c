"""The background tasks by name: how the modules whose work a task does enqueue it without
importing :mod:`chapters.tasks`.

``chapters.tasks`` declares each task with :func:`register`, and imports the module whose
work a task does only when the task runs (the write path, notifications, webhooks, uploads,
books); those modules enqueue a task with :func:`enqueue` and its name. So the imports run
one way, with no circle: those modules import this one, and so does ``chapters.tasks``,
which they never import. The app's ``ready()`` (``chapters.apps``) imports
``chapters.tasks``, so every task is registered before a request or a command runs. The
tasks keep their paths, ``chapters.tasks.<name>``, by which the queue's rows name them.
"""

__all__ = ["enqueue", "register"]

_TASKS = {}


def register(task):
    """Register ``task`` (a django-tasks ``Task``) under its name (its function's); return it, so
    that it can decorate the task."""
    _TASKS[task.name] = task
    return task


def enqueue(name, *args):
    """Enqueue the task registered as ``name`` with ``args``, in the caller's transaction.

    Returns:
        The task's result (django-tasks' ``TaskResult``).

    Raises:
        KeyError: no task of that name is registered (``chapters.tasks`` was not imported:
            the app registry is not ready).
    """
    return _TASKS[name].enqueue(*args)
