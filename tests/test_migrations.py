"""The migrations match the models."""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_migrations_are_up_to_date():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
