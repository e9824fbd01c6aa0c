"""Database states loaded once per test session and written back into each test that asks.

Loading ``fixtures/curriculum.json`` with ``manage.py loaddata`` renders every body, records
a revision of every node and checks the tree: far more work than writing the rows it leaves.
:meth:`Snapshot.take` runs such a load once, in a transaction that it rolls back, and keeps
the rows the load left in the tables of the models it is given; :meth:`Snapshot.restore`
writes those rows back, a few statements per table, so each test sees the database as the load
would have left it, and the test's own transaction (or flush) takes them away again.
"""

from django.apps import apps
from django.core.management.color import no_style
from django.db import connections, transaction

from chapters.models import Synonym, WikiVersion, Word
from chapters.models.vocabulary import fold_vocabulary

__all__ = ["Snapshot", "chapters_models"]


def chapters_models():
    """Return the chapters app's models (nodes, their revisions, links, redirects, the
    wiki's version), the version last.

    The triggers of migration 0010 bump the version on every write to the other tables, so
    :meth:`Snapshot.restore` writes the version a load left after them. Synonyms are left
    out: a load does not write them (migration 0015 does, in every database); so are the
    vocabulary's words, which the triggers of migration 0034 write as the nodes are written.
    """
    models = [m for m in apps.get_app_config("chapters").get_models() if m not in (Synonym, Word)]
    return sorted(models, key=lambda m: m is WikiVersion)


# The most parameters one statement is given: PostgreSQL's protocol counts them in 16 bits,
# and SQLite allows 32,766 since 3.32.
MAX_PARAMETERS = 32_000


def _upsert(model, connection, rows):
    """Return the SQL that writes ``rows`` rows of ``model`` in one statement, overwriting a
    row with the same primary key.

    ``INSERT ... VALUES (...), (...) ON CONFLICT (pk) DO UPDATE``, which SQLite and
    PostgreSQL both understand. One statement for many rows: PostgreSQL's triggers for each
    statement (the vocabulary's, migration 0034) then run once for them all.
    """
    quote = connection.ops.quote_name
    columns = [quote(field.column) for field in model._meta.concrete_fields]
    pk = quote(model._meta.pk.column)
    updates = ", ".join(f"{column} = excluded.{column}" for column in columns if column != pk)
    values = ", ".join([f"({', '.join(['%s'] * len(columns))})"] * rows)
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(columns)}) "
        f"VALUES {values} ON CONFLICT ({pk}) DO UPDATE SET {updates}"
    )


def _statements(model, connection, rows):
    """Return the statements that write ``rows`` (each a row's parameters) of ``model``: as
    many rows to a statement as :data:`MAX_PARAMETERS` allows."""
    per_statement = max(1, MAX_PARAMETERS // len(model._meta.concrete_fields))
    return [
        (
            _upsert(model, connection, len(rows[start : start + per_statement])),
            [value for row in rows[start : start + per_statement] for value in row],
        )
        for start in range(0, len(rows), per_statement)
    ]


class Snapshot:
    """The rows of some tables as a load left them, to be written back in each test."""

    def __init__(self, tables):
        """Keep ``tables``: ``(model, statements)`` pairs, each statement ``(SQL, its
        parameters)`` writing some of the table's rows."""
        self.tables = tables

    @classmethod
    def take(cls, load, models, using="default"):
        """Run ``load`` and keep the rows it leaves in the tables of ``models``; undo it.

        Each row is kept as the parameters Django's fields prepare for the database
        (``Field.get_db_prep_save``), as ``bulk_create`` would send them.

        Args:
            load: a function writing to the database (e.g. calling ``loaddata``).
            models: the models whose tables to keep, in the order :meth:`restore` writes
                them.
            using: the database alias.

        Returns:
            A :class:`Snapshot` of every row of those tables after the load, taken inside
            the load's transaction, which is then rolled back.
        """
        connection = connections[using]
        tables = []
        with transaction.atomic(using=using):
            load()
            for model in models:
                fields = model._meta.concrete_fields
                rows = model._base_manager.using(using).values_list(*[f.attname for f in fields])
                params = [
                    [field.get_db_prep_save(value, connection) for field, value in pairs]
                    for pairs in (zip(fields, row, strict=True) for row in rows)
                ]
                tables.append((model, _statements(model, connection, params)))
            transaction.set_rollback(True, using=using)
        return cls(tables)

    def restore(self, using="default"):
        """Write the kept rows back, with their primary keys, in one transaction.

        Table by table, in the order the snapshot was taken with, each row overwriting one
        with the same primary key (as ``loaddata`` overwrites it), so a table's rows may be
        written after the writes that triggers make to it when other tables are written.
        Foreign keys are checked at commit (Django makes them deferrable on SQLite and
        PostgreSQL), so a row may name a row written after it. On PostgreSQL each table's
        sequence is then set past its highest primary key, as ``loaddata`` does, so rows
        inserted later do not collide with the ones written here, and the vocabulary's counts
        of the nodes written are added, as at the end of a ``tree_write()``. Outside a transaction
        (a transactional test) the connection is then closed, as Django's ``loaddata``
        closes it: the test goes on from the state a load leaves, where its next query
        opens a new connection (on PostgreSQL, the notification of the commit that
        ``chapters.version_watch`` listens for has then usually arrived).

        Args:
            using: the database alias.
        """
        connection = connections[using]
        written = [model for model, statements in self.tables if statements]
        with transaction.atomic(using=using), connection.cursor() as cursor:
            for _, statements in self.tables:
                for sql, params in statements:
                    cursor.execute(sql, params)
            for statement in connection.ops.sequence_reset_sql(no_style(), written):
                cursor.execute(statement)
        fold_vocabulary(using)
        if transaction.get_autocommit(using):
            connection.close()
