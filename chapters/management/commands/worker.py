"""``manage.py worker``: run background tasks, as django-tasks-db's ``db_worker`` does, with
heartbeats and retries (``chapters.worker``)."""

import os

from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker

from chapters.worker import Worker


class Command(db_worker.Command):
    help = (
        "Run the wiki's background tasks (books, images, e-mail, re-renders) from the "
        "database until stopped: django-tasks-db's db_worker, whose options it takes, with a "
        "heartbeat every few seconds, the tasks of workers that stopped beating handed back, "
        "and failed tasks run again after a delay. Run one or more on any host that reaches "
        "the database; by default a worker takes tasks of every queue."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(queue_name="*")

    def handle(self, *, verbosity, queue_name, exclude_queues, reload, batch, **options):
        """Run :class:`chapters.worker.Worker` with django-tasks-db's options (see
        ``db_worker --help``); with ``--reload`` (on with debug) it restarts on code
        changes, as ``runserver`` does."""
        self.configure_logging(verbosity)
        worker = Worker(
            queue_names=queue_name.split(","),
            excluded_queue_names=exclude_queues.split(",") if exclude_queues else [],
            interval=options["interval"],
            batch=batch,
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
        )
        if reload and not batch:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
