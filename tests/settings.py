"""Settings for the test suite: the project's settings with a throwaway secret key.

The project's settings refuse to load without ``DJANGO_SECRET_KEY`` when debug is off, and
tests run with debug off, so the suite supplies a key of its own unless one is set.
"""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-not-secret")

from wiki.settings import *  # noqa: E402,F403
