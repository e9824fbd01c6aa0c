"""``Node.sections``: a node's text by heading, formulas as readable text, which search quotes
and opens results at (``chapters.search.sections``), filled from the stored HTML.

SQLite makes the node table again to add a column with a check (JSON's): migration 0027's
``AddNodeField`` puts its triggers and indexes back.
"""

import importlib

from django.db import migrations, models

progress = importlib.import_module("chapters.migrations.0027_progress")


def fill_sections(apps, schema_editor):
    """Give the nodes already in the database their text by heading, from their stored HTML.

    ``Node.save()`` keeps the field right from now on. The HTML is read, not rendered again:
    it is what readers see.
    """
    # The function that defines the field; a frozen copy could disagree with save().
    from chapters.markdown import html_to_text_and_sections

    Node = apps.get_model("chapters", "Node")
    nodes = list(Node.objects.only("pk", "body_html"))
    for node in nodes:
        node.sections = html_to_text_and_sections(node.body_html)[1]
    Node.objects.bulk_update(nodes, ["sections"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("chapters", "0030_prerequisites")]

    operations = [
        progress.AddNodeField(
            model_name="node",
            name="sections",
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.RunPython(fill_sections, migrations.RunPython.noop),
    ]
