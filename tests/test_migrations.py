"""The migrations match the models, and fill derived fields of rows already stored."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from chapters.models import Node


@pytest.mark.django_db
def test_migrations_are_up_to_date():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_migration_fills_body_text_of_nodes_saved_before_it():
    before = [("chapters", "0002_history_and_redirects")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_node = executor.loader.project_state(before).apps.get_model("chapters", "Node")
    old_node.objects.create(
        title="Area",
        slug="area",
        kind="section",
        path="area",
        body="x",
        body_html="<p>Kernels &amp; <em>fusion</em></p>",
        lft=1,
        rght=2,
        tree_id=1,
        level=0,
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("chapters"))
    assert Node.objects.get(slug="area").body_text == "Kernels & fusion"
