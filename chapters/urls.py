"""The wiki's URLs. Node pages take every path not taken before them; the first segments
used here are reserved as top-level slugs (``RESERVED_ROOT_SLUGS``,
chapters/models/placement.py)."""

from django.urls import path, register_converter

from . import crawlers, diagrams, feeds, health, metrics, prerequisites, progress, views
from .books import views as books
from .discussion import feeds as discussion_feeds
from .discussion import views as discussion
from .edit import notifications as edit_notifications
from .edit import outline as edit_outline
from .edit import review as edit_review
from .edit import views as edit_views
from .media import views as media
from .models import MEDIA_NAME


class NodePathConverter:
    """A node's stored path: one or more segments, without NUL characters.

    Like Django's ``path`` converter, but a NUL (``%00`` in a URL) never reaches the
    database, where PostgreSQL refuses it in text.
    """

    regex = "[^\x00]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


class MediaNameConverter:
    """A media item's name (``MEDIA_NAME``): one segment with an extension."""

    regex = MEDIA_NAME

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


class PagesVersionConverter:
    """A version of the pages (``caching.version()``): digits, letters and hyphens."""

    regex = "[0-9a-z-]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(NodePathConverter, "nodepath")
register_converter(PagesVersionConverter, "pagesversion")
register_converter(MediaNameConverter, "medianame")

app_name = "chapters"

urlpatterns = [
    path("", views.home, name="home"),
    # Not slug-like (a dot), so no node's path can take them.
    path("robots.txt", crawlers.robots_txt, name="robots"),
    path("sitemap.xml", crawlers.sitemap_xml, name="sitemap"),
    path("sitemap-<slug:section>.xml", crawlers.sitemap_section, name="sitemap-section"),
    path("search/", views.search_results, name="search"),
    path("search/top.json", views.search_top_results, name="search-top"),
    path("recent/", views.recent_changes, name="recent"),
    path("recent/feed/", feeds.RecentChangesFeed(), name="recent-feed"),
    path("feeds/<nodepath:path>/", feeds.SectionChangesFeed(), name="section-feed"),
    path("history/<nodepath:path>/", views.node_history, name="history"),
    path("revisions/<int:revision_id>/", views.revision_detail, name="revision"),
    path("revisions/<int:revision_id>/revert/", views.revision_revert, name="revert"),
    path("diff/", views.revision_diff, name="diff"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("progress/", progress.progress, name="progress"),
    path("progress/join/", progress.progress_join, name="progress-join"),
    path("links/broken/", views.broken_links, name="broken-links"),
    path(
        "prerequisites/<slug:slug>/",
        prerequisites.area_prerequisites,
        name="prerequisites",
    ),
    # Editing on the site (chapters.edit).
    path("edit/titles.json", edit_views.titles, name="titles"),
    path("edit/<nodepath:path>/", edit_views.edit, name="edit"),
    path("new/<nodepath:path>/", edit_views.new, name="new"),
    path("preview/", edit_views.preview, name="preview"),
    path("drafts/edit/<nodepath:path>/", edit_views.draft, name="draft"),
    path("drafts/new/<nodepath:path>/", edit_views.draft, {"adding": True}, name="draft-new"),
    path("review/", edit_review.queue, name="review"),
    path("review/<int:change_id>/", edit_review.change_detail, name="change"),
    path("review/<int:change_id>/comments/", edit_review.comment, name="change-comment"),
    path("watch/<nodepath:path>/", edit_review.watch, name="watch"),
    path("outline/", edit_outline.outline, name="outline"),
    path("outline/<nodepath:path>/", edit_outline.outline, name="outline-section"),
    path("notifications/", edit_notifications.notifications, name="notifications"),
    path("notifications/read/", edit_notifications.mark_all_read, name="notifications-read"),
    path(
        "notifications/<int:notification_id>/",
        edit_notifications.notification,
        name="notification",
    ),
    # Discussion (chapters.discussion).
    path("discuss/<nodepath:path>/", discussion.thread, name="discussion"),
    path("discussion/<int:comment_id>/edit/", discussion.edit, name="comment-edit"),
    path("discussion/<int:comment_id>/delete/", discussion.delete, name="comment-delete"),
    path("discussion/<int:comment_id>/hide/", discussion.hide, name="comment-hide"),
    path("discussion/count/<nodepath:path>/", discussion.comment_count, name="discussion-count"),
    path(
        "discussion/feed/<nodepath:path>/",
        discussion_feeds.DiscussionFeed(),
        name="discussion-feed",
    ),
    # The media library (chapters.media).
    path("media/", media.library, name="media"),
    path("media/upload/", media.media_upload, name="media-upload"),
    path("media/<medianame:name>", media.media_file, name="media-file"),
    path("media/<medianame:name>/<int:width>.webp", media.media_variant, name="media-variant"),
    path("media/<medianame:name>/", media.media_detail, name="media-detail"),
    path("media/<medianame:name>/v<int:version>", media.media_version, name="media-version"),
    path("media/<medianame:name>/replace/", media.media_replace, name="media-replace"),
    path("media/<medianame:name>/delete/", media.media_delete, name="media-delete"),
    path("healthz", health.healthz, name="healthz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("books/<str:format>/", books.book, name="book"),
    path("books/<str:format>/<nodepath:path>/", books.book, name="book-section"),
    path("print/", views.print_section, name="print-all"),
    path("print/<nodepath:path>/", views.print_section, name="print"),
    # Not slug-like (a dot), so no node's path can take it.
    path("diagrams/mermaid.html", diagrams.mermaid_frame, name="mermaid-frame"),
    path("contents/<pagesversion:pages_version>.html", views.contents_list, name="contents"),
    path("<nodepath:path>/", views.node_detail, name="node"),
]
