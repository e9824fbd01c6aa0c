"""Search ranks by headings and body (docs/search.md, "Ranking").

On SQLite: a third FTS5 table, ``chapters_node_text``, of each node's headings and body text
(without its title), tokenized as ``chapters_node_search``, so that ``bm25()`` ranks bodies by
their own length: FTS5 divides by the length of the whole row, and a title in the row would
rank two equal bodies by their titles' lengths. Contentless (``content=''``), since the
headings it holds are the titles of ``chapters_node.headings``' JSON, not a column; kept by
triggers like the others.

On PostgreSQL: the stored vectors of migration 0015 made again with the headings between
title and body: title (weight A), headings (B), body text (C). "/" and "." reach the parser
as blanks, as "<" did: its ``file`` and ``host`` tokens would read ``dll/shared`` or
``os.path.join`` as one word that none of its parts finds, where SQLite's ``unicode61``
reads their words.
"""

from django.db import migrations

# The headings' titles as one text (SQLite), from the JSON that chapters.markdown lists.
SQLITE_HEADINGS = (
    "(SELECT coalesce(group_concat(json_extract(value, '$.title'), ' '), '') "
    "FROM json_each({row}.headings))"
)
TEXT = "chapters_node_text"


def sqlite_statements():
    """Return the SQL that makes, fills and keeps ``chapters_node_text`` on SQLite."""
    new, old = SQLITE_HEADINGS.format(row="new"), SQLITE_HEADINGS.format(row="old")
    insert = (
        f"INSERT INTO {TEXT} (rowid, headings, body_text) VALUES (new.id, {new}, new.body_text);"
    )
    delete = (
        f"INSERT INTO {TEXT} ({TEXT}, rowid, headings, body_text) "
        f"VALUES ('delete', old.id, {old}, old.body_text);"
    )
    return [
        f"CREATE VIRTUAL TABLE {TEXT} USING fts5(headings, body_text, content='', "
        "tokenize='porter unicode61 remove_diacritics 2')",
        f"CREATE TRIGGER {TEXT}_insert AFTER INSERT ON chapters_node BEGIN {insert} END",
        f"CREATE TRIGGER {TEXT}_delete AFTER DELETE ON chapters_node BEGIN {delete} END",
        f"CREATE TRIGGER {TEXT}_update AFTER UPDATE OF headings, body_text ON chapters_node "
        f"BEGIN {delete} {insert} END",
        f"INSERT INTO {TEXT} (rowid, headings, body_text) "
        f"SELECT id, {SQLITE_HEADINGS.format(row='chapters_node')}, body_text "
        "FROM chapters_node",
    ]


def stored_vector(config, fields):
    """Return the SQL of a generated column: the weighted vector of ``fields``.

    Args:
        config: the text search configuration.
        fields: ``(SQL expression, weight)`` pairs.
    """
    return " || ".join(
        f"setweight(to_tsvector('{config}'::regconfig, "
        f"translate(coalesce({field}, ''), '</.', E'\\x01  ')), '{weight}')"
        for field, weight in fields
    )


OLD_FIELDS = [("title", "A"), ("body_text", "B")]
NEW_FIELDS = [
    ("title", "A"),
    ("jsonb_path_query_array(headings, '$[*].title')::text", "B"),
    ("body_text", "C"),
]
OLD_TRANSLATE = "'</.', E'\\x01  '"


def postgresql_statements(fields, translate=True):
    """Return the SQL that makes the stored vectors and their index again from ``fields``."""
    columns = {
        "search_english": stored_vector("chapters_english", fields),
        "search_simple": stored_vector("chapters_simple", fields),
    }
    columns["search_document"] = columns["search_english"] + " || " + columns["search_simple"]
    statements = ["DROP INDEX chapters_node_document"]
    for name in columns:
        statements.append(f"ALTER TABLE chapters_node DROP COLUMN {name}")
    for name, sql in columns.items():
        if not translate:
            sql = sql.replace(OLD_TRANSLATE, "'<', E'\\x01'")
        statements.append(
            f"ALTER TABLE chapters_node ADD COLUMN {name} tsvector GENERATED ALWAYS AS ({sql}) "
            "STORED"
        )
    statements.append(
        "CREATE INDEX chapters_node_document ON chapters_node USING gin (search_document)"
    )
    return statements


def create(apps, schema_editor):
    """Make ``chapters_node_text`` (SQLite) or the vectors with headings (PostgreSQL)."""
    vendor = schema_editor.connection.vendor
    statements = []
    if vendor == "postgresql":
        statements = postgresql_statements(NEW_FIELDS)
    elif vendor == "sqlite":
        statements = sqlite_statements()
    for statement in statements:
        schema_editor.execute(statement)


def drop(apps, schema_editor):
    """Undo :func:`create`."""
    vendor = schema_editor.connection.vendor
    statements = []
    if vendor == "postgresql":
        statements = postgresql_statements(OLD_FIELDS, translate=False)
    elif vendor == "sqlite":
        statements = [f"DROP TRIGGER {TEXT}_{event}" for event in ("insert", "delete", "update")]
        statements.append(f"DROP TABLE {TEXT}")
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0028_discussion"),
    ]

    operations = [
        migrations.RunPython(create, drop),
    ]
