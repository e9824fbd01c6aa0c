"""Root URLconf: the admin, the API, the sign-in pages, then the wiki's pages (which take every
other path)."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

# The icon's URL is looked up on each request, not when this module is imported: in production
# it is a hashed name from collectstatic's manifest, which does not exist yet while migrate and
# collectstatic itself load this module.
static_lazy = lazy(static, str)

urlpatterns = [
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages that name no icon, such as the admin's.
    path("favicon.ico", RedirectView.as_view(url=static_lazy("favicon.svg"), permanent=True)),
    # The REST API (chapters.api), before the wiki's pages, which take every other path.
    path("api/", include("chapters.api.urls")),
    # Signing in and out, single sign-on (chapters.signin).
    path("accounts/", include("chapters.signin.urls")),
    path("", include("chapters.urls")),
]
