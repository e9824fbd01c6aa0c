"""Root URLconf: the admin, then the wiki's pages (which take every other path)."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages that name no icon, such as the admin's.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("", include("chapters.urls")),
]
