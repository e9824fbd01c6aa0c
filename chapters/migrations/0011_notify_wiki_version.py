"""On PostgreSQL, every change of the wiki's version also sends a notification.

``NOTIFY chapters_wiki_version`` reaches every server process listening on that channel
when the writing transaction commits (``chapters.caching.version_watch``), so they read the
version again only after a change instead of on every request. The bump of migration 0010
notifies, and so does a ``TRUNCATE`` of the tables it watches or of the version itself
(``manage.py flush``), which fires no row or statement trigger of 0010 and leaves no
version row: a process then reads ``"0"``. PostgreSQL folds the notifications of one
transaction on one channel with the same payload into one, so a transaction that writes many
rows sends one.
SQLite has no notifications, nor ``TRUNCATE``; nothing changes there.
"""

from django.db import migrations

# chapters.caching.version_watch.CHANNEL listens on it.
CHANNEL = "chapters_wiki_version"

TABLES = ["chapters_node", "chapters_link", "chapters_pathredirect", "chapters_wikiversion"]

BUMP = """
    INSERT INTO chapters_wikiversion (id, number, changed) VALUES (1, 1, clock_timestamp())
    ON CONFLICT (id) DO UPDATE
    SET number = chapters_wikiversion.number + 1, changed = excluded.changed;
"""

NOTIFY = f"PERFORM pg_notify('{CHANNEL}', '');"


def function(name, body):
    """Return the SQL that (re)defines the trigger function ``name`` running ``body``."""
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        f"BEGIN\n{body}\n    RETURN NULL;\nEND\n$$;"
    )


def notify(apps, schema_editor):
    """Make the bump notify, and notify on a TRUNCATE, on PostgreSQL."""
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(function("chapters_bump_wiki_version", f"{BUMP}    {NOTIFY}"))
    schema_editor.execute(function("chapters_notify_wiki_version", f"    {NOTIFY}"))
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_truncate_notifies AFTER TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION chapters_notify_wiki_version()"
        )


def stop_notifying(apps, schema_editor):
    """Put back the bump of migration 0010, on PostgreSQL."""
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER {table}_truncate_notifies ON {table}")
    schema_editor.execute("DROP FUNCTION chapters_notify_wiki_version()")
    schema_editor.execute(function("chapters_bump_wiki_version", BUMP))


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0010_wiki_version"),
    ]

    operations = [
        migrations.RunPython(notify, stop_notifying),
    ]
