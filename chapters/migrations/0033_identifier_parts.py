"""Search finds identifiers by their parts: ``Node.title_parts`` and ``Node.text_parts``.

Each holds what ``chapters.words.identifier_parts`` makes of the title or of ``body_text``:
the parts of words written in camel case ("thread pool executor" of ``ThreadPoolExecutor``)
and the words of an identifier run together ("lrucache" of ``lru_cache``), which neither
database's parser makes. They are filled here from the stored titles and texts, and indexed
beside them (docs/search.md, "Identifiers"):

- on SQLite, ``chapters_node_search`` is made again with two more columns, ``title_parts``
  and ``text_parts``, and ``chapters_node_text`` with a third, ``text_parts`` (what
  ``bm25()`` ranks), their triggers with them;
- on PostgreSQL, the stored vectors are made again with ``title_parts`` weighted as the title
  (A) and ``text_parts`` as the body (C); a generated column, ``part_words``, counts the
  words of ``text_parts``, which BM25 adds to ``words`` as the text's length, as FTS5 counts
  them in its own; the index on ``words`` of migration 0032 covers it too, so that the mean
  length is still read from the index alone.

SQLite makes the node table again to add a column: migration 0027's ``AddNodeField`` puts
its triggers and indexes back.
"""

import importlib

from django.db import migrations, models

progress = importlib.import_module("chapters.migrations.0027_progress")
search = importlib.import_module("chapters.migrations.0029_search")

SEARCH, TEXT = "chapters_node_search", "chapters_node_text"
TOKENIZER = "porter unicode61 remove_diacritics 2"
FIELDS = [
    ("title", "A"),
    ("title_parts", "A"),
    ("jsonb_path_query_array(headings, '$[*].title')::text", "B"),
    ("body_text", "C"),
    ("text_parts", "C"),
]


def fill_parts(apps, schema_editor):
    """Give the nodes already in the database the parts of their titles' and texts'
    identifiers. ``Node.save()`` keeps them right from now on."""
    # The function that defines the parts; a frozen copy could disagree with save().
    from chapters.words import identifier_parts

    Node = apps.get_model("chapters", "Node")
    nodes = list(Node.objects.only("pk", "title", "body_text"))
    for node in nodes:
        node.title_parts = identifier_parts(node.title)
        node.text_parts = identifier_parts(node.body_text)
    Node.objects.bulk_update(nodes, ["title_parts", "text_parts"], batch_size=500)


def _triggers(table, columns, values, watched):
    """Return the SQL of the three triggers that keep FTS5 ``table`` in step with the nodes.

    Args:
        table: the FTS5 table.
        columns: its columns, as a string.
        values: the SQL of their values, with ``{row}`` for ``new`` or ``old``.
        watched: the node's columns whose update changes them.
    """
    new, old = values.format(row="new"), values.format(row="old")
    insert = f"INSERT INTO {table} (rowid, {columns}) VALUES (new.id, {new});"
    delete = f"INSERT INTO {table} ({table}, rowid, {columns}) VALUES ('delete', old.id, {old});"
    return [
        f"CREATE TRIGGER {table}_insert AFTER INSERT ON chapters_node BEGIN {insert} END",
        f"CREATE TRIGGER {table}_delete AFTER DELETE ON chapters_node BEGIN {delete} END",
        f"CREATE TRIGGER {table}_update AFTER UPDATE OF {watched} ON chapters_node "
        f"BEGIN {delete} {insert} END",
    ]


def _drop(table):
    """Return the SQL that drops FTS5 ``table`` and its triggers."""
    return [f"DROP TRIGGER {table}_{event}" for event in ("insert", "delete", "update")] + [
        f"DROP TABLE {table}"
    ]


def sqlite_statements(parts):
    """Return the SQL that makes ``chapters_node_search`` and ``chapters_node_text`` again,
    with the parts' columns when ``parts`` (without them, as migrations 0015 and 0029 made
    them, when not), and fills them."""
    search_columns = "title, body_text" + (", title_parts, text_parts" if parts else "")
    text_columns = "headings, body_text" + (", text_parts" if parts else "")
    headings = search.SQLITE_HEADINGS
    text_values = f"{headings}, {{row}}.body_text" + (", {row}.text_parts" if parts else "")
    return [
        *_drop(SEARCH),
        *_drop(TEXT),
        f"CREATE VIRTUAL TABLE {SEARCH} USING fts5({search_columns}, content='chapters_node', "
        f"content_rowid='id', tokenize='{TOKENIZER}')",
        *_triggers(
            SEARCH,
            search_columns,
            ", ".join(f"{{row}}.{column}" for column in search_columns.split(", ")),
            search_columns,
        ),
        f"INSERT INTO {SEARCH} ({SEARCH}) VALUES ('rebuild')",
        f"CREATE VIRTUAL TABLE {TEXT} USING fts5({text_columns}, content='', "
        f"tokenize='{TOKENIZER}')",
        *_triggers(TEXT, text_columns, text_values, text_columns),
        f"INSERT INTO {TEXT} (rowid, {text_columns}) SELECT id, "
        + text_values.format(row="chapters_node")
        + " FROM chapters_node",
    ]


PART_WORDS = [
    "ALTER TABLE chapters_node ADD COLUMN part_words integer GENERATED ALWAYS AS "
    "(coalesce(array_length(string_to_array(nullif(text_parts, ''), ' '), 1), 0)) STORED",
    "DROP INDEX chapters_node_words",
    "CREATE INDEX chapters_node_words ON chapters_node (words, part_words)",
]
NO_PART_WORDS = [
    "DROP INDEX chapters_node_words",
    "ALTER TABLE chapters_node DROP COLUMN part_words",
    "CREATE INDEX chapters_node_words ON chapters_node (words)",
]


def create(apps, schema_editor):
    """Index the parts beside the titles and texts."""
    vendor = schema_editor.connection.vendor
    statements = []
    if vendor == "postgresql":
        statements = search.postgresql_statements(FIELDS) + PART_WORDS
    elif vendor == "sqlite":
        statements = sqlite_statements(parts=True)
    for statement in statements:
        schema_editor.execute(statement)


def drop(apps, schema_editor):
    """Undo :func:`create`: index the titles and texts alone, as migration 0029 did."""
    vendor = schema_editor.connection.vendor
    statements = []
    if vendor == "postgresql":
        statements = NO_PART_WORDS + search.postgresql_statements(search.NEW_FIELDS)
    elif vendor == "sqlite":
        statements = sqlite_statements(parts=False)
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("chapters", "0032_search_statistics")]

    operations = [
        progress.AddNodeField(
            model_name="node",
            name="title_parts",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        progress.AddNodeField(
            model_name="node",
            name="text_parts",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(fill_parts, migrations.RunPython.noop),
        migrations.RunPython(create, drop),
    ]
