"""The honest floor's one URL: ``/``, answering with the measured page's bytes."""

import os
from functools import cache

from django.http import HttpResponse
from django.urls import path

__all__ = ["floor", "page_bytes", "urlpatterns"]


@cache
def page_bytes():
    """Return the bytes the floor answers with, read from ``BENCH_FLOOR_FILE`` once."""
    with open(os.environ["BENCH_FLOOR_FILE"], "rb") as file:
        return file.read()


def floor(request):
    """Answer with the chapter page's bytes and its ``Content-Type``, doing nothing else."""
    return HttpResponse(page_bytes(), content_type="text/html; charset=utf-8")


urlpatterns = [path("", floor)]
