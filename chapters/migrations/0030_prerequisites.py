"""``Node.requires``: the chapters a chapter builds on, by id, in reading order
(``chapters.models.prerequisites``), in its revisions and in its pending changes, and
``EditDraft.requires``, the editor's field as typed.

SQLite makes the node table again to add a column that is not null: migration 0027's
``AddNodeField`` puts its triggers and indexes back.
"""

import importlib

from django.db import migrations, models

progress = importlib.import_module("chapters.migrations.0027_progress")


class Migration(migrations.Migration):
    dependencies = [("chapters", "0029_search")]

    operations = [
        progress.AddNodeField(
            model_name="node",
            name="requires",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="The chapters this one builds on, in the order to read them.",
            ),
        ),
        migrations.AddField(
            model_name="historicalnode",
            name="requires",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="The chapters this one builds on, in the order to read them.",
            ),
        ),
        migrations.AddField(
            model_name="pendingchange",
            name="requires",
            field=models.JSONField(
                blank=True, default=list, help_text="The prerequisites' ids (``Node.requires``)."
            ),
        ),
        migrations.AddField(
            model_name="editdraft",
            name="requires",
            field=models.TextField(blank=True),
        ),
    ]
