"""On PostgreSQL, an index of the words of each node's title and headings.

Past ``postgresql_sql.WIDE`` matches, a search ranks a first slice of them
(``chapters.search.postgresql_sql.first_slice``): the matches holding a word of the query
in the title or a heading, whose keys come first in the ranking, and the shortest of the
rest. This GIN index on the stored document's lexemes of weight A (the title and its
identifiers' parts) and B (the headings) finds the first without reading any match's
vectors out of TOAST: at 20,000 nodes, 3 ms for "kernel launch", where reading the vectors
of its matches took about 270 ms.

SQLite ranks every match in FTS5's own pass and needs no such index.
"""

from django.db import migrations

FORWARD = (
    "CREATE INDEX chapters_node_title_headings ON chapters_node "
    "USING gin (ts_filter(search_document, '{a,b}'))"
)
BACKWARD = "DROP INDEX chapters_node_title_headings"


def forward(apps, schema_editor):
    """Make the index on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    """Drop the index on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0035_vocabulary_folded_per_write"),
    ]

    operations = [migrations.RunPython(forward, backward)]
