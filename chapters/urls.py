"""The wiki's URLs. Node pages take every path not taken before them; the first segments
used here are reserved as top-level slugs (``RESERVED_ROOT_SLUGS`` in models.py)."""

from django.urls import path

from . import feeds, views

app_name = "chapters"

urlpatterns = [
    path("", views.home, name="home"),
    path("recent/", views.recent_changes, name="recent"),
    path("recent/feed/", feeds.RecentChangesFeed(), name="recent-feed"),
    path("feeds/<path:path>/", feeds.SectionChangesFeed(), name="section-feed"),
    path("history/<path:path>/", views.node_history, name="history"),
    path("revisions/<int:revision_id>/", views.revision_detail, name="revision"),
    path("revisions/<int:revision_id>/revert/", views.revision_revert, name="revert"),
    path("diff/", views.revision_diff, name="diff"),
    path("<path:path>/", views.node_detail, name="node"),
]
