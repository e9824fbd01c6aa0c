"""``manage.py export_curriculum``: write the curriculum file (see chapters.curriculum_file)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from chapters.curriculum_file import export_curriculum
from chapters.media.transfer import export_media


class Command(BaseCommand):
    help = (
        "Write the whole curriculum (every node's path, parent, slug, kind, status, title, "
        "body and date) as a versioned JSON file, in tree order, to standard output or to "
        "--output. The same database always gives the same bytes; manage.py "
        "import_curriculum loads the file back. Revisions, users and redirects are not in it. "
        "With --media DIR, the media library's files and media.json go into DIR too."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "-o", "--output", type=Path, help="Write to this file (UTF-8) instead of stdout."
        )
        parser.add_argument(
            "--media",
            type=Path,
            metavar="DIR",
            help="Write the media library's files into this folder (created; files of the "
            "same names are overwritten).",
        )

    def handle(self, *args, output, media, **options):
        if media is not None:
            try:
                media.mkdir(parents=True, exist_ok=True)
                files = export_media()
                for name, data in files.items():
                    (media / name).write_bytes(data)
            except OSError as error:
                raise CommandError(f"Cannot write {error.filename}: {error.strerror}.") from error
            self.stderr.write(f"Wrote {len(files)} media files to {media}.")
        text = export_curriculum()
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"Cannot write {output}: {error.strerror}.") from error
        self.stdout.write(f"Wrote {output}.")
