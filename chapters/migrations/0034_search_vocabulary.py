"""The wiki's vocabulary, which search corrects typos from (docs/search.md, "Typos").

``chapters_search_word`` (the model ``Word``) holds every word of the nodes' titles, headings
and bodies, with the number of nodes holding it (``documents``) and of those whose title does
(``titles``). Triggers on ``chapters_node`` keep it on every insert, update and delete, as
the search indexes are kept, and this migration fills it from the nodes already stored.

A node's words are those of its title, headings and body text and of their identifiers'
parts (``title_parts``, ``text_parts``: migration 0033), as the search indexes hold them.
On PostgreSQL they are read from its stored vector ``search_simple`` (migrations 0029 and
0033: words as written, folded by ``unaccent`` and lower case; the title's weighted A), so
nothing is parsed again: ``chapters_node_words()`` lists them (a migration that makes the
vector again must keep its name). Inserts and deletes are counted once per statement (a
bulk load is one aggregate, not a query per row), updates of the title, headings or body
per row. ``word`` is indexed by trigrams (``gin_trgm_ops``), which ``%`` (similarity) uses.

On SQLite the node's text is written to an FTS5 table that stays empty,
``chapters_search_scratch`` (tokenizer ``unicode61 remove_diacritics 2``, as
``chapters_node_search`` without its stems), as document 1 (the old row) and 2 (the new
one); its ``fts5vocab`` table of instances gives each word and where it occurs, and the
scratch table is emptied again. ``chapters_search_word_trigram``, a contentless FTS5
table (tokenizer ``trigram``), indexes each word padded as ``pg_trgm`` pads it ("  word "),
kept by triggers on ``chapters_search_word``.
"""

from django.db import migrations, models

