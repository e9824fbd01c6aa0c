"""The builds of books: one row per book and version, which makes any number of requests
start one build (``chapters.books.builds``)."""

from django.db import models
from django.utils import timezone

__all__ = ["BookBuild"]


class BookBuild(models.Model):
    """One build of one book: a section's or a chapter's (``root``, its primary key; None
    for the whole curriculum) in one ``format`` at one ``version`` of the pages.

    The unique constraints make the row the build's claim: the request that inserts it
    enqueues the build's task in the same transaction, and every other request, in any
    process, finds the row and waits for that build. The build writes its progress here
    (``done`` of ``total`` chapters), then its end: ``built``, or ``failed`` with
    ``error`` for the operator. ``root`` is a plain number rather than a foreign key, so
    that deleting a node touches no builds; a build of a node that is gone fails.
    The table is no part of what readers see, so no version trigger watches it.
    """

    class Status(models.TextChoices):
        BUILDING = "building", "building"
        BUILT = "built", "built"
        FAILED = "failed", "failed"

    root = models.BigIntegerField(null=True, blank=True)
    format = models.CharField(max_length=10)
    version = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status, default=Status.BUILDING)
    done = models.PositiveIntegerField(default=0, help_text="Chapters done.")
    total = models.PositiveIntegerField(default=0, help_text="Chapters in the book.")
    error = models.TextField(blank=True, help_text="Why the build failed.")
    started = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["root", "format", "version"], name="one_build_per_book_and_version"
            ),
            # NULLs are distinct in a unique constraint: the whole curriculum's own.
            models.UniqueConstraint(
                fields=["format", "version"],
                condition=models.Q(root=None),
                name="one_build_per_curriculum_book_and_version",
            ),
        ]

    def __str__(self):
        book = f"section {self.root}" if self.root is not None else "the curriculum"
        return f"{self.format} of {book} at {self.version}: {self.status}"
