"""The API's reads: the tree, a page (by id or by path), its revisions, a diff, search.

Every reader sees what the site shows them: every node of the tree, the latest saved
revision of each page, and the pending changes of a page only when they may edit
(``PageSerializer``). Page reads carry an ``ETag`` (the digest of the answer, which holds
what this user sees) and answer ``If-None-Match`` with 304 (RFC 9110, section 13.1.2).
"""

import difflib
import hashlib

from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_vary_headers
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import history, navigation, search
from ..caching import version
from ..forms import CompareForm, SearchForm
from ..models import Node, PathRedirect
from ..search.areas import search_areas
from ..views import render_revision_body
from .serializers import (
    DiffSerializer,
    PageSerializer,
    RevisionDetailSerializer,
    RevisionSerializer,
    SearchResultSerializer,
    TreeNodeSerializer,
)

__all__ = [
    "ApiRoot",
    "DiffView",
    "PageByPath",
    "PageView",
    "RevisionList",
    "RevisionView",
    "SearchView",
    "TreeView",
    "form_errors",
    "page_answer",
]


class TreePages(PageNumberPagination):
    """Pages of the tree: 100 nodes each."""

    page_size = 100


class RevisionPages(PageNumberPagination):
    """Pages of a history: 50 revisions each, as on the site's history page."""

    page_size = 50


class ResultPages(PageNumberPagination):
    """Pages of search results: 20 each, as on the site's search page, with the query
    searched instead (``corrected``) when the one asked found nothing."""

    page_size = 20

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["corrected"] = {"type": "string"}
        paginated["required"].append("corrected")
        return paginated


def form_errors(form):
    """Raise DRF's ValidationError with a Django form's errors, by field (``__all__`` as
    ``non_field_errors``)."""
    raise serializers.ValidationError(
        {
            ("non_field_errors" if name == "__all__" else name): [str(m) for m in messages]
            for name, messages in form.errors.items()
        }
    )


def with_etag(request, data):
    """Return the answer of ``data``, or 304 when the client's copy is this one.

    The ETag is the SHA-256 of the JSON: an answer differs by who asks (an editor sees the
    pending changes), so caches keep it per client (``private``) and ask again each time.
    Only reads are conditional: a write answers with its page once it is done, whatever
    ``If-Match`` says (its precondition is its ``base_revision``).
    """
    body = JSONRenderer().render(data)
    etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    response = None
    if request.method in ("GET", "HEAD"):
        response = get_conditional_response(request._request, etag=etag)
    if response is None:
        response = Response(data)
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    patch_vary_headers(response, ["Authorization", "Cookie"])
    return response


def page_answer(request, node):
    """Return the answer of ``node``'s page, as :func:`with_etag` makes it."""
    latest = history.all_revisions().filter(id=node.pk).values_list("history_id", flat=True)
    context = {
        "request": request,
        "breadcrumb": navigation.breadcrumb(node),
        "revision": latest.first(),
    }
    return with_etag(request, PageSerializer(node, context=context).data)


class ApiRoot(APIView):
    """Where the API's resources are."""

    @extend_schema(responses={200: {"type": "object", "additionalProperties": {"type": "string"}}})
    def get(self, request):
        """Return the URLs of the tree, search, the schema and its documentation."""
        names = {"tree": "tree", "search": "search", "openapi": "openapi", "docs": "docs"}
        return Response(
            {key: request.build_absolute_uri(reverse(f"api:{name}")) for key, name in names.items()}
        )


class TreeView(APIView):
    """The whole tree in reading order, 100 nodes a page."""

    pagination_class = TreePages

    @extend_schema(responses=TreeNodeSerializer(many=True))
    def get(self, request):
        """Return a page of the tree's nodes (``?page=``), areas, sections and chapters."""
        paginator = self.pagination_class()
        nodes = paginator.paginate_queryset(Node.objects.for_navigation(), request, view=self)
        return paginator.get_paginated_response(TreeNodeSerializer(nodes, many=True).data)


class PageView(APIView):
    """A page by its id."""

    @extend_schema(responses=PageSerializer)
    def get(self, request, pk):
        """Return the page: title, breadcrumb, status, dates, body and its HTML."""
        return page_answer(request, get_object_or_404(Node, pk=pk))


