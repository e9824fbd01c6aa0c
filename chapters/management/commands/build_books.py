"""``manage.py build_books``: build the books of the current version ahead of readers
(see chapters.books.builds)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from chapters.books.builds import FORMATS, BookKey, book_storage, ready, start
from chapters.caching import SOURCES, source_digest
from chapters.models import BookBuild, Node, WikiVersion
from chapters.worker import Worker


class Command(BaseCommand):
    help = (
        "Build the PDF and EPUB of the whole curriculum and of every area (or of one "
        "section with --section) for the wiki's current version, as the download links "
        "would, so that readers find them ready; books already built are skipped. The "
        "builds are started as the links start them (one task each, on the books queue), "
        "then this command works as a worker of that queue until it is empty, beside any "
        "other workers; --no-wait leaves them to the workers. Run it after a deploy or "
        "from cron; books are kept in the books storage (BOOKS_ROOT, or the S3 bucket)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--section", metavar="PATH", help="Build only this section's books.")
        parser.add_argument(
            "--format", choices=sorted(FORMATS), help="Build only this format (default: both)."
        )
        parser.add_argument(
            "--no-wait",
            action="store_false",
            dest="wait",
            help="Start the builds and leave them to the workers.",
        )

    def handle(self, *args, section, format, wait, **options):
        if section is not None:
            root = Node.objects.filter(path=section.strip("/"), kind=Node.Kind.SECTION).first()
            if root is None:
                raise CommandError(f"There is no section at “{section}”.")
            roots = [root]
        else:
            roots = [None, *Node.objects.filter(parent=None)]
        # The version of the pages, as chapters.caching.version() gives it to a request.
        version = f"{WikiVersion.current()[0]}-{source_digest(settings.BASE_DIR, SOURCES)}"
        books = []
        for root in roots:
            title = root.title if root is not None else "The Curriculum"
            for name in [format] if format else sorted(FORMATS):
                key = BookKey(root.pk if root is not None else None, name, version)
                if ready(key):
                    self.stdout.write(f"{title} ({name}): built already.")
                else:
                    start(key, again=True)
                    books.append((f"{title} ({name})", key))
        if not books:
            return
        if not wait:
            for label, _key in books:
                self.stdout.write(f"{label}: started; a worker builds it.")
            return
        Worker.draining(["books"], get_random_string(32)).run()
        failed = 0
        for label, key in books:
            build = key.builds.first()
            if build is not None and build.status == BookBuild.Status.BUILT:
                self.stdout.write(f"{label}: built, {book_storage().size(key.name):,} bytes.")
            elif build is not None and build.status == BookBuild.Status.FAILED:
                self.stdout.write(f"{label}: failed, {build.error}")
                failed += 1
            else:
                self.stdout.write(f"{label}: being built by another worker.")
        if failed:
            raise CommandError(f"{failed} book(s) could not be built: see the log above.")
