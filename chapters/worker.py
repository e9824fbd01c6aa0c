"""The process that runs background tasks: django-tasks-db's worker, made to survive its own
death and the failures of what it runs.

Tasks (:mod:`chapters.tasks`) are rows of django-tasks-db's ``DBTaskResult`` in the wiki's
own database, so any number of workers on any number of hosts take them, each claiming one
at a time (``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, an exclusive transaction on
SQLite). Its ``db_worker`` loop is kept as it is; :class:`Worker` adds two things it lacks:

- **Retries with backoff.** A task that raises is marked failed by the loop; then, unless it
  has failed ``len(RETRY_DELAYS)`` times already, it is made ready again to run after the
  next delay (a minute, then five, ...), so a mail server that is down for an hour loses no
  mail. Every failure is logged at ERROR with its traceback by django-tasks (its
  ``django_tasks`` logger), then by this module (``chapters.worker``) with what happens
  next: at WARNING when the task will run again, at ERROR when it stays failed; ``LOGGING``
  sends both to standard error. A task that failed every attempt stays failed;
  ``manage.py failed_tasks`` lists those and runs them again.
- **Heartbeats.** Each worker writes its :class:`~chapters.models.TaskWorker` row every
  sixth of ``TASKS_DEAD_AFTER`` seconds (``wiki/settings.py``) from a thread of its own,
  and hands back the tasks of workers whose heartbeat stopped more than ``TASKS_DEAD_AFTER``
  seconds ago (a process killed with ``kill -9`` or lost with its host): such a task is
  marked running forever by the loop, which never looks at running tasks again. Handed
  back, it runs again; tasks are written to be idempotent, so it is then done once. Each
  run, the dead worker's included, counts as an attempt.

The number of a task's attempts is the length of its ``worker_ids``, the list of the
workers that claimed it, which the loop keeps.
"""

import logging
import os
import socket
import threading
from datetime import timedelta

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker as DatabaseWorker
from django_tasks_db.models import DBTaskResult

from .models import TaskWorker

__all__ = [
    "RETRY_DELAYS",
    "Worker",
    "hand_back_orphans",
    "retry_failed",
]

logger = logging.getLogger(__name__)

# The delays, in seconds, before a failed task runs again: its first failure waits the
# first, and so on; after the last, it stays failed. About three hours in all, long enough
# for a mail server's restart or a network's outage.
RETRY_DELAYS = (60, 300, 900, 3600, 7200)

# The rows of workers dead this long are deleted.
FORGET_AFTER = timedelta(days=1)


def hand_back_orphans():
    """Make ready again every running task whose worker's heartbeat stopped.

    A task is compared with the worker that claimed it last (the end of its
    ``worker_ids``); the update repeats the check of its status, so a task that finished
    meanwhile is left alone.

    Returns:
        The number of tasks handed back.
    """
    alive = TaskWorker.objects.alive(settings.TASKS_DEAD_AFTER)
    alive = set(alive.values_list("worker_id", flat=True))
    orphans = [
        row.pk
        for row in DBTaskResult.objects.running().only("id", "worker_ids")
        if not row.worker_ids or row.worker_ids[-1] not in alive
    ]
    if not orphans:
        return 0
    handed = DBTaskResult.objects.filter(pk__in=orphans, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.READY, run_after=timezone.now()
    )
    if handed:
        logger.warning("Handed back %d task(s) whose worker stopped: they run again.", handed)
    return handed


def retry_failed(results):
    """Make failed tasks ready to run again now, their attempts counted from none.

    Args:
        results: a queryset of ``DBTaskResult``; those not failed are left alone.

    Returns:
        The number of tasks made ready.
    """
    return results.filter(status=TaskResultStatus.FAILED).update(
        status=TaskResultStatus.READY, run_after=timezone.now(), worker_ids=[], finished_at=None
    )


class Worker(DatabaseWorker):
    """django-tasks-db's worker, with retries and heartbeats (see the module).

    Takes the same keyword arguments as ``django_tasks_db``'s ``Worker``.
    """

    @classmethod
    def draining(cls, queue_names, worker_id):
        """Return a worker that runs the tasks of ``queue_names`` ready now, at once and one
        after the other, and stops when none is left (``manage.py build_books``, the tests).

        Args:
            queue_names: the queues to run, or ``["*"]`` for all.
            worker_id: the name it runs under (``TaskWorker.worker_id``).
        """
        return cls(
            queue_names=queue_names,
            excluded_queue_names=[],
            interval=0,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
        )

    def run(self):
        """Tell the database this worker is alive, keep telling it from a thread, and run
        tasks until stopped, as django-tasks-db's loop does; then forget the worker."""
        self.beat()
        beating = threading.Event()
        thread = threading.Thread(target=self._keep_beating, args=(beating,), daemon=True)
        thread.start()
        try:
            super().run()
        finally:
            beating.set()
            thread.join()
            TaskWorker.objects.filter(worker_id=self.worker_id).delete()

    def beat(self):
        """Write this worker's heartbeat, hand back the tasks of dead workers and forget
        workers dead for long."""
        now = timezone.now()
        with transaction.atomic():
            TaskWorker.objects.update_or_create(
                worker_id=self.worker_id,
                defaults={"beat": now, "hostname": socket.gethostname(), "pid": os.getpid()},
            )
            TaskWorker.objects.filter(beat__lt=now - FORGET_AFTER).delete()
        hand_back_orphans()

    def _keep_beating(self, stop):
        try:
            # Six beats to a death: a busy machine delays a thread that writes one row far
            # less than that.
            while not stop.wait(settings.TASKS_DEAD_AFTER / 6):
                try:
                    self.beat()
                except Exception:  # a database that went away: beat again later
                    logger.exception("Worker %s could not write its heartbeat.", self.worker_id)
        finally:
            connections.close_all()

    def run_task(self, db_task_result):
        """Run one claimed task as django-tasks-db does; if it failed, log it and, unless it
        failed every attempt, make it ready to run again after its delay."""
        super().run_task(db_task_result)
        if db_task_result.status != TaskResultStatus.FAILED:
            return
        attempt = len(db_task_result.worker_ids)
        if attempt > len(RETRY_DELAYS):
            logger.error(
                "Task %s (%s) failed for the last time, attempt %d; it stays failed "
                "(manage.py failed_tasks --retry runs it again).",
                db_task_result.id,
                db_task_result.task_path,
                attempt,
            )
            return
        delay = RETRY_DELAYS[attempt - 1]
        DBTaskResult.objects.filter(pk=db_task_result.pk).update(
            status=TaskResultStatus.READY,
            run_after=timezone.now() + timedelta(seconds=delay),
            finished_at=None,
        )
        logger.warning(
            "Task %s (%s) failed, attempt %d; it runs again in %d s.",
            db_task_result.id,
            db_task_result.task_path,
            attempt,
            delay,
        )
