"""``manage.py export_markdown``: write the curriculum as a folder of Markdown files
(see chapters.files)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from chapters.files.export import export_files
from chapters.files.folder import FolderError, write_directory
from chapters.models import Node


class Command(BaseCommand):
    help = (
        "Write the whole curriculum, or one section with --section, as a folder of Markdown "
        "files: a folder per area and section with an index.md, a file per chapter, YAML "
        "front matter (title, status, slug, updated, id) and SUMMARY.md giving the order. "
        "The same database always gives the same bytes; manage.py import_markdown reads the "
        "folder back."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path, help="The folder to write (created).")
        parser.add_argument(
            "--section", metavar="PATH", help="Write only the section at this path."
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Write into a folder that holds files: remove its Markdown files that the "
            "export does not write; hidden files (.git) and other files stay.",
        )

    def handle(self, *args, directory, section, replace, **options):
        node = None
        if section is not None:
            node = Node.objects.filter(path=section.strip("/"), kind=Node.Kind.SECTION).first()
            if node is None:
                raise CommandError(f"There is no section at “{section}”.")
        files = export_files(node)
        try:
            write_directory(files, directory, replace=replace)
        except FolderError as error:
            hint = " (--replace replaces its files)" if not replace else ""
            raise CommandError(f"{error}{hint}") from error
        self.stdout.write(f"Wrote {len(files)} files to {directory}.")
