"""A reader's progress: the chapters a signed-in reader has marked done (``chapters.progress``)."""

from django.conf import settings
from django.db import models
from django.utils import timezone

__all__ = ["ChapterDone"]


class ChapterDoneManager(models.Manager):
    """The manager of :class:`ChapterDone`: finds a mark by its natural key."""

    def get_by_natural_key(self, username, path):
        """Return the mark of the user named ``username`` on the chapter at ``path``."""
        return self.get(user__username=username, node__path=path)


class ChapterDone(models.Model):
    """A chapter a signed-in reader has marked done, and when.

    One per reader and chapter; deleting the chapter or the account deletes it. Its natural
    key is the reader's username and the chapter's path (``dumpdata --natural-foreign
    --natural-primary``), so that an export names what it means rather than row numbers and
    loads into another database with those users and paths.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chapters_done"
    )
    node = models.ForeignKey("chapters.Node", on_delete=models.CASCADE, related_name="done_by")
    done = models.DateTimeField(default=timezone.now)

    objects = ChapterDoneManager()

    class Meta:
        ordering = ["done", "pk"]
        verbose_name = "chapter done"
        verbose_name_plural = "chapters done"
        constraints = [
            models.UniqueConstraint(fields=["user", "node"], name="one_done_per_user_and_chapter")
        ]

    def __str__(self):
        return f"{self.user} finished “{self.node}”"

    def natural_key(self):
        """Return the reader's username and the chapter's path."""
        return (self.user.get_username(), self.node.path)

    natural_key.dependencies = ["chapters.node"]
