"""App configuration for the chapters app."""

from django.apps import AppConfig


class ChaptersConfig(AppConfig):
    """The app that holds the curriculum's tree and serves its pages."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "chapters"
    verbose_name = "Curriculum"

    def ready(self):
        """Watch every PostgreSQL connection for writes (``chapters.caching.version_watch``)."""
        from django.db.backends.signals import connection_created

        from .caching.version_watch import install

        connection_created.connect(install, dispatch_uid="chapters.caching.version_watch.install")
