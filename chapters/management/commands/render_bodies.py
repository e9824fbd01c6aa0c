"""``manage.py render_bodies``: render every body again with the current pipeline."""

from django.core.management.base import BaseCommand
from django.db import transaction

from chapters.models import Node


class Command(BaseCommand):
    help = (
        "Render every node's body again (HTML, text, headings and links) with the current "
        "Markdown pipeline, without recording revisions. Run it after a change to "
        "chapters/markdown/ (its extensions or allowlists), so stored pages show what save() "
        "makes now."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            nodes = list(Node.objects.all())
            for node in nodes:
                node.refresh_body()
        self.stdout.write(f"Rendered {len(nodes)} bodies again.")
