"""``manage.py import_curriculum``: load a curriculum file (see chapters.curriculum_file)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from chapters.curriculum_file import CurriculumFileError, import_curriculum
from chapters.management.importing import add_user_argument, import_summary, import_user
from chapters.media.transfer import MediaImportError, import_media


class Command(BaseCommand):
    help = (
        "Load a file written by manage.py export_curriculum, all or nothing. A node whose "
        "path is in the database is updated (title, kind, status, body, place among its "
        "siblings), any other is added; nodes that are not in the file are left as they are. "
        'Each added or changed node gets a revision "Imported from FILE" ("at COMMIT" '
        "added when the file is in a git work tree), by --user if given. Into an empty "
        "database, it restores the exported tree exactly. A file with any problem changes "
        "nothing, and every problem is listed with its entry. With --media DIR, the media "
        "library's files written by export_curriculum --media are imported first, checked "
        "as uploads are: new names added, changed files replaced."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="A curriculum file (JSON, UTF-8).")
        parser.add_argument(
            "--media", type=Path, metavar="DIR", help="A folder of media (with media.json)."
        )
        add_user_argument(parser)

    def handle(self, *args, file, media, user, **options):
        author = import_user(user)
        try:
            data = file.read_bytes()
            files = {}
            if media is not None:
                files = {
                    path.name: path.read_bytes()
                    for path in sorted(media.iterdir())
                    if path.is_file() and not path.name.startswith(".")
                }
        except OSError as error:
            raise CommandError(f"Cannot read {error.filename}: {error.strerror}.") from error
        try:
            with transaction.atomic():
                done = import_media(files)
                counts = import_curriculum(
                    data, summary=import_summary(file.name, file.parent), user=author
                )
        except MediaImportError as error:
            listed = "\n".join(f"- {problem}" for problem in error.problems)
            raise CommandError(
                f"{media} was not imported; nothing was changed:\n{listed}"
            ) from error
        except CurriculumFileError as error:
            listed = "\n".join(f"- {problem}" for problem in error.problems)
            raise CommandError(
                f"{file} was not imported; nothing was changed:\n{listed}"
            ) from error
        self.stdout.write(
            f"Imported {file}: {counts.added} added, {counts.changed} changed, "
            f"{counts.unchanged} unchanged; {counts.not_in_file} not in the file, left as they "
            "were." + (f" Media: {len(done)} added or replaced." if media is not None else "")
        )
