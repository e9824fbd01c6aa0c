"""The wiki's logging configuration (``LOGGING`` in wiki/settings.py).

Errors are visible where the process manager keeps the server's output: with debug off, the
traceback of every 500 (logged by Django's "django.request" at ERROR) goes to standard
error, as do the warnings of our own modules (the "chapters" loggers, e.g. a cache that
cannot be reached). With debug on, Django's own console handler shows requests' errors
already, so the "errors" handler stays quiet there rather than print them twice. Each line
has the time, the level and the logger's name. Records still propagate up (the tests'
log capture sees them); the root logger has no handler of its own, so nothing prints twice.
"""

__all__ = ["LOGS"]

LOGS = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"require_debug_false": {"()": "django.utils.log.RequireDebugFalse"}},
    "formatters": {
        "timed": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "formatter": "timed"},
        "errors": {
            "class": "logging.StreamHandler",
            "formatter": "timed",
            "level": "ERROR",
            "filters": ["require_debug_false"],
        },
    },
    "loggers": {
        "django.request": {"handlers": ["errors"]},
        "chapters": {"handlers": ["stderr"], "level": "WARNING"},
        # Background tasks: each task's start and end at INFO (in a worker's output), a failed
        # task's traceback at ERROR (chapters.worker).
        "django_tasks": {"handlers": ["stderr"], "level": "INFO"},
        "django_tasks_db": {"handlers": ["stderr"], "level": "INFO"},
    },
}
