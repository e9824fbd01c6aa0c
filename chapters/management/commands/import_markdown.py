"""``manage.py import_markdown``: make the curriculum match a folder of Markdown files
(see chapters.files)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from chapters.files.folder import FolderError, read_directory, read_zip
from chapters.files.importer import import_folder
from chapters.management.importing import add_user_argument, import_summary, import_user


class Command(BaseCommand):
    help = (
        "Read a folder written by manage.py export_markdown (or a ZIP of one) and make the "
        "curriculum match it, all or nothing: nodes are matched by the id in their front "
        "matter, else by their place; they are added, changed and moved, each with a "
        'revision "Imported from FOLDER" ("at COMMIT" added when the folder is in a git work '
        "tree), by --user if given. Nodes that are not in the folder are kept, or deleted with "
        "--delete. A folder with any problem changes nothing, and every problem is listed "
        "with its file and line."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", type=Path, help="The folder, or a ZIP archive of it.")
        parser.add_argument(
            "--delete", action="store_true", help="Delete the nodes that are not in the folder."
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="List what would change, and change nothing.",
        )
        parser.add_argument(
            "--ignore-ids",
            action="store_true",
            help="Match nodes by their place only, not by id: for a folder exported from "
            "another database, whose ids name other nodes here.",
        )
        add_user_argument(parser)

    def handle(self, *args, source, delete, dry_run, ignore_ids, user, **options):
        author = import_user(user)
        try:
            files = read_zip(source.read_bytes()) if source.is_file() else read_directory(source)
            result = import_folder(
                files,
                delete=delete,
                dry_run=dry_run,
                use_ids=not ignore_ids,
                user=author,
                summary=import_summary(source, source if source.is_dir() else source.parent),
            )
        except OSError as error:
            raise CommandError(f"Cannot read {source}: {error.strerror}.") from error
        except FolderError as error:
            listed = "\n".join(f"- {problem}" for problem in error.problems)
            raise CommandError(
                f"{source} was not imported; nothing was changed:\n{listed}"
            ) from error
        for change in result.changes:
            self.stdout.write(str(change))
        counts = {}
        for change in result.changes:
            counts[change.action] = counts.get(change.action, 0) + 1
        summary = ", ".join(
            f"{counts.get(action, 0)} {action}"
            for action in ("added", "changed", "moved", "deleted")
        )
        verb = "Would import" if dry_run else "Imported"
        kept = f"; {result.kept} not in the folder, kept" if result.kept else ""
        self.stdout.write(f"{verb} {source}: {summary}, {result.unchanged} unchanged{kept}.")
        if dry_run:
            self.stdout.write("Dry run: nothing was changed.")
