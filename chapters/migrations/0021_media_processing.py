"""Images processed by a task after their upload: a stored version's ``state`` (processing,
ready or failed) and its ``original``, the upload kept until it is processed. Stored
versions were processed in their upload's request: they are ready."""

from django.db import migrations, models

STATE = models.CharField(
    choices=[("processing", "Processing"), ("ready", "Ready"), ("failed", "Failed")],
    default="ready",
    max_length=10,
)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0020_node_checks"),
    ]

    operations = [
        migrations.AddField(model_name="mediaitem", name="state", field=STATE),
        migrations.AddField(model_name="mediaversion", name="state", field=STATE),
        migrations.AddField(
            model_name="mediaitem",
            name="original",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.AddField(
            model_name="mediaversion",
            name="original",
            field=models.CharField(blank=True, max_length=300),
        ),
    ]
