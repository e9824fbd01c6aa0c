"""The wiki's URLs: the home page, search, and every node at its hierarchical path.

"search" is in ``models.RESERVED_ROOT_SLUGS``: no area can take the search page's path.
"""

from django.urls import path

from . import views

app_name = "chapters"

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search_results, name="search"),
    path("<path:path>/", views.node_detail, name="node"),
]
