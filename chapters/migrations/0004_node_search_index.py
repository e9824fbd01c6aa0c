"""Index the nodes' search vector with GIN, on PostgreSQL only.

chapters/search.py filters on the weighted vector of title and body text; this indexes that
same expression, so PostgreSQL keeps the index right on every write (save, update(),
loaddata, raw SQL) and nothing stores a vector. SQLite has no text search types, so there the
migration does nothing. The index is not declared in Node.Meta.indexes, which would make
every database build it; the migration state does not know it, so makemigrations leaves it be.
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import migrations, models


def parser_text(field):
    """Return the field with "<" as \\x01 and \\x01-\\x03 deleted (see chapters/search.py)."""
    return models.Func(
        models.F(field),
        models.Value("<\x01\x02\x03"),
        models.Value("\x01"),
        function="translate",
        output_field=models.TextField(),
    )


# Frozen copy of chapters.search.search_vector(); tests/test_search.py checks the planner
# uses the index for a search, which fails if the two drift apart.
SEARCH_INDEX = GinIndex(
    SearchVector(parser_text("title"), weight="A", config="english")
    + SearchVector(parser_text("body_text"), weight="B", config="english"),
    name="chapters_node_search",
)


def create_search_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("chapters", "Node"), SEARCH_INDEX)


def drop_search_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("chapters", "Node"), SEARCH_INDEX)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0003_node_body_text"),
    ]

    operations = [
        migrations.RunPython(create_search_index, drop_search_index),
    ]
