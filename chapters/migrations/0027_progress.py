"""``Node.words`` (for the reading time, ``chapters.reading_time``), counted for stored nodes,
and ``ChapterDone``, the chapters a signed-in reader has marked done (``chapters.progress``).

SQLite cannot add a column that is not null to a table: Django makes the table again, which
drops the triggers and indexes earlier migrations made in SQL; :class:`AddNodeField` puts
them back, as migration 0020's constraints do. The table of contents reads ``words`` too
(``chapters.contents.rows.FIELDS``, for sections' reading times), so SQLite's covering index
of what it reads (migration 0017) is made again with it.
"""

import importlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

node_checks = importlib.import_module("chapters.migrations.0020_node_checks")


class AddNodeField(migrations.AddField):
    """``AddField`` on the node table, keeping its triggers and indexes on SQLite."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        extras = node_checks.sqlite_extras(schema_editor)
        super().database_forwards(app_label, schema_editor, from_state, to_state)
        node_checks.put_back(schema_editor, extras)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        extras = node_checks.sqlite_extras(schema_editor)
        super().database_backwards(app_label, schema_editor, from_state, to_state)
        node_checks.put_back(schema_editor, extras)


OUTLINE = (
    'CREATE INDEX "chapters_node_outline" ON "chapters_node" '
    '("tree_id", "lft", "id", "parent_id", "title", "slug", "kind", "status", "path", "level"{})'
)


def outline_index(words):
    """Return a RunPython function making SQLite's outline index again, with ``words`` or not."""

    def make(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute('DROP INDEX IF EXISTS "chapters_node_outline"')
            schema_editor.execute(OUTLINE.format(', "words"' if words else ""))

    return make


def fill_words(apps, schema_editor):
    """Count the words of the nodes already in the database, from their stored text.

    Node.save() keeps words right from now on; rows saved before this field existed get it
    here, from the body_text they already store.
    """
    # The one function that defines a word; a frozen copy could disagree with save().
    from chapters.reading_time import count_words

    Node = apps.get_model("chapters", "Node")
    nodes = list(Node.objects.only("pk", "body_text"))
    for node in nodes:
        node.words = count_words(node.body_text)
    Node.objects.bulk_update(nodes, ["words"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0026_review_loop"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        AddNodeField(
            model_name="node",
            name="words",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(fill_words, migrations.RunPython.noop),
        migrations.RunPython(outline_index(words=True), outline_index(words=False)),
        migrations.CreateModel(
            name="ChapterDone",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("done", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "node",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="done_by",
                        to="chapters.node",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chapters_done",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "chapter done",
                "verbose_name_plural": "chapters done",
                "ordering": ["done", "pk"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "node"), name="one_done_per_user_and_chapter"
                    )
                ],
            },
        ),
    ]
