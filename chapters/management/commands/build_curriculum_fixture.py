"""``manage.py build_curriculum_fixture``: regenerate fixtures/curriculum.json."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from chapters.outline import OutlineError, build_fixture, parse_outline

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


def render_fixture(outline_path):
    """Return the fixture's JSON text for the outline at ``outline_path``.

    Raises:
        OutlineError: the outline is malformed.
    """
    rows = build_fixture(parse_outline(outline_path.read_text(encoding="utf-8")))
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = (
        "Regenerate fixtures/curriculum.json from fixtures/curriculum-outline.txt (one title "
        "per line, two spaces of indent per level). With --check, write nothing and fail if "
        "the committed fixture differs from what the outline gives."
    )

    def add_arguments(self, parser):
        parser.add_argument("--outline", type=Path, default=FIXTURES / "curriculum-outline.txt")
        parser.add_argument("--output", type=Path, default=FIXTURES / "curriculum.json")
        parser.add_argument(
            "--check", action="store_true", help="Fail if the fixture is out of date."
        )

    def handle(self, *args, outline, output, check, **options):
        try:
            text = render_fixture(outline)
        except (OSError, OutlineError) as error:
            raise CommandError(f"{outline}: {error}") from error
        if check:
            if not output.exists() or output.read_text(encoding="utf-8") != text:
                raise CommandError(
                    f"{output} is out of date; run manage.py build_curriculum_fixture"
                )
            self.stdout.write(f"{output} is up to date.")
            return
        output.write_text(text, encoding="utf-8")
        self.stdout.write(f"Wrote {output}.")
