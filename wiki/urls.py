"""Root URLconf: the admin, then the wiki's pages (which take every other path)."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("chapters.urls")),
]
