"""Editing on the site: drafts, pending changes, watches, and the permission to publish.

Three tables no trigger of migration 0010 watches (a draft, a proposal or a watch changes no
page readers see), and ``chapters.publish_node`` on nodes, the Reviewer role's permission.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0011_notify_wiki_version"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="node",
            options={
                "permissions": [
                    ("publish_node", "Can publish and unpublish nodes and approve changes")
                ]
            },
        ),
        migrations.CreateModel(
            name="EditDraft",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "adding",
                    models.BooleanField(default=False, help_text="A new chapter in ``node``."),
                ),
                ("title", models.CharField(blank=True, max_length=200)),
                ("status", models.CharField(blank=True, max_length=10)),
                ("body", models.TextField(blank=True)),
                ("summary", models.CharField(blank=True, max_length=255)),
                (
                    "base_revision",
                    models.PositiveBigIntegerField(
                        blank=True, help_text="The revision the form was opened at.", null=True
                    ),
                ),
                (
                    "conflicts",
                    models.TextField(
                        blank=True, help_text="The form's unresolved field conflicts."
                    ),
                ),
                ("updated", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "node",
                    models.ForeignKey(
                        help_text="The page edited, or the section a new chapter goes into.",
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="chapters.node",
                    ),
                ),
                (
                    "parent",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="chapters.node",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="edit_drafts",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "node", "adding"), name="one_draft_per_user_and_page"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="PendingChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "base_revision",
                    models.PositiveBigIntegerField(
                        help_text="The id of the page's revision the change was made from."
                    ),
                ),
                ("title", models.CharField(max_length=200)),
                ("status", models.CharField(max_length=10)),
                ("body", models.TextField(blank=True)),
                ("summary", models.CharField(blank=True, max_length=255)),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("updated", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("approved", "Approved"),
                            ("sent_back", "Sent back"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                (
                    "comment",
                    models.TextField(blank=True, help_text="The reviewer's, when sent back."),
                ),
                ("decided", models.DateTimeField(blank=True, null=True)),
                (
                    "author",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pending_changes",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "node",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pending_changes",
                        to="chapters.node",
                    ),
                ),
                (
                    "parent",
                    models.ForeignKey(
                        blank=True,
                        help_text="The section proposed; empty if it was deleted since.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="chapters.node",
                    ),
                ),
                (
                    "reviewer",
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
                "indexes": [
                    models.Index(fields=["node", "state"], name="chapters_pe_node_id_602efe_idx")
                ],
            },
        ),
        migrations.CreateModel(
            name="Watch",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "node",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="watches",
                        to="chapters.node",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="watches",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "node"), name="one_watch_per_user_and_page"
                    )
                ],
            },
        ),
    ]
