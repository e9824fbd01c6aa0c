"""The review through the API: the queue of pending changes, one change, a decision.

The site's rules (``chapters.edit.review``): reviewers (``permissions.can_review``) read the
queue and decide; editors read a change; nobody else learns what a change proposes. A
decision is the site's (``chapters.edit.workflow.approve`` and ``send_back``), on the
change's ``version`` as the reviewer read it: a change edited or decided since answers 409.
"""

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ..edit import workflow
from ..edit.forms import DecisionForm
from ..models import PendingChange
from ..permissions import can_edit, can_review
from .reads import form_errors

__all__ = [
    "ChangeSerializer",
    "ChangeView",
    "DecisionSerializer",
    "DecisionView",
    "Editors",
    "QueueView",
    "Reviewers",
]


class Reviewers(permissions.BasePermission):
    """Allow reviewers only (``permissions.can_review``)."""

    message = "Only reviewers see the review queue and decide on changes."

    def has_permission(self, request, view):
        return can_review(request.user)


class Editors(permissions.BasePermission):
    """Allow editors only (``permissions.can_edit``)."""

    message = "Only editors see proposed changes."

    def has_permission(self, request, view):
        return can_edit(request.user)


class ChangeSerializer(serializers.Serializer):
    """A proposed change: the page, what it proposes, who proposed it, its state."""

    id = serializers.IntegerField(source="pk")
    page = serializers.IntegerField(source="node_id")
    path = serializers.CharField(source="node.path")
    author = serializers.CharField(source="author.get_username")
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    version = serializers.CharField(help_text="Send it with a decision.")
    base_revision = serializers.IntegerField()
    state = serializers.ChoiceField(choices=PendingChange.State.choices)
    summary = serializers.CharField()
    title = serializers.CharField()
    status = serializers.CharField()
    parent = serializers.IntegerField(source="parent_id", allow_null=True)
    body = serializers.CharField()
    slug = serializers.CharField(help_text="The new address proposed by the outline, or empty.")
    target = serializers.IntegerField(
        source="target_id",
        allow_null=True,
        help_text="The outline's move: the page it goes beside or into (see position).",
    )
    position = serializers.CharField(
        help_text="left (before), right (after), last-child, or empty."
    )
    comment = serializers.CharField()


class DecisionSerializer(serializers.Serializer):
    """A reviewer's decision on a change, as the review page's form sends it."""

    decision = serializers.ChoiceField(choices=["approve", "send_back"])
    version = serializers.CharField(help_text="The change's version as the reviewer read it.")
    comment = serializers.CharField(required=False, allow_blank=True, default="")


def changes():
    """Return the pending changes with what their answers read."""
    return PendingChange.objects.select_related("node", "author")


class QueueView(APIView):
    """The changes waiting for review, oldest first (reviewers)."""

    permission_classes = [*APIView.permission_classes, Reviewers]

    @extend_schema(responses=ChangeSerializer(many=True))
    def get(self, request):
        """Return every change waiting for review."""
        return Response(ChangeSerializer(changes().waiting(), many=True).data)


class ChangeView(APIView):
    """One proposed change (editors)."""

    permission_classes = [*APIView.permission_classes, Editors]

    @extend_schema(responses=ChangeSerializer)
    def get(self, request, pk):
        """Return the change, whatever its state."""
        return Response(ChangeSerializer(get_object_or_404(changes(), pk=pk)).data)


class DecisionView(APIView):
    """A reviewer's decision on a change."""

    permission_classes = [*APIView.permission_classes, Reviewers]

    @extend_schema(request=DecisionSerializer, responses=ChangeSerializer)
    def post(self, request, pk):
        """Approve the change (saved at once, merged with what was saved since, or sent
        back when that conflicts) or send it back with a comment; answer the change as
        decided. 409 when it was decided already or edited since ``version``."""
        change = get_object_or_404(changes(), pk=pk)
        form = DecisionForm(request.data)
        if not form.is_valid():
            form_errors(form)
        decision, base_url = form.cleaned_data, request.build_absolute_uri("/")
        try:
            if decision["decision"] == "approve":
                workflow.approve(
                    change,
                    request.user,
                    base_url,
                    seen=decision["version"],
                    comment=decision["comment"],
                )
            else:
                workflow.send_back(
                    change, request.user, decision["comment"], base_url, seen=decision["version"]
                )
        except ValidationError as refused:
            return Response({"detail": " ".join(refused.messages), "code": "conflict"}, status=409)
        return Response(ChangeSerializer(changes().get(pk=pk)).data)
