"""The benchmark's URLconf: the floor, then every URL of the project.

The floor is the cheapest answer the project can give: a view that returns the chapter
page's bytes, read once from ``BENCH_FLOOR_FILE``, through the same middleware as every
page. It lives here so that the production URLconf has no such URL.
"""

import os
from functools import cache

from django.http import HttpResponse
from django.urls import include, path


@cache
def floor_bytes():
    """Return the bytes the floor answers with, read from ``BENCH_FLOOR_FILE`` once."""
    with open(os.environ["BENCH_FLOOR_FILE"], "rb") as file:
        return file.read()


def floor(request):
    """Answer with the chapter page's bytes, doing nothing else."""
    return HttpResponse(floor_bytes(), content_type="text/html; charset=utf-8")


urlpatterns = [
    path("bench-floor/", floor, name="bench-floor"),
    path("", include("wiki.urls")),
]
