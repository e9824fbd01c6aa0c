"""API tokens: a user's keys to the REST API (``chapters.api``), each read-only or read-write.

A token is 32 random bytes, shown once when it is made; only its SHA-256 is stored, so a
copy of the database gives no one a working token (the practice of GitHub's and BookStack's
tokens). 32 random bytes leave nothing to guess, so a fast hash is enough: a slow one, as
passwords need, would only slow every request down. A revoked token stays listed, with the
date it was revoked, and no longer signs anyone in.
"""

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

__all__ = ["ApiToken"]

# The start of every token: tells people and secret scanners what it is.
PREFIX = "wiki_"


def digest(secret):
    """Return the SHA-256 of a token, as stored (64 hexadecimal digits)."""
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    """Querysets of API tokens."""

    def active(self):
        """Return the tokens not revoked, whose users are active."""
        return self.filter(revoked__isnull=True, user__is_active=True)

    def find(self, secret):
        """Return the active token whose secret is ``secret``, with its user; else None."""
        return self.active().select_related("user").filter(digest=digest(secret)).first()


class ApiToken(models.Model):
    """A user's token for the API: what it may do, when it was made, used and revoked."""

    class Scope(models.TextChoices):
        READ = "read", "Read"
        WRITE = "write", "Read and write"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="What the token is for.")
    scope = models.CharField(max_length=5, choices=Scope.choices, default=Scope.READ)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    # The first characters, so that people can tell their tokens apart.
    hint = models.CharField(max_length=12, editable=False)
    created = models.DateTimeField(default=timezone.now, editable=False)
    last_used = models.DateTimeField(null=True, blank=True, editable=False)
    revoked = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = "API token"

    def __str__(self):
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, user, name, scope):
        """Make and store a new token for ``user``.

        Args:
            user: its owner.
            name: what it is for.
            scope: ``ApiToken.Scope``'s value.

        Returns:
            ``(token, secret)``: the stored token, and the secret to show once (never stored).
        """
        secret = PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, scope=scope, digest=digest(secret), hint=secret[:12]
        )
        return token, secret

    def revoke(self):
        """Revoke the token from now on (a token revoked already keeps its date)."""
        if self.revoked is None:
            self.revoked = timezone.now()
            self.save(update_fields=["revoked"])

    @property
    def may_write(self):
        """Return True when the token may change pages, as its user may."""
        return self.scope == self.Scope.WRITE
