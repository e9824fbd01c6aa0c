"""The media library: ``MediaItem``, ``MediaVersion`` (replaced files) and ``MediaUse`` (a
body's references to media, derived like links).

No trigger of migration 0010 watches these tables: what readers see of an item changes only
when the pages using it are rendered again, which writes ``Node``.
"""

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0013_roles"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="MediaItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("file", models.FileField(max_length=300, upload_to="")),
                ("content_type", models.CharField(max_length=100)),
                ("size", models.PositiveBigIntegerField(help_text="In bytes.")),
                (
                    "width",
                    models.PositiveIntegerField(blank=True, help_text="Images: pixels.", null=True),
                ),
                (
                    "height",
                    models.PositiveIntegerField(blank=True, help_text="Images: pixels.", null=True),
                ),
                (
                    "variants",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="Images: the widths of the resized WebP copies, smallest first.",
                    ),
                ),
                ("version", models.PositiveIntegerField(default=1)),
                ("uploaded", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "name",
                    models.CharField(
                        max_length=111,
                        unique=True,
                        validators=[
                            django.core.validators.RegexValidator(
                                "\\A[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?\\.[a-z0-9]{1,10}\\Z",
                                "Use lower-case letters, digits and hyphens, then an extension.",
                            )
                        ],
                    ),
                ),
                (
                    "kind",
                    models.CharField(choices=[("image", "Image"), ("file", "File")], max_length=5),
                ),
                ("title", models.CharField(max_length=200)),
                (
                    "alt",
                    models.TextField(
                        blank=True,
                        help_text="What the image shows, for readers who cannot see it (images).",
                        max_length=1000,
                        verbose_name="alt text",
                    ),
                ),
                (
                    "uploader",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "media item",
                "ordering": ["-uploaded", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="MediaUse",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(choices=[("image", "Image"), ("file", "File")], max_length=5),
                ),
                ("name", models.TextField(help_text="As written in the body, after the scheme.")),
                ("problem", models.TextField(blank=True)),
                (
                    "media",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="uses",
                        to="chapters.mediaitem",
                    ),
                ),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="media_uses",
                        to="chapters.node",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="MediaVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("file", models.FileField(max_length=300, upload_to="")),
                ("content_type", models.CharField(max_length=100)),
                ("size", models.PositiveBigIntegerField(help_text="In bytes.")),
                (
                    "width",
                    models.PositiveIntegerField(blank=True, help_text="Images: pixels.", null=True),
                ),
                (
                    "height",
                    models.PositiveIntegerField(blank=True, help_text="Images: pixels.", null=True),
                ),
                (
                    "variants",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="Images: the widths of the resized WebP copies, smallest first.",
                    ),
                ),
                ("version", models.PositiveIntegerField(default=1)),
                ("uploaded", models.DateTimeField(default=django.utils.timezone.now)),
                ("replaced", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="chapters.mediaitem",
                    ),
                ),
                (
                    "uploader",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-version"],
                "constraints": [
                    models.UniqueConstraint(fields=("item", "version"), name="unique_media_version")
                ],
            },
        ),
    ]
