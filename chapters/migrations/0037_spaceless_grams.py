"""``Node.grams``: the characters and pairs of characters of the scripts written without
spaces in each node's title and body text, indexed for substring search.

A query in Chinese, Japanese or Thai is matched as a substring of the title or body text
(``chapters.search.query``, "substring"). From three characters on, the trigram indexes
serve it; a query of one or two characters ("张量") has no trigram, so every body was read:
at 20,000 nodes, about 340 ms on PostgreSQL and 170 ms on SQLite for a word no page holds.

``chapters.words.spaceless_grams`` makes the column as the node is saved, as
``identifier_parts`` makes ``title_parts`` and ``text_parts``; this migration fills it for
the nodes stored. Every character and pair of a query is in a text that contains it, so the
index gives the nodes to look in (``sqlite._sql``, ``postgresql_sql.found_substring``):

- PostgreSQL: a GIN index on ``string_to_array(grams, ' ')``, asked with ``@>``;
- SQLite: the FTS5 table ``chapters_node_grams`` (external content, the ``ascii`` tokenizer,
  which keeps every run of non-ASCII characters as one token), kept by triggers.
"""

import importlib

from django.db import migrations, models

progress = importlib.import_module("chapters.migrations.0027_progress")

TABLE = "chapters_node_grams"  # SQLite's FTS5 table
POSTGRESQL_INDEX = "chapters_node_grams"
SQLITE_FORWARD = [
    f"CREATE VIRTUAL TABLE {TABLE} USING fts5(grams, content='chapters_node', "
    "content_rowid='id', tokenize='ascii')",
    f"INSERT INTO {TABLE} ({TABLE}) VALUES ('rebuild')",
    f"CREATE TRIGGER {TABLE}_insert AFTER INSERT ON chapters_node BEGIN "
    f"INSERT INTO {TABLE} (rowid, grams) VALUES (new.id, new.grams); END",
    f"CREATE TRIGGER {TABLE}_delete AFTER DELETE ON chapters_node BEGIN "
    f"INSERT INTO {TABLE} ({TABLE}, rowid, grams) VALUES ('delete', old.id, old.grams); END",
    f"CREATE TRIGGER {TABLE}_update AFTER UPDATE OF grams ON chapters_node BEGIN "
    f"INSERT INTO {TABLE} ({TABLE}, rowid, grams) VALUES ('delete', old.id, old.grams); "
    f"INSERT INTO {TABLE} (rowid, grams) VALUES (new.id, new.grams); END",
]
SQLITE_BACKWARD = [
    *(f"DROP TRIGGER {TABLE}_{event}" for event in ("insert", "delete", "update")),
    f"DROP TABLE {TABLE}",
]
POSTGRESQL_FORWARD = [
    f"CREATE INDEX {POSTGRESQL_INDEX} ON chapters_node USING gin (string_to_array(grams, ' '))"
]
POSTGRESQL_BACKWARD = [f"DROP INDEX {POSTGRESQL_INDEX}"]


def forward(apps, schema_editor):
    """Fill the column for the stored nodes, then make the index."""
    # The function that defines the grams; a frozen copy could disagree with save().
    from chapters.words import spaceless_grams

    Node = apps.get_model("chapters", "Node")
    nodes = []
    for node in Node.objects.only("title", "body_text").iterator(chunk_size=500):
        node.grams = spaceless_grams(node.title, node.body_text)
        if node.grams:
            nodes.append(node)
    Node.objects.bulk_update(nodes, ["grams"], batch_size=500)
    vendor = schema_editor.connection.vendor
    statements = {"sqlite": SQLITE_FORWARD, "postgresql": POSTGRESQL_FORWARD}.get(vendor, [])
    for statement in statements:
        schema_editor.execute(statement)


def backward(apps, schema_editor):
    """Drop the index (the column is dropped after)."""
    vendor = schema_editor.connection.vendor
    statements = {"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRESQL_BACKWARD}.get(vendor, [])
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0036_search_first_slice"),
    ]

    operations = [
        progress.AddNodeField(
            model_name="node",
            name="grams",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(forward, backward),
    ]
