"""``manage.py export_curriculum``: write the curriculum file (see chapters.curriculum_file)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from chapters.curriculum_file import export_curriculum


class Command(BaseCommand):
    help = (
        "Write the whole curriculum (every node's path, parent, slug, kind, status, title, "
        "body and date) as a versioned JSON file, in tree order, to standard output or to "
        "--output. The same database always gives the same bytes; manage.py "
        "import_curriculum loads the file back. Revisions, users and redirects are not in it."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "-o", "--output", type=Path, help="Write to this file (UTF-8) instead of stdout."
        )

    def handle(self, *args, output, **options):
        text = export_curriculum()
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"Cannot write {output}: {error.strerror}.") from error
        self.stdout.write(f"Wrote {output}.")
