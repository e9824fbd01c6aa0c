"""The wiki's version: one row the database bumps on every write that pages show."""

from datetime import UTC, datetime

from django.db import connection, models
from django.utils import timezone

__all__ = ["WikiVersion"]


class WikiVersion(models.Model):
    """The version of everything the reader's pages show: one row, bumped by the database.

    Migration ``0010_wiki_version`` puts triggers on the node, link and redirect tables that
    add one to ``number`` and set ``changed`` to the time, in the same transaction, on every
    insert, update or delete there: from ``save()``, django-mptt's own SQL for moves and
    inserts, ``QuerySet.update()``, bulk writes, ``loaddata``, a revert or a psql session
    alike. A trigger rather than code in ``save()`` or a signal because many of those writes
    never pass through Python code of ours, so no write path can forget the bump.

    Caches key what they keep by :meth:`current` (``chapters.caching`` tells the whole
    story), so a bump invalidates everything at once without deleting a key, in every
    process and on every app server that shares the database.
    """

    number = models.BigIntegerField(default=0)
    changed = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"version {self.number} of {self.changed:%Y-%m-%d %H:%M:%S.%f}"

    @classmethod
    def current(cls):
        """Return the current version (one query).

        Returns:
            A ``(token, changed)`` pair. ``token`` is a string unique to this version: its
            number and its time to the microsecond, so that a database restored from a
            backup and edited again never reuses a token whose pages a cache still holds.
            ``changed`` is the time of the latest write. A database emptied by ``flush``
            has no row until its next write: then ``("0", None)``.

        Every cached page reads this, so it is one plain SQL statement rather than a
        queryset, whose overhead is larger than the rest of a cached page
        (``bench/README.md``).
        """
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT number, changed FROM {cls._meta.db_table} WHERE id = 1")
            row = cursor.fetchone()
        if row is None:
            return "0", None
        number, changed = row
        if isinstance(changed, str):  # SQLite hands back the text it stores, in UTC
            changed = datetime.fromisoformat(changed).replace(tzinfo=UTC)
        return f"{number}-{changed:%Y%m%d%H%M%S%f}", changed
