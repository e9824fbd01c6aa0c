"""On PostgreSQL, an index of the characters and pairs of characters of the scripts written
without spaces, for substring search.

A query in Chinese or Japanese is matched as a substring of the title or body text
(``chapters.search.query``, "substring"). ``LIKE`` is served by the trigram indexes from
three characters on, but a two-character query ("张量") has no trigram, so each body was
read with ``strpos()``: at 20,000 nodes, about 320 ms for a word no page holds.

``chapters_spaceless_grams(text)`` returns the distinct characters and pairs of neighbouring
characters of the text's runs of those scripts (the class of ``query.NO_SPACE_SCRIPTS``,
copied here as it stands, as a migration keeps what it made); a GIN index holds them for each
node's title and body text. Every character and pair of a query is in a text that contains
it, so ``grams(text) @> grams(query)`` gives the nodes to check with ``strpos()`` or ``LIKE``
(``postgresql_sql.found_substring``). SQLite is unchanged: its scan took 94 ms.
"""

from django.db import migrations

SCRIPTS = "[\u0e00-\u0eff\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"

FORWARD = [
    f"""
    CREATE FUNCTION chapters_spaceless_grams(value text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT substr(run[1], start, width)), '{{}}')
        FROM regexp_matches(value, '{SCRIPTS}+', 'g') AS run,
            generate_series(1, 2) AS width,
            generate_series(1, length(run[1]) - width + 1) AS start
    $$
    """,
    "CREATE INDEX chapters_node_spaceless_grams ON chapters_node "
    "USING gin (chapters_spaceless_grams(title || ' ' || body_text))",
]

BACKWARD = [
    "DROP INDEX chapters_node_spaceless_grams",
    "DROP FUNCTION chapters_spaceless_grams(text)",
]


def forward(apps, schema_editor):
    """Make the function and the index on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        for statement in FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    """Drop them on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0036_search_first_slice"),
    ]

    operations = [migrations.RunPython(forward, backward)]
