"""``manage.py failed_tasks``: list the tasks that failed every attempt, and run them again."""

from django.core.management.base import BaseCommand
from django_tasks_db.models import DBTaskResult

from chapters.worker import retry_failed


class Command(BaseCommand):
    help = (
        "List the background tasks that failed every attempt (newest first): id, task, when "
        "it was enqueued and last failed, attempts and the exception. --retry runs them all "
        "again, --retry ID... only those; their attempts are counted anew."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--retry",
            nargs="*",
            metavar="ID",
            help="make the failed tasks (all, or those with these ids) ready to run again",
        )

    def handle(self, *args, retry, **options):
        failed = DBTaskResult.objects.failed().order_by("-finished_at")
        if retry is not None:
            chosen = failed.filter(pk__in=retry) if retry else failed
            count = retry_failed(chosen)
            self.stdout.write(f"{count} failed task(s) will run again.")
            return
        rows = list(failed)
        for row in rows:
            exception = row.exception_class_path.rsplit(".", 1)[-1] or "?"
            self.stdout.write(
                f"{row.id}  {row.task_path}  enqueued {row.enqueued_at:%Y-%m-%d %H:%M:%S}  "
                f"failed {row.finished_at:%Y-%m-%d %H:%M:%S}  "
                f"attempts {len(row.worker_ids)}  {exception}"
            )
        self.stdout.write(f"{len(rows)} failed task(s).")
