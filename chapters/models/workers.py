"""The processes that run background tasks, as their heartbeats last told."""

from django.db import models
from django.utils import timezone

__all__ = ["TaskWorker"]


class TaskWorkerQuerySet(models.QuerySet):
    """Querysets of task workers."""

    def alive(self, seconds):
        """Return the workers that told they were alive in the last ``seconds`` seconds."""
        return self.filter(beat__gte=timezone.now() - timezone.timedelta(seconds=seconds))


class TaskWorker(models.Model):
    """A process running tasks (``manage.py worker``): who it is, and its latest heartbeat.

    Each worker writes its row when it starts and every few seconds while it runs
    (:mod:`chapters.worker`). A task still marked running by a worker whose heartbeat has
    stopped (a process killed, a host gone) is handed to the others again. The table is
    no part of what readers see, so no version trigger watches it.
    """

    worker_id = models.CharField(max_length=64, primary_key=True)
    hostname = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    started = models.DateTimeField(default=timezone.now)
    beat = models.DateTimeField(default=timezone.now, db_index=True)

    objects = TaskWorkerQuerySet.as_manager()

    def __str__(self):
        return f"worker {self.worker_id} (pid {self.pid} on {self.hostname})"
