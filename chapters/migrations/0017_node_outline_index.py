"""On SQLite, a covering index of what the table of contents reads of every node.

SQLite stores a row's columns in the table's order, and a node's body, its HTML and its text
come before its tree fields (``lft``, ``tree_id``, ``level``, ``parent_id``): reading those of
every node read each row's overflow pages, a body's kilobytes. This index holds the fields
``chapters.contents`` reads (its ``FIELDS``), in tree order, so its reads of the whole tree
and of a page's branch scan the index alone (``SCAN ... USING COVERING INDEX``). PostgreSQL
keeps long texts out of its rows (TOAST) and needs none; there a B-tree entry is also
limited to about 2,700 bytes, which a long path could pass.
"""

from django.db import migrations

CREATE = (
    'CREATE INDEX "chapters_node_outline" ON "chapters_node" '
    '("tree_id", "lft", "id", "parent_id", "title", "slug", "kind", "status", "path", "level")'
)
DROP = 'DROP INDEX "chapters_node_outline"'


def create(apps, schema_editor):
    """Make the index on SQLite."""
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    """Drop the index on SQLite."""
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0016_synonyms"),
    ]

    operations = [
        migrations.RunPython(create, drop),
    ]
