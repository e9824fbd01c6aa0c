"""The API's writes: a new chapter, an edit of a page from the revision it was made from,
and a delete.

``POST /api/pages/`` is the site's "New chapter" (``permissions.can_add``): a chapter in a
section, saved through the same form and workflow as an edit (201).

``PATCH /api/pages/<id>/`` is the site editor's Save: the same form
(``chapters.edit.forms.EditForm``: the statuses the user may set, the tree's rules, the
rendering's limits), in one write to the tree (``tree_write``) whose body is rendered before
the lock, and the same workflow (``chapters.edit.workflow.save_edit``): an edit of a
published page by someone who may not publish becomes a pending change for review (202).

Fields left out keep their values in ``base_revision``, the revision the client read. When
someone saved the page since, the edit is merged three ways with their revision, as the
site's form merges it (``chapters.edit.conflicts``). A merge without conflicts is saved:
the site shows such a merge again before saving it so that its editor sees the result, but
a program has no one to show it to, and the other side's change is kept either way (as
MediaWiki's API saves a clean merge). A merge with conflicts saves nothing and answers 409
with the merged values, the conflicts and the revision to send them back from.
"""

from django.core.exceptions import ValidationError
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ..edit import workflow
from ..edit.forms import EditForm
from ..edit.merge import conflicts_in, has_markers, lines
from ..edit.prerequisites import requires_text
from ..edit.views import changed
from ..models import Node, tree_write
from ..permissions import can_add, can_delete, can_edit
from .reads import PageView, form_errors, page_answer
from .serializers import PageSerializer

__all__ = ["CanAdd", "CanEdit", "EditSerializer", "NewSerializer", "PageEditView", "PageNew"]


class CanEdit(permissions.BasePermission):
    """Allow reads to anyone; changes to editors (``permissions.can_edit``), deletes to those
    who may delete (``permissions.can_delete``)."""

    message = "Only editors who may change pages can edit them."
    deleting = "Only admins who may delete pages can delete them."

    def has_permission(self, request, view):
        if request.method == "DELETE":
            self.message = self.deleting
            return can_delete(request.user)
        return request.method in permissions.SAFE_METHODS or can_edit(request.user)


class CanAdd(permissions.BasePermission):
    """Allow reads to anyone; new pages to editors who may add them (``permissions.can_add``)."""

    message = "Only editors who may add pages can add them."

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or can_add(request.user)


class NewSerializer(serializers.Serializer):
    """A new chapter: its section, title and body, and the status it starts at."""

    parent = serializers.IntegerField(help_text="The section to add the chapter to.")
    title = serializers.CharField()
    status = serializers.ChoiceField(choices=Node.Status.choices, default=Node.Status.DRAFT)
    body = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    summary = serializers.CharField(required=False, allow_blank=True, default="")


class EditSerializer(serializers.Serializer):
    """An edit of a page: the revision it was made from, and the fields it changes."""

    base_revision = serializers.IntegerField(
        min_value=1, help_text="The page's revision the edit was made from (a page's revision)."
    )
    title = serializers.CharField(required=False)
    status = serializers.ChoiceField(choices=Node.Status.choices, required=False)
    parent = serializers.IntegerField(required=False, allow_null=True, help_text="A section.")
    body = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    requires = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="The ids of the chapters it builds on, in reading order.",
    )
    summary = serializers.CharField(required=False, allow_blank=True, default="")


class ConflictSerializer(serializers.Serializer):
    """An edit that conflicts with a newer revision: nothing was saved."""

    detail = serializers.CharField()
    code = serializers.CharField()
    base_revision = serializers.IntegerField(help_text="Send the merged edit from this one.")
    merged = serializers.DictField(help_text="title, status, parent and body, merged.")
    conflicts = serializers.DictField(help_text="Fields both changed: {yours, theirs}.")
    body_conflicts = serializers.IntegerField(help_text="Places marked in the merged body.")


def form_data(node, edit):
    """Return the editor's form data for ``edit`` (an ``EditSerializer``'s data): the fields
    it gives, the others as its base revision had them (or as the page is, for a base
    revision that is not the page's, which the form refuses)."""
    base = Node.history.filter(id=node.pk, history_id=edit["base_revision"]).first() or node
    data = {
        "title": base.title,
        "status": base.status,
        "parent": base.parent_id,
        "body": base.body,
        "requires": requires_text(base.requires),
        **{name: edit[name] for name in ("title", "status", "parent", "body") if name in edit},
        **(
            {"requires": requires_text(edit["requires"], missing="#{}")}
            if "requires" in edit
            else {}
        ),
        "summary": edit["summary"],
        "base_revision": edit["base_revision"],
    }
    return {name: "" if value is None else str(value) for name, value in data.items()}


