"""Errors as JSON that say what was wrong, for every answer under /api/.

Every error is ``{"detail": "...", "code": "..."}``: DRF's message and its error code
(``not_found``, ``not_authenticated``, ``permission_denied``, ``throttled``, ...); a
refused input adds ``fields``, the messages by field (``non_field_errors`` for the whole).
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler

__all__ = ["exception_handler", "not_found"]


def exception_handler(exc, context):
    """Return DRF's answer to ``exc`` with its body as this module describes; None for an
    exception DRF does not answer (a server error).

    Django's ``Http404`` and ``PermissionDenied`` are answered as DRF answers them, with
    their own messages kept.
    """
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = {"detail": "The input was refused.", "code": "invalid", "fields": fields}
    else:
        response.data = {"detail": str(exc.detail), "code": exc.detail.code}
    return response


def not_found(request, rest):
    """Answer a URL under /api/ that names no endpoint: 404, as JSON."""
    return JsonResponse(
        {"detail": f"No API endpoint at {request.path}; see /api/docs/.", "code": "not_found"},
        status=404,
    )
