"""On PostgreSQL the vocabulary's counts are summed over a write, then added once.

Migration 0034 added each statement's changes of the counts to ``chapters_search_word`` at
once. A write of many statements in one transaction (``import_markdown`` of Django's
documentation: about 500 inserts; ``loaddata``) then updated the common words once per
statement, and each update of a row the transaction had already updated must step over every
version it left: the 500 inserts took 115 s (now 18 s), and 300 statements of 900 words each
take 19 s where their sum, added once, takes 0.2 s.

The triggers' function ``chapters_search_words_change()`` now appends the changes to
``chapters_search_word_change`` and notes the transaction in ``chapters_search_word_fold``;
``chapters_search_words_fold()`` sums what was appended and adds it to the vocabulary in the
words' order (so that two transactions lock the same words in the same order and never
deadlock), drops the words no node holds and empties both tables. It runs at the end of
every ``tree_write()`` (``chapters.models.vocabulary.fold_vocabulary``), so a write reads
its own words, and, for writes outside one (an ``update()``, raw SQL), at commit: a
constraint trigger on the note, deferred. Both tables are unlogged: they are empty outside a
writing transaction.

SQLite's triggers write each row's changes at once, as before: its rows have no versions to
step over.
"""

from django.db import migrations

# What migration 0034 made ``chapters_search_words_change()``, for the way back.
ADDED_AT_ONCE = """
    CREATE OR REPLACE FUNCTION chapters_search_words_change(
        words text[], documents int[], titles int[]
    ) RETURNS void LANGUAGE sql AS $$
        INSERT INTO chapters_search_word AS kept (word, documents, titles)
        SELECT * FROM unnest(words, documents, titles) ORDER BY 1
        ON CONFLICT (word) DO UPDATE SET documents = kept.documents + excluded.documents,
            titles = kept.titles + excluded.titles;
        DELETE FROM chapters_search_word WHERE word = ANY (words) AND documents <= 0;
    $$
"""

FORWARD = [
    "CREATE UNLOGGED TABLE chapters_search_word_change "
    "(word text NOT NULL, documents int NOT NULL, titles int NOT NULL)",
    "CREATE UNLOGGED TABLE chapters_search_word_fold (transaction xid8 PRIMARY KEY)",
    """
    CREATE OR REPLACE FUNCTION chapters_search_words_change(
        words text[], documents int[], titles int[]
    ) RETURNS void LANGUAGE sql AS $$
        INSERT INTO chapters_search_word_change (word, documents, titles)
        SELECT * FROM unnest(words, documents, titles);
        INSERT INTO chapters_search_word_fold VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
    $$
    """,
    """
    CREATE FUNCTION chapters_search_words_fold() RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
        gone text[];
    BEGIN
        WITH taken AS (
            DELETE FROM chapters_search_word_change RETURNING word, documents, titles
        ), added AS (
            INSERT INTO chapters_search_word AS kept (word, documents, titles)
            SELECT word, sum(documents), sum(titles) FROM taken GROUP BY word
            HAVING sum(documents) <> 0 OR sum(titles) <> 0 ORDER BY word
            ON CONFLICT (word) DO UPDATE SET documents = kept.documents + excluded.documents,
                titles = kept.titles + excluded.titles
            RETURNING kept.word, kept.documents
        )
        SELECT array_agg(word) INTO gone FROM added WHERE documents <= 0;
        DELETE FROM chapters_search_word WHERE word = ANY (gone);
        DELETE FROM chapters_search_word_fold WHERE transaction = pg_current_xact_id();
    END $$
    """,
    """
    CREATE FUNCTION chapters_search_words_folded() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM chapters_search_words_fold();
        RETURN NULL;
    END $$
    """,
    "CREATE CONSTRAINT TRIGGER chapters_search_words_fold AFTER INSERT "
    "ON chapters_search_word_fold DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
    "EXECUTE FUNCTION chapters_search_words_folded()",
]

BACKWARD = [
    "SELECT chapters_search_words_fold()",
    ADDED_AT_ONCE,
    "DROP TABLE chapters_search_word_fold",
    "DROP FUNCTION chapters_search_words_folded()",
    "DROP FUNCTION chapters_search_words_fold()",
    "DROP TABLE chapters_search_word_change",
]


def forward(apps, schema_editor):
    """Make the tables and functions that sum the counts' changes over a write."""
    if schema_editor.connection.vendor == "postgresql":
        for statement in FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    """Add what is waiting, and add each statement's changes at once again."""
    if schema_editor.connection.vendor == "postgresql":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0034_search_vocabulary"),
    ]

    operations = [migrations.RunPython(forward, backward)]
