"""On PostgreSQL, the trigger that bumps the wiki's version also sends a notification.

``NOTIFY chapters_wiki_version`` reaches every server process listening on that channel
when the writing transaction commits (``chapters.version_watch``), so they read the version
again only after a change instead of on every request. PostgreSQL folds the notifications of
one transaction on one channel with the same payload into one, so a transaction that writes
many rows sends one. SQLite has no notifications; nothing changes there.
"""

from django.db import migrations

# chapters.version_watch.CHANNEL listens on it.
CHANNEL = "chapters_wiki_version"

NOTIFYING_FUNCTION = f"""
CREATE OR REPLACE FUNCTION chapters_bump_wiki_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO chapters_wikiversion (id, number, changed) VALUES (1, 1, clock_timestamp())
    ON CONFLICT (id) DO UPDATE
    SET number = chapters_wikiversion.number + 1, changed = excluded.changed;
    PERFORM pg_notify('{CHANNEL}', '');
    RETURN NULL;
END
$$;
"""

SILENT_FUNCTION = """
CREATE OR REPLACE FUNCTION chapters_bump_wiki_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO chapters_wikiversion (id, number, changed) VALUES (1, 1, clock_timestamp())
    ON CONFLICT (id) DO UPDATE
    SET number = chapters_wikiversion.number + 1, changed = excluded.changed;
    RETURN NULL;
END
$$;
"""


def notify(apps, schema_editor):
    """Make the bump notify, on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(NOTIFYING_FUNCTION)


def stop_notifying(apps, schema_editor):
    """Put back the bump of migration 0010, on PostgreSQL."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SILENT_FUNCTION)


class Migration(migrations.Migration):

    dependencies = [
        ("chapters", "0010_wiki_version"),
    ]

    operations = [
        migrations.RunPython(notify, stop_notifying),
    ]
