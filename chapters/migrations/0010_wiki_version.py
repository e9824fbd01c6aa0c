"""The wiki's version: one row that triggers bump on every write to nodes, links, redirects.

See ``chapters.models.WikiVersion``. SQLite runs triggers once per row; PostgreSQL runs this
one once per statement (a bulk update of 2,000 paths bumps once). The row is an upsert, so
a database emptied by ``flush`` gets it back on its next write.
"""

from django.db import migrations, models
from django.db.utils import NotSupportedError
from django.utils import timezone

TABLES = ["chapters_node", "chapters_link", "chapters_pathredirect"]

SQLITE_BUMP = """
    INSERT INTO chapters_wikiversion (id, number, changed)
    VALUES (1, 1, strftime('%Y-%m-%d %H:%M:%f', 'now'))
    ON CONFLICT (id) DO UPDATE SET number = number + 1, changed = excluded.changed;
"""

POSTGRESQL_FUNCTION = """
CREATE FUNCTION chapters_bump_wiki_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO chapters_wikiversion (id, number, changed) VALUES (1, 1, clock_timestamp())
    ON CONFLICT (id) DO UPDATE
    SET number = chapters_wikiversion.number + 1, changed = excluded.changed;
    RETURN NULL;
END
$$;
"""


def create_triggers(apps, schema_editor):
    """Create the first version and the triggers that bump it, for SQLite or PostgreSQL.

    Raises:
        NotSupportedError: any other database, where pages would be cached forever.
    """
    apps.get_model("chapters", "WikiVersion").objects.create(pk=1, changed=timezone.now())
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for table in TABLES:
            for event in ("INSERT", "UPDATE", "DELETE"):
                schema_editor.execute(
                    f"CREATE TRIGGER {table}_{event.lower()}_bumps_version AFTER {event} "
                    f"ON {table} BEGIN {SQLITE_BUMP} END"
                )
    elif vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_FUNCTION)
        for table in TABLES:
            schema_editor.execute(
                f"CREATE TRIGGER {table}_bumps_version AFTER INSERT OR UPDATE OR DELETE "
                f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION chapters_bump_wiki_version()"
            )
    else:
        raise NotSupportedError(
            f"The wiki's cache version needs triggers written for SQLite or PostgreSQL, "
            f"not {vendor}."
        )


def drop_triggers(apps, schema_editor):
    """Drop the triggers (the table goes with the migration's model)."""
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for table in TABLES:
            for event in ("insert", "update", "delete"):
                schema_editor.execute(f"DROP TRIGGER {table}_{event}_bumps_version")
    elif vendor == "postgresql":
        for table in TABLES:
            schema_editor.execute(f"DROP TRIGGER {table}_bumps_version ON {table}")
        schema_editor.execute("DROP FUNCTION chapters_bump_wiki_version()")


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0009_body_max_length"),
    ]

    operations = [
        migrations.CreateModel(
            name="WikiVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.BigIntegerField(default=0)),
                ("changed", models.DateTimeField(default=timezone.now)),
            ],
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
