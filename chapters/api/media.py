"""Uploads through the API: an image or a file added to the media library.

The site's upload (``chapters.media.views.media_upload``): the same form, the same checks
of what the file is (``chapters.media.uploads``), for the same users
(``permissions.can_upload``); the answer is what the editor's script is answered, with the
Markdown that places the item in a page.
"""

from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from ..media.forms import UploadForm
from ..media.views import described
from ..permissions import can_upload
from .reads import form_errors

__all__ = ["MediaItemSerializer", "MediaUpload", "UploadSerializer", "Uploaders"]


class Uploaders(permissions.BasePermission):
    """Allow users who may upload (``permissions.can_upload``)."""

    message = "Only editors may upload images and files."

    def has_permission(self, request, view):
        return can_upload(request.user)


class UploadSerializer(serializers.Serializer):
    """An upload, as multipart/form-data."""

    file = serializers.FileField()
    title = serializers.CharField(required=False, help_text="By default, the file's name.")
    alt = serializers.CharField(required=False, help_text="Required for an image.")


class MediaItemSerializer(serializers.Serializer):
    """An item of the library, as the editor's script is told of it."""

    name = serializers.CharField()
    title = serializers.CharField()
    alt = serializers.CharField()
    kind = serializers.CharField()
    state = serializers.CharField(help_text="processing until a task has processed an image.")
    url = serializers.CharField()
    thumbnail = serializers.CharField()
    markdown = serializers.CharField(help_text="What places it in a page's body.")


class MediaUpload(APIView):
    """New items of the media library."""

    parser_classes = [MultiPartParser]
    permission_classes = [*APIView.permission_classes, Uploaders]

    @extend_schema(
        request={"multipart/form-data": UploadSerializer}, responses={201: MediaItemSerializer}
    )
    def post(self, request):
        """Add the file ``file`` to the library: 201 with the item; 400 saying why a file is
        refused (too large, an SVG, not what its name says, an image without alt text, ...)."""
        form = UploadForm(request.data, request.FILES)
        if not form.is_valid():
            form_errors(form)
        try:
            item = form.save(request.user)
        except ValidationError as error:
            raise serializers.ValidationError({"file": error.messages}) from None
        return Response(described(item), status=201)
