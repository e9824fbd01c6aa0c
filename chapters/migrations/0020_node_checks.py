"""Check constraints: a node's kind and status are among their choices (issue 24).

A row stored before them with another value (``Node.save()`` did not refuse one) is put
right first, as the reviewers' pages would take it: an unknown status becomes a draft (no
page is published by it), an unknown kind a section if the node has children, else a
chapter.

SQLite cannot add a constraint to a table: Django makes the table again and copies the rows,
which drops what earlier migrations added in SQL (the triggers that bump the wiki's version
and keep the search tables, the outline index). :class:`AddNodeConstraint` puts those back.
"""

from django.db import migrations, models

KINDS = ["section", "chapter"]
STATUSES = ["draft", "review", "published"]


def put_right(apps, schema_editor):
    """Give the rows whose kind or status is not a choice one that is (see above).

    Only where there are such rows: on PostgreSQL the wiki's version is bumped by a trigger
    for each statement (migration 0010), rows or none, and a migrated database starts at
    version 0.
    """
    Node = apps.get_model("chapters", "Node")
    if Node.objects.exclude(status__in=STATUSES).exists():
        Node.objects.exclude(status__in=STATUSES).update(status="draft")
    odd = Node.objects.exclude(kind__in=KINDS)
    if odd.exists():
        parents = Node.objects.filter(parent__isnull=False).values("parent")
        odd.filter(pk__in=parents).update(kind="section")
        odd.exclude(pk__in=parents).update(kind="chapter")


def sqlite_extras(schema_editor):
    """Return ``(name, sql)`` of the node table's triggers and indexes, on SQLite; else []."""
    if schema_editor.connection.vendor != "sqlite":
        return []
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'chapters_node' "
            "AND type IN ('trigger', 'index') AND sql IS NOT NULL"
        )
        return cursor.fetchall()


def put_back(schema_editor, extras):
    """Create again those of ``extras`` that making the table again dropped, and Django will
    not create itself (its own indexes wait in ``deferred_sql``)."""
    left = {name for name, _ in sqlite_extras(schema_editor)}
    deferred = " ".join(str(statement) for statement in schema_editor.deferred_sql)
    for name, sql in extras:
        if name not in left and f'"{name}"' not in deferred:
            schema_editor.execute(sql)


class AddNodeConstraint(migrations.AddConstraint):
    """``AddConstraint`` on the node table, keeping its triggers and indexes on SQLite."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        extras = sqlite_extras(schema_editor)
        super().database_forwards(app_label, schema_editor, from_state, to_state)
        put_back(schema_editor, extras)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        extras = sqlite_extras(schema_editor)
        super().database_backwards(app_label, schema_editor, from_state, to_state)
        put_back(schema_editor, extras)


class Migration(migrations.Migration):
    dependencies = [("chapters", "0019_notifications")]

    operations = [
        migrations.RunPython(put_right, migrations.RunPython.noop),
        AddNodeConstraint(
            model_name="node",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", KINDS)),
                name="kind_is_a_choice",
                violation_error_message="The kind is not one of section, chapter.",
            ),
        ),
        AddNodeConstraint(
            model_name="node",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", STATUSES)),
                name="status_is_a_choice",
                violation_error_message="The status is not one of draft, review, published.",
            ),
        ),
    ]
