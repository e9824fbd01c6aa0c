"""App configuration for the chapters app."""

from django.apps import AppConfig


class ChaptersConfig(AppConfig):
    """The app that holds the curriculum's tree and serves its pages."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "chapters"
    verbose_name = "Curriculum"
