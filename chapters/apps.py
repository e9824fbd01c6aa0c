"""App configuration for the chapters app."""

from django.apps import AppConfig


class ChaptersConfig(AppConfig):
    """The app that holds the curriculum's tree and serves its pages."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "chapters"
    verbose_name = "Curriculum"

    def ready(self):
        """Watch every PostgreSQL connection for writes (``chapters.caching.version_watch``),
        and register the background tasks (``chapters.tasks``, enqueued by name through
        ``chapters.queue``)."""
        from django.db.backends.signals import connection_created

        from . import tasks  # noqa: F401 (registers the tasks)
        from .caching.version_watch import install

        connection_created.connect(install, dispatch_uid="chapters.caching.version_watch.install")
