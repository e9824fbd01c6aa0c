"""Search that forgives: PostgreSQL's unaccent and pg_trgm, and SQLite's FTS5 (docs/search.md).

On PostgreSQL: the ``unaccent`` and ``pg_trgm`` extensions (``CREATE EXTENSION IF NOT
EXISTS``: both are trusted, so the database's owner may create them); two text search
configurations that fold accents, ``chapters_english`` (English stems) and
``chapters_simple`` (words as written); stored generated columns, the weighted vector of
title and body text in each (``search_english``, ``search_simple``) and both joined
(``search_document``): not model fields, so Django never writes them, and PostgreSQL keeps
them on every write; ranking reads them rather than parsing bodies again; the GIN index of
migration 0004 replaced by one on ``search_document``; trigram indexes (``gin_trgm_ops``)
on the title and the body text, for substrings and typos. The indexes are not in
``Node.Meta.indexes``, which would make every database build them.

On SQLite: two external-content FTS5 tables over ``chapters_node`` (words with Porter stems,
and trigrams), filled from the stored nodes and kept in step by triggers.
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import migrations, models


def stored_vector(config):
    """Return the SQL of a generated column: the weighted vector of title (A) and body (B).

    "<" reaches the parser as \\x01, a blank (see chapters/search/postgresql.py).
    """
    return " || ".join(
        f"setweight(to_tsvector('{config}'::regconfig, "
        f"translate(coalesce({field}, ''), '<', E'\\x01')), '{weight}')"
        for field, weight in (("title", "A"), ("body_text", "B"))
    )


# Frozen copy of the index migration 0004 made, to drop it.
OLD_INDEX = GinIndex(
    SearchVector(
        models.Func(
            models.F("title"),
            models.Value("<\x01\x02\x03"),
            models.Value("\x01"),
            function="translate",
            output_field=models.TextField(),
        ),
        weight="A",
        config="english",
    )
    + SearchVector(
        models.Func(
            models.F("body_text"),
            models.Value("<\x01\x02\x03"),
            models.Value("\x01"),
            function="translate",
            output_field=models.TextField(),
        ),
        weight="B",
        config="english",
    ),
    name="chapters_node_search",
)

POSTGRESQL = [
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE TEXT SEARCH CONFIGURATION chapters_english (COPY = english)",
    "ALTER TEXT SEARCH CONFIGURATION chapters_english "
    "ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem",
    "CREATE TEXT SEARCH CONFIGURATION chapters_simple (COPY = simple)",
    "ALTER TEXT SEARCH CONFIGURATION chapters_simple "
    "ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple",
    "ALTER TABLE chapters_node ADD COLUMN search_english tsvector GENERATED ALWAYS AS ("
    + stored_vector("chapters_english")
    + ") STORED",
    "ALTER TABLE chapters_node ADD COLUMN search_simple tsvector GENERATED ALWAYS AS ("
    + stored_vector("chapters_simple")
    + ") STORED",
    "ALTER TABLE chapters_node ADD COLUMN search_document tsvector GENERATED ALWAYS AS ("
    + stored_vector("chapters_english")
    + " || "
    + stored_vector("chapters_simple")
    + ") STORED",
    "CREATE INDEX chapters_node_document ON chapters_node USING gin (search_document)",
    "CREATE INDEX chapters_node_title_trgm ON chapters_node USING gin (title gin_trgm_ops)",
    "CREATE INDEX chapters_node_body_text_trgm ON chapters_node USING gin (body_text gin_trgm_ops)",
]

POSTGRESQL_REVERSE = [
    "DROP INDEX chapters_node_document",
    "ALTER TABLE chapters_node DROP COLUMN search_document",
    "ALTER TABLE chapters_node DROP COLUMN search_simple",
    "ALTER TABLE chapters_node DROP COLUMN search_english",
    "DROP INDEX chapters_node_body_text_trgm",
    "DROP INDEX chapters_node_title_trgm",
    "DROP TEXT SEARCH CONFIGURATION chapters_simple",
    "DROP TEXT SEARCH CONFIGURATION chapters_english",
]

# (table, tokenizer) of the FTS5 tables.
FTS_TABLES = [
    ("chapters_node_search", "porter unicode61 remove_diacritics 2"),
    ("chapters_node_trigram", "trigram"),
]


def sqlite_statements():
    """Return the SQL that makes, fills and keeps the FTS5 tables on SQLite."""
    statements = []
    for table, tokenizer in FTS_TABLES:
        insert = (
            f"INSERT INTO {table} (rowid, title, body_text) "
            f"VALUES (new.id, new.title, new.body_text);"
        )
        delete = (
            f"INSERT INTO {table} ({table}, rowid, title, body_text) "
            f"VALUES ('delete', old.id, old.title, old.body_text);"
        )
        statements += [
            f"CREATE VIRTUAL TABLE {table} USING fts5(title, body_text, "
            f"content='chapters_node', content_rowid='id', tokenize='{tokenizer}')",
            f"CREATE TRIGGER {table}_insert AFTER INSERT ON chapters_node BEGIN {insert} END",
            f"CREATE TRIGGER {table}_delete AFTER DELETE ON chapters_node BEGIN {delete} END",
            f"CREATE TRIGGER {table}_update AFTER UPDATE OF title, body_text ON chapters_node "
            f"BEGIN {delete} {insert} END",
            f"INSERT INTO {table} ({table}) VALUES ('rebuild')",
        ]
    return statements


def create(apps, schema_editor):
    """Make the extensions, configurations and indexes (PostgreSQL) or FTS5 tables (SQLite)."""
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for statement in POSTGRESQL:
            schema_editor.execute(statement)
        schema_editor.remove_index(apps.get_model("chapters", "Node"), OLD_INDEX)
    elif vendor == "sqlite":
        for statement in sqlite_statements():
            schema_editor.execute(statement)


def drop(apps, schema_editor):
    """Undo :func:`create`; the extensions stay, as other schemas may use them."""
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for statement in POSTGRESQL_REVERSE:
            schema_editor.execute(statement)
        schema_editor.add_index(apps.get_model("chapters", "Node"), OLD_INDEX)
    elif vendor == "sqlite":
        for table, _ in FTS_TABLES:
            for event in ("insert", "delete", "update"):
                schema_editor.execute(f"DROP TRIGGER {table}_{event}")
            schema_editor.execute(f"DROP TABLE {table}")


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0014_media"),
    ]

    operations = [
        migrations.RunPython(create, drop),
    ]
