"""The API's URLs, under /api/ (wiki/urls.py); any other path there answers 404 as JSON."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from ..urls import NodePathConverter  # noqa: F401 (registers the nodepath converter)
from . import errors, media, reads, review, tokens, writes

app_name = "api"

# The routes by resource: a page and its revisions, the review's changes, a user's tokens.
pages = [
    path("", writes.PageNew.as_view(), name="pages"),
    path("<int:pk>/", writes.PageEditView.as_view(), name="page"),
    path("<int:pk>/revisions/", reads.RevisionList.as_view(), name="revisions"),
    path("by-path/<nodepath:path>/", reads.PageByPath.as_view(), name="page-path"),
]
changes = [
    path("", review.QueueView.as_view(), name="changes"),
    path("<int:pk>/", review.ChangeView.as_view(), name="change"),
    path("<int:pk>/decision/", review.DecisionView.as_view(), name="decision"),
]
token_pages = [
    path("", tokens.tokens, name="tokens"),
    path("<int:pk>/revoke/", tokens.revoke, name="token-revoke"),
]
documentation = [
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:openapi"), name="docs"),
]

urlpatterns = [
    path("", reads.ApiRoot.as_view(), name="root"),
    path("tree/", reads.TreeView.as_view(), name="tree"),
    path("pages/", include(pages)),
    path("revisions/<int:revision_id>/", reads.RevisionView.as_view(), name="revision"),
    path("diff/", reads.DiffView.as_view(), name="diff"),
    path("search/", reads.SearchView.as_view(), name="search"),
    path("changes/", include(changes)),
    path("media/", media.MediaUpload.as_view(), name="media"),
    path("tokens/", include(token_pages)),
    *documentation,
    re_path(r"^(?P<rest>.*)$", errors.not_found),
]
