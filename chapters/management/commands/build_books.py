"""``manage.py build_books``: build the books of the current version ahead of readers
(see chapters.books.builds)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from chapters.books.builds import FORMATS, BookKey, build, ready
from chapters.caching import SOURCES, source_digest
from chapters.models import Node, WikiVersion


class Command(BaseCommand):
    help = (
        "Build the PDF and EPUB of the whole curriculum and of every area (or of one "
        "section with --section) for the wiki's current version, as the download links "
        "would, so that readers find them ready; books already built are skipped. Run it "
        "after a deploy or from cron; books are kept under BOOKS_ROOT."
    )

    def add_arguments(self, parser):
        parser.add_argument("--section", metavar="PATH", help="Build only this section's books.")
        parser.add_argument(
            "--format", choices=sorted(FORMATS), help="Build only this format (default: both)."
        )

    def handle(self, *args, section, format, **options):
        if section is not None:
            root = Node.objects.filter(path=section.strip("/"), kind=Node.Kind.SECTION).first()
            if root is None:
                raise CommandError(f"There is no section at “{section}”.")
            roots = [root]
        else:
            roots = [None, *Node.objects.filter(parent=None)]
        # The version of the pages, as chapters.caching.version() gives it to a request.
        version = f"{WikiVersion.current()[0]}-{source_digest(settings.BASE_DIR, SOURCES)}"
        for root in roots:
            for name in [format] if format else sorted(FORMATS):
                key = BookKey(root.pk if root is not None else None, name, version)
                title = root.title if root is not None else "The Curriculum"
                if ready(key):
                    self.stdout.write(f"{title} ({name}): built already.")
                elif build(key):
                    self.stdout.write(
                        f"{title} ({name}): built, {key.path.stat().st_size:,} bytes."
                    )
                else:
                    self.stdout.write(f"{title} ({name}): another process is building it.")
