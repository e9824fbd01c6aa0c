"""Settings for the test suite: the project's settings with a throwaway secret key.

The project's settings refuse to load without ``DJANGO_SECRET_KEY`` when debug is off, and
tests run with debug off, so the suite supplies a key of its own unless one is set.

Static files are the files in static/ under their own names, as with debug on: production's
hashed names exist only after ``collectstatic``, which the suite does not run before every
test. WhiteNoise looks them up on each request (autorefresh) instead of scanning a
``STATIC_ROOT`` that does not exist. tests/test_static.py runs ``collectstatic`` with the
production storage and serves its hashed, compressed files.

Passwords are hashed with MD5, as Django's documentation advises for tests ("Speeding up
the tests"): the default hasher is slow on purpose, and the suite makes a staff user in
many tests and signs in with a password in some. No test is about the hasher; production
keeps Django's default.
"""

import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-not-secret")

from wiki.settings import *  # noqa: E402,F403

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Uploads go to a folder of the test run's own; tests/conftest.py gives each test its own.
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="wiki-tests-media-"))

# Run across processes by pytest-xdist (bin/test -n 2), each worker ("gw0", "gw1", ...) keeps
# the cache in a Redis database of its own: the one REDIS_URL names plus the worker's number,
# as the suite empties the cache before every test (FLUSHDB empties the whole database). The
# environment says so too, for the servers the tests start.
if REDIS_URL and os.environ.get("PYTEST_XDIST_WORKER"):  # noqa: F405
    _url = urlsplit(REDIS_URL)  # noqa: F405
    _database = int(_url.path.strip("/") or 0) + int(os.environ["PYTEST_XDIST_WORKER"][2:])
    REDIS_URL = urlunsplit(_url._replace(path=f"/{_database}"))
    os.environ["REDIS_URL"] = CACHES["default"]["LOCATION"] = REDIS_URL  # noqa: F405