class PageByPath(APIView):
    """A page by its path; 301 to its path now from one it had before."""

    @extend_schema(responses=PageSerializer)
    def get(self, request, path):
        """Return the page at ``path``, as by its id."""
        node = Node.objects.filter(path=path).first()
        if node is not None:
            return page_answer(request, node)
        moved = PathRedirect.objects.filter(old_path=path).select_related("node").first()
        if moved is None:
            return Response({"detail": f"No page at “{path}”.", "code": "not_found"}, status=404)
        return redirect("api:page-path", path=moved.node.path, permanent=True)


class RevisionList(APIView):
    """A page's revisions, newest first, 50 a page."""

    pagination_class = RevisionPages

    @extend_schema(responses=RevisionSerializer(many=True))
    def get(self, request, pk):
        """Return a page of the revisions of page ``pk``."""
        node = get_object_or_404(Node, pk=pk)
        paginator = self.pagination_class()
        revisions = history.all_revisions().filter(id=node.pk)
        found = paginator.paginate_queryset(revisions, request, view=self)
        return paginator.get_paginated_response(RevisionSerializer(found, many=True).data)


class RevisionView(APIView):
    """One revision with its body."""

    @extend_schema(responses=RevisionDetailSerializer)
    def get(self, request, revision_id):
        """Return the revision, its body rendered as the page would be today."""
        revision = get_object_or_404(history.all_revisions(), history_id=revision_id)
        node = Node.objects.filter(pk=revision.id).first()
        context = {"body_html": render_revision_body(revision, node)}
        return with_etag(request, RevisionDetailSerializer(revision, context=context).data)


class DiffView(APIView):
    """Two revisions of one page compared."""

    @extend_schema(
        parameters=[
            OpenApiParameter("new", int, required=True),
            OpenApiParameter("old", int, description="By default, the revision before new."),
        ],
        responses=DiffSerializer,
    )
    def get(self, request):
        """Compare revision ``old`` with ``new`` (``?old=&new=``) of the same page."""
        form = CompareForm(request.query_params)
        if not form.is_valid():
            form_errors(form)
        revisions = history.all_revisions()
        new = get_object_or_404(revisions, history_id=form.cleaned_data["new"])
        if form.cleaned_data["old"] is None:
            old = new.prev_record
            if old is None:
                return Response(
                    {"detail": f"Revision {new.history_id} is the first of its page.",
                     "code": "not_found"},
                    status=404,
                )  # fmt: skip
        else:
            old = get_object_or_404(revisions, history_id=form.cleaned_data["old"], id=new.id)
        lines = difflib.unified_diff(
            old.body.splitlines(),
            new.body.splitlines(),
            f"revision {old.history_id}",
            f"revision {new.history_id}",
            lineterm="",
        )
        compared = {"old": old, "new": new, "fields": history.compare(old, new)["fields"]}
        body_diff = "\n".join(lines)
        return with_etag(request, DiffSerializer({**compared, "body_diff": body_diff}).data)


class SearchView(APIView):
    """Full-text search, as the site's search page (``chapters.search``)."""

    pagination_class = ResultPages

    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, description="The query, as on the search page."),
            OpenApiParameter("area", str, description="An area's slug."),
            OpenApiParameter("status", str, enum=Node.Status.values),
        ],
        responses=SearchResultSerializer(many=True),
    )
    def get(self, request):
        """Return a page of results, best first; ``corrected`` is the query searched
        instead when the one asked found nothing, or few of its words (as the search page
        does: ``search.answer``)."""
        form = SearchForm(request.query_params, areas=search_areas(version(request)).choices)
        if not form.is_valid():
            form_errors(form)
        query, area, status = (form.cleaned_data[name] for name in ("q", "area", "status"))
        if not query:
            raise serializers.ValidationError({"q": ["Say what to search for."]})
        paginator = self.pagination_class()
        with search.indexed():
            parsed, nodes, corrected = search.answer(query, area=area, status=status)
            page = paginator.paginate_queryset(nodes, request, view=self)
            ancestors = search.breadcrumbs(page)
            quote = search.Quoter(parsed)
            results = [
                {
                    "node": node,
                    "title_html": search.highlight(node.title, parsed),
                    "quote": quote(node),
                    "breadcrumb": ancestors[node.pk],
                }
                for node in page
            ]
        response = paginator.get_paginated_response(SearchResultSerializer(results, many=True).data)
        response.data["corrected"] = corrected
        return response
