"""Settings for the benchmark's server: the project's, with the floor's URL added.

``BENCH_FLOOR_FILE`` names a file holding the bytes of the chapter page being measured; the
floor view (bench/urls.py) answers with them. Static files keep their own names, as in the
tests: the benchmark serves pages, not static files, and needs no collectstatic (so no
``STATIC_ROOT`` for WhiteNoise to look in, and to warn that it is missing).
"""

import os

from wiki.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
# Django's test client, which the in-process measurements use, asks for "testserver".
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]  # noqa: F405
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
STATIC_ROOT = None
# The print page's stylesheets, for Chromium's print of it (bench/books.py), served by
# WhiteNoise from the apps' static folders as under DEBUG.
WHITENOISE_USE_FINDERS = True
# The book's layout processes (bench/books.py --processes), else the project's.
BOOK_LAYOUT_PROCESSES = int(
    os.environ.get("BENCH_BOOK_PROCESSES") or BOOK_LAYOUT_PROCESSES  # noqa: F405
)