class PageNew(APIView):
    """New chapters."""

    permission_classes = [*APIView.permission_classes, CanAdd]

    @extend_schema(request=NewSerializer, responses={201: PageSerializer})
    def post(self, request):
        """Add a chapter at the end of section ``parent``: 201 with the page and its URL."""
        new = NewSerializer(data=request.data)
        new.is_valid(raise_exception=True)
        fields = {"body": "", **new.validated_data, "base_revision": ""}
        bodies = ["\n".join(lines(fields["body"]))]
        base_url = request.build_absolute_uri("/")
        with tree_write(user=request.user, base_url=base_url, bodies=bodies):
            section = Node.objects.filter(pk=fields["parent"], kind=Node.Kind.SECTION).first()
            if section is None:
                raise serializers.ValidationError({"parent": [f"No section {fields['parent']}."]})
            page = Node(kind=Node.Kind.CHAPTER, status=Node.Status.DRAFT, parent=section)
            data = {name: str(value) for name, value in fields.items()}
            form = EditForm(data, node=page, user=request.user)
            if not form.is_valid():
                form_errors(form)
            try:
                workflow.save_edit(
                    page, request.user, summary=fields["summary"], base_revision=None,
                    base_url=base_url,
                )  # fmt: skip
            except ValidationError as error:
                raise serializers.ValidationError({"non_field_errors": error.messages}) from None
        response = page_answer(request, Node.objects.get(pk=page.pk))
        response.status_code = 201
        response["Location"] = reverse("api:page", args=[page.pk])
        return response


class PageEditView(PageView):
    """A page by its id: read it (GET), edit it (PATCH), delete it (DELETE)."""

    permission_classes = [*PageView.permission_classes, CanEdit]

    @extend_schema(
        request=EditSerializer,
        responses={
            200: PageSerializer,
            202: OpenApiResponse(description="Proposed for review: pending_change is its id."),
            409: ConflictSerializer,
        },
    )
    def patch(self, request, pk):
        """Edit the page from ``base_revision``: saved (200), proposed for review (202), or
        conflicting with a newer revision (409)."""
        edit = EditSerializer(data=request.data)
        edit.is_valid(raise_exception=True)
        body = edit.validated_data.get("body")
        bodies = ["\n".join(lines(body))] if body is not None else []
        base_url = request.build_absolute_uri("/")
        with tree_write(user=request.user, base_url=base_url, bodies=bodies):
            node = Node.objects.filter(pk=pk).first()
            if node is None:
                return Response({"detail": f"No page {pk}.", "code": "not_found"}, status=404)
            form = EditForm(form_data(node, edit.validated_data), node=node, user=request.user)
            valid = form.is_valid()
            if form.merge is not None:
                conflicts = form.field_conflicts()
                if conflicts or has_markers(form.data["body"]):
                    return conflict(form, conflicts)
                form = EditForm(form.data, node=node, user=request.user)
                valid = form.is_valid()
            if not valid:
                form_errors(form)
            if not changed(form):
                return page_answer(request, node)
            try:
                change = workflow.save_edit(
                    form.instance,
                    request.user,
                    summary=form.cleaned_data["summary"],
                    base_revision=form.cleaned_data["base_revision"],
                    base_url=base_url,
                )
            except ValidationError as error:
                raise serializers.ValidationError({"non_field_errors": error.messages}) from None
        if change is not None:
            return Response(
                {
                    "detail": "Your change waits for a reviewer; readers see it once approved.",
                    "pending_change": change.pk,
                },
                status=202,
            )
        return page_answer(request, Node.objects.get(pk=pk))

    @extend_schema(responses={204: None})
    def delete(self, request, pk):
        """Delete the page and everything under it, as the admin's delete does (restorable
        from the admin's deleted pages): 204."""
        summary = request.query_params.get("summary") or None
        base_url = request.build_absolute_uri("/")
        with tree_write(user=request.user, summary=summary, base_url=base_url):
            node = Node.objects.filter(pk=pk).first()
            if node is None:
                return Response({"detail": f"No page {pk}.", "code": "not_found"}, status=404)
            node.delete()
        return Response(status=204)


def conflict(form, conflicts):
    """Return the 409 answer of a merge with conflicts (see the module)."""
    data = form.data
    return Response(
        {
            "detail": form.merge.message,
            "code": "conflict",
            "base_revision": int(data["base_revision"]),
            "merged": {
                "title": data.get("title"),
                "status": data.get("status"),
                "parent": int(data["parent"]) if data.get("parent") else None,
                "body": data["body"],
            },
            "conflicts": {
                name: {"yours": yours, "theirs": theirs}
                for name, (yours, theirs) in conflicts.items()
            },
            "body_conflicts": len(conflicts_in(data["body"])),
        },
        status=409,
    )
