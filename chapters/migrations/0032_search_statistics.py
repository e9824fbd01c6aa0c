"""Search's BM25 on PostgreSQL reads the nodes' number and mean length from an index.

``chapters.search.postgresql._bm25`` computes BM25 as SQLite's FTS5 does, which needs the
number of nodes and their mean length in words (``Node.words``): an index on ``words``
gives both to an index-only scan, where search's queries allow no scan of the table
(``search.indexed()``). SQLite's FTS5 keeps these numbers itself: nothing to do there.
"""

from django.db import migrations

CREATE = "CREATE INDEX chapters_node_words ON chapters_node (words)"
DROP = "DROP INDEX chapters_node_words"


def create(apps, schema_editor):
    """Index ``words`` on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    """Undo :func:`create`."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0031_sections"),
    ]

    operations = [
        migrations.RunPython(create, drop),
    ]
