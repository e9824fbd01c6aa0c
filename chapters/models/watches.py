"""Watching: a user asks to hear of changes to a page, or to every page of a section."""

import hashlib

from django.conf import settings
from django.db import models
from django.utils import timezone

__all__ = ["Watch"]


class WatchQuerySet(models.QuerySet):
    """Querysets of watches."""

    def covering(self, node):
        """Return the watches of ``node`` and of the sections above it (no query for those).

        A watched section covers every page under it, whenever it got there.
        """
        return self.filter(node__path__in=[*node.ancestor_paths(), node.path])

    def stamp(self, user):
        """Return a short text that changes whenever ``user`` watches or stops watching a
        page (one query).

        Their pages show a Watch or Unwatch button, and their ETags (``chapters.caching``)
        carry this, since watching does not bump the wiki's version. Empty when they watch
        nothing.
        """
        ids = list(self.filter(user=user).order_by("pk").values_list("pk", flat=True))
        if not ids:
            return ""
        return hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:8]


class Watch(models.Model):
    """A user watching a page: they get an e-mail about changes to it (``chapters.edit.notify``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watches"
    )
    node = models.ForeignKey("chapters.Node", on_delete=models.CASCADE, related_name="watches")
    created = models.DateTimeField(default=timezone.now)

    objects = WatchQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "node"], name="one_watch_per_user_and_page")
        ]

    def __str__(self):
        return f"{self.user} watches “{self.node}”"
