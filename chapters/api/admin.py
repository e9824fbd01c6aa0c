"""API tokens in Django's admin: see every user's tokens, and revoke them.

Tokens are made by their users on /api/tokens/ (``chapters.api.tokens``), the only place a
secret is shown; the admin cannot make one, nor read a secret (only its digest is stored).
"""

from django.contrib import admin

from ..models import ApiToken

__all__ = ["ApiTokenAdmin"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Users' tokens, read-only but for revoking them."""

    list_display = ["name", "user", "scope", "hint", "created", "last_used", "revoked"]
    list_filter = ["scope", ("revoked", admin.EmptyFieldListFilter)]
    search_fields = ["name", "user__username"]
    readonly_fields = ["user", "name", "scope", "hint", "created", "last_used", "revoked"]
    fields = readonly_fields
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request, queryset):
        """Revoke every selected token not revoked yet."""
        for token in queryset.filter(revoked__isnull=True):
            token.revoke()