MAX_WORD_LENGTH = 64  # chapters.models.vocabulary.MAX_WORD_LENGTH, frozen
POSTGRESQL = [
    # The distinct words of a node, and whether its title holds each: the lexemes of its
    # stored vector in chapters_simple (migration 0033), the title's weighted A, less those
    # that are not one word (PostgreSQL's parser keeps "q-learning" whole as well as its
    # parts, e-mail addresses, signed numbers).
    f"""
    CREATE FUNCTION chapters_node_words(vector tsvector)
    RETURNS TABLE (word text, in_title boolean) LANGUAGE sql IMMUTABLE AS $$
        SELECT lexeme, 'A' = ANY (weights) FROM unnest(vector)
        WHERE length(lexeme) <= {MAX_WORD_LENGTH} AND lexeme !~ '[[:punct:][:space:]]'
    $$
    """,
    # Add changes of the counts (negative for words gone); drop the words no node holds.
    # The rows are written in the words' order, so that two transactions writing some of the
    # same words lock them in the same order and never deadlock.
    """
    CREATE FUNCTION chapters_search_words_change(words text[], documents int[], titles int[])
    RETURNS void LANGUAGE sql AS $$
        INSERT INTO chapters_search_word AS kept (word, documents, titles)
        SELECT * FROM unnest(words, documents, titles) ORDER BY 1
        ON CONFLICT (word) DO UPDATE SET documents = kept.documents + excluded.documents,
            titles = kept.titles + excluded.titles;
        DELETE FROM chapters_search_word WHERE word = ANY (words) AND documents <= 0;
    $$
    """,
    """
    CREATE FUNCTION chapters_search_words_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM chapters_search_words_change(array_agg(word), array_agg(documents),
            array_agg(titles))
        FROM (
            SELECT found.word, count(*)::int AS documents,
                (count(*) FILTER (WHERE found.in_title))::int AS titles
            FROM inserted CROSS JOIN LATERAL
                chapters_node_words(inserted.search_simple) found
            GROUP BY found.word
        ) AS counted;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION chapters_search_words_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM chapters_search_words_change(array_agg(word), array_agg(-documents),
            array_agg(-titles))
        FROM (
            SELECT found.word, count(*)::int AS documents,
                (count(*) FILTER (WHERE found.in_title))::int AS titles
            FROM deleted CROSS JOIN LATERAL
                chapters_node_words(deleted.search_simple) found
            GROUP BY found.word
        ) AS counted;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION chapters_search_words_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM chapters_search_words_change(array_agg(word), array_agg(documents),
            array_agg(titles))
        FROM (
            SELECT coalesce(now.word, before.word) AS word,
                (now.word IS NOT NULL)::int - (before.word IS NOT NULL)::int AS documents,
                coalesce(now.in_title::int, 0) - coalesce(before.in_title::int, 0) AS titles
            FROM chapters_node_words(NEW.search_simple) now
            FULL JOIN chapters_node_words(OLD.search_simple) before
                ON now.word = before.word
        ) AS changed
        WHERE documents <> 0 OR titles <> 0;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER chapters_search_words_inserted AFTER INSERT ON chapters_node "
    "REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT "
    "EXECUTE FUNCTION chapters_search_words_inserted()",
    "CREATE TRIGGER chapters_search_words_deleted AFTER DELETE ON chapters_node "
    "REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT "
    "EXECUTE FUNCTION chapters_search_words_deleted()",
    "CREATE TRIGGER chapters_search_words_updated "
    "AFTER UPDATE OF title, headings, body_text, title_parts, text_parts ON chapters_node "
    "FOR EACH ROW WHEN (OLD.search_simple IS DISTINCT FROM NEW.search_simple) "
    "EXECUTE FUNCTION chapters_search_words_updated()",
    "CREATE INDEX chapters_search_word_trgm ON chapters_search_word USING gin (word gin_trgm_ops)",
    # The nodes already stored.
    """
    SELECT chapters_search_words_change(array_agg(word), array_agg(documents),
        array_agg(titles))
    FROM (
        SELECT found.word, count(*)::int AS documents,
            (count(*) FILTER (WHERE found.in_title))::int AS titles
        FROM chapters_node CROSS JOIN LATERAL chapters_node_words(chapters_node.search_simple) found
        GROUP BY found.word
    ) AS counted
    """,
]

POSTGRESQL_REVERSE = [
    "DROP TRIGGER chapters_search_words_updated ON chapters_node",
    "DROP TRIGGER chapters_search_words_deleted ON chapters_node",
    "DROP TRIGGER chapters_search_words_inserted ON chapters_node",
    "DROP FUNCTION chapters_search_words_updated()",
    "DROP FUNCTION chapters_search_words_deleted()",
    "DROP FUNCTION chapters_search_words_inserted()",
    "DROP FUNCTION chapters_search_words_change(text[], int[], int[])",
    "DROP FUNCTION chapters_node_words(tsvector)",
    "DROP INDEX chapters_search_word_trgm",
]

SCRATCH = "chapters_search_scratch"
# The headings' titles as one text, as migration 0029's SQLITE_HEADINGS.
SQLITE_HEADINGS = (
    "(SELECT coalesce(group_concat(json_extract(value, '$.title'), ' '), '') "
    "FROM json_each({row}.headings))"
)
# A node's text as the scratch table's document: 1 the row before, 2 the row after. The
# title with its identifiers' parts, then the headings, the body text and its parts
# (migration 0033), as PostgreSQL's stored vectors hold them.
SQLITE_WRITE = (
    f"INSERT INTO {SCRATCH} (rowid, title, text) VALUES ({{document}}, "
    f"{{row}}.title || ' ' || coalesce({{row}}.title_parts, ''), {SQLITE_HEADINGS} || ' ' || "
    f"coalesce({{row}}.body_text, '') || ' ' || coalesce({{row}}.text_parts, ''));"
)
# The changes of the counts, from the scratch table's two documents; then the words no
# node holds dropped, and the scratch table emptied.
SQLITE_COUNT = f"""
    INSERT INTO chapters_search_word (word, documents, titles)
    SELECT * FROM (
        SELECT term, max(doc = 2) - max(doc = 1) AS documents,
            max(doc = 2 AND col = 'title') - max(doc = 1 AND col = 'title') AS titles
        FROM {SCRATCH}_instance WHERE length(term) <= {MAX_WORD_LENGTH} GROUP BY term
    ) WHERE documents <> 0 OR titles <> 0
    ON CONFLICT (word) DO UPDATE SET documents = documents + excluded.documents,
        titles = titles + excluded.titles;
    DELETE FROM chapters_search_word
    WHERE documents <= 0 AND word IN (SELECT term FROM {SCRATCH}_instance);
    INSERT INTO {SCRATCH} ({SCRATCH}) VALUES ('delete-all');
"""
TRIGRAM = "chapters_search_word_trigram"


def sqlite_statements():
    """Return the SQL that makes, fills and keeps the vocabulary on SQLite."""
    before = SQLITE_WRITE.format(document=1, row="old")
    after = SQLITE_WRITE.format(document=2, row="new")
    return [
        f"CREATE VIRTUAL TABLE {SCRATCH} USING fts5(title, text, content='', "
        "tokenize='unicode61 remove_diacritics 2')",
        f"CREATE VIRTUAL TABLE {SCRATCH}_instance USING fts5vocab({SCRATCH}, instance)",
        f"CREATE VIRTUAL TABLE {TRIGRAM} USING fts5(word, content='', tokenize='trigram')",
        f"CREATE TRIGGER {TRIGRAM}_insert AFTER INSERT ON chapters_search_word BEGIN "
        f"INSERT INTO {TRIGRAM} (rowid, word) VALUES (new.id, '  ' || new.word || ' '); END",
        f"CREATE TRIGGER {TRIGRAM}_delete AFTER DELETE ON chapters_search_word BEGIN "
        f"INSERT INTO {TRIGRAM} ({TRIGRAM}, rowid, word) "
        f"VALUES ('delete', old.id, '  ' || old.word || ' '); END",
        f"CREATE TRIGGER chapters_search_words_inserted AFTER INSERT ON chapters_node "
        f"BEGIN {after} {SQLITE_COUNT} END",
        f"CREATE TRIGGER chapters_search_words_deleted AFTER DELETE ON chapters_node "
        f"BEGIN {before} {SQLITE_COUNT} END",
        "CREATE TRIGGER chapters_search_words_updated "
        "AFTER UPDATE OF title, headings, body_text, title_parts, text_parts ON chapters_node "
        "WHEN old.title IS NOT new.title OR old.headings IS NOT new.headings "
        "OR old.body_text IS NOT new.body_text OR old.title_parts IS NOT new.title_parts "
        "OR old.text_parts IS NOT new.text_parts "
        f"BEGIN {before} {after} {SQLITE_COUNT} END",
    ]


def fill_sqlite(schema_editor):
    """Count the words of the nodes already stored on SQLite, all at once."""
    title = "title || ' ' || coalesce(title_parts, '')"
    text = (
        SQLITE_HEADINGS.format(row="chapters_node")
        + " || ' ' || coalesce(body_text, '') || ' ' || coalesce(text_parts, '')"
    )
    for statement in [
        f"INSERT INTO {SCRATCH} (rowid, title, text) SELECT id, {title}, {text} FROM chapters_node",
        f"CREATE VIRTUAL TABLE temp.{SCRATCH}_row USING fts5vocab(main, {SCRATCH}, row)",
        f"CREATE VIRTUAL TABLE temp.{SCRATCH}_col USING fts5vocab(main, {SCRATCH}, col)",
        f"""INSERT INTO chapters_search_word (word, documents, titles)
        SELECT every.term, every.doc, coalesce(title.doc, 0) FROM temp.{SCRATCH}_row every
        LEFT JOIN temp.{SCRATCH}_col title ON title.term = every.term AND title.col = 'title'
        WHERE length(every.term) <= {MAX_WORD_LENGTH}""",
        f"DROP TABLE temp.{SCRATCH}_row",
        f"DROP TABLE temp.{SCRATCH}_col",
        f"INSERT INTO {SCRATCH} ({SCRATCH}) VALUES ('delete-all')",
    ]:
        schema_editor.execute(statement)


def create(apps, schema_editor):
    """Make the triggers and trigram index of the vocabulary, and fill it."""
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for statement in POSTGRESQL:
            schema_editor.execute(statement)
    elif vendor == "sqlite":
        for statement in sqlite_statements():
            schema_editor.execute(statement)
        fill_sqlite(schema_editor)


def drop(apps, schema_editor):
    """Undo :func:`create` (the table itself goes with the model)."""
    vendor = schema_editor.connection.vendor
    statements = []
    if vendor == "postgresql":
        statements = POSTGRESQL_REVERSE
    elif vendor == "sqlite":
        statements = [
            f"DROP TRIGGER chapters_search_words_{event}"
            for event in ("inserted", "deleted", "updated")
        ]
        statements += [f"DROP TRIGGER {TRIGRAM}_{event}" for event in ("insert", "delete")]
        statements += [f"DROP TABLE {table}" for table in (TRIGRAM, f"{SCRATCH}_instance", SCRATCH)]
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0033_identifier_parts"),
    ]

    operations = [
        migrations.CreateModel(
            name="Word",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("word", models.TextField(unique=True)),
                ("documents", models.IntegerField()),
                ("titles", models.IntegerField()),
            ],
            options={"db_table": "chapters_search_word"},
        ),
        migrations.RunPython(create, drop),
    ]
