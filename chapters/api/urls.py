"""The API's URLs, under /api/ (wiki/urls.py); any other path there answers 404 as JSON."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from ..urls import NodePathConverter  # noqa: F401 (registers the nodepath converter)
from . import errors, media, reads, review, tokens, writes

app_name = "api"

urlpatterns = [
    path("", reads.ApiRoot.as_view(), name="root"),
    path("tree/", reads.TreeView.as_view(), name="tree"),
    path("pages/", writes.PageNew.as_view(), name="pages"),
    path("pages/<int:pk>/", writes.PageEditView.as_view(), name="page"),
    path("pages/<int:pk>/revisions/", reads.RevisionList.as_view(), name="revisions"),
    path("pages/by-path/<nodepath:path>/", reads.PageByPath.as_view(), name="page-path"),
    path("revisions/<int:revision_id>/", reads.RevisionView.as_view(), name="revision"),
    path("diff/", reads.DiffView.as_view(), name="diff"),
    path("search/", reads.SearchView.as_view(), name="search"),
    path("changes/", review.QueueView.as_view(), name="changes"),
    path("changes/<int:pk>/", review.ChangeView.as_view(), name="change"),
    path("changes/<int:pk>/decision/", review.DecisionView.as_view(), name="decision"),
    path("media/", media.MediaUpload.as_view(), name="media"),
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("tokens/", tokens.tokens, name="tokens"),
    path("tokens/<int:pk>/revoke/", tokens.revoke, name="token-revoke"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:openapi"), name="docs"),
    re_path(r"^(?P<rest>.*)$", errors.not_found),
]
