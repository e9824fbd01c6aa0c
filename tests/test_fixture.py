"""The curriculum fixture: made by the outline script, loads cleanly, refuses broken files."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.serializers.base import DeserializationError
from django.db import IntegrityError

from chapters.management.commands.build_curriculum_fixture import render_fixture
from chapters.models import Node
from chapters.outline import OutlineError, parse_outline
from tests.helpers import tree_table

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
SEED_PAGE = Path(__file__).parent / "data" / "seed-page.txt"


def tree_fields():
    """Return every node's tree and derived fields, in tree order."""
    return list(
        Node.objects.values_list("pk", "parent_id", "tree_id", "lft", "rght", "level", "path")
    )


def test_fixture_is_what_the_outline_script_makes():
    committed = (FIXTURES / "curriculum.json").read_text(encoding="utf-8")
    assert committed == render_fixture(FIXTURES / "curriculum-outline.txt")


def test_fixture_check_command_passes_for_the_committed_fixture(capsys):
    call_command("build_curriculum_fixture", "--check")
    assert "is up to date" in capsys.readouterr().out


def test_fixture_check_command_fails_for_a_stale_fixture(tmp_path):
    stale = tmp_path / "curriculum.json"
    stale.write_text("[]\n", encoding="utf-8")
    with pytest.raises(CommandError, match="is out of date"):
        call_command("build_curriculum_fixture", "--check", "--output", str(stale))


def test_outline_titles_are_the_seed_pages_table_of_contents_in_order():
    seed_toc = SEED_PAGE.read_text(encoding="utf-8").split("All chapters", 1)[1].strip()
    outline = parse_outline((FIXTURES / "curriculum-outline.txt").read_text(encoding="utf-8"))
    assert "".join(title for _, title in outline) == seed_toc
    assert len(outline) == 222


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Area\n   Odd indent\n", "line 2: indent with two spaces per level"),
        ("Area\n    Skipped a level\n", "line 2: indented more than one level"),
        ("  Starts indented\n", "line 1: indented more than one level"),
    ],
)
def test_outline_parser_names_the_bad_line(text, message):
    with pytest.raises(OutlineError, match=message):
        parse_outline(text)


@pytest.mark.django_db
def test_fixture_loads_a_valid_tree_and_loading_again_changes_nothing(curriculum):
    loaded = tree_fields()
    assert len(loaded) == 222
    Node.objects.rebuild()
    assert tree_fields() == loaded
    call_command("loaddata", "curriculum", verbosity=0)
    assert tree_fields() == loaded
    assert Node.objects.count() == 222


@pytest.mark.django_db
def test_fixture_sets_derived_fields_and_keeps_the_updated_date(curriculum):
    chapter = Node.objects.get(title="Graph Optimization and Kernel Fusion")
    assert chapter.path == "ml-systems/ml-compilers/graph-optimization-and-kernel-fusion"
    assert chapter.body_html == "<p>This chapter is currently a scaffold.</p>"
    assert chapter.body_text == "This chapter is currently a scaffold."
    assert chapter.updated.isoformat() == "2026-08-09T12:00:00+00:00"
    assert (chapter.kind, chapter.status) == ("chapter", "draft")


@pytest.mark.django_db
def test_fixture_replaces_derived_fields_a_fixture_supplies(tmp_path, small_tree):
    hostile = [
        {
            "model": "chapters.node",
            "pk": 3,
            "fields": {
                "title": "Chapter One",
                "slug": "chapter-one",
                "kind": "chapter",
                "status": "draft",
                "parent": 2,
                "body": "Safe.",
                "body_html": "<script>alert(1)</script>",
                "body_text": "<script>alert(1)</script>",
                "path": "elsewhere",
                "updated": "2026-08-09T12:00:00Z",
                "lft": 2,
                "rght": 3,
                "tree_id": 1,
                "level": 2,
            },
        }
    ]
    fixture = tmp_path / "hostile.json"
    fixture.write_text(json.dumps(hostile), encoding="utf-8")
    call_command("loaddata", str(fixture), verbosity=0)
    chapter = Node.objects.get(pk=3)
    assert (chapter.path, chapter.body_html, chapter.body_text) == (
        "area-a/section-a1/chapter-one",
        "<p>Safe.</p>",
        "Safe.",
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (
            '[{"model": "chapters.node", "pk": 1, "fields": {',
            DeserializationError,
            "Problem installing fixture '.*broken.json'",
        ),
        (
            json.dumps(
                [
                    {
                        "model": "chapters.node",
                        "pk": 900,
                        "fields": {
                            "title": "Orphan",
                            "slug": "orphan",
                            "kind": "chapter",
                            "parent": 999,
                            "updated": "2026-08-09T12:00:00Z",
                            "lft": 1,
                            "rght": 2,
                            "tree_id": 9,
                            "level": 1,
                        },
                    }
                ]
            ),
            IntegrityError,
            r"(?s)Problem installing fixtures: .*\b999\b",
        ),
    ],
    ids=["bad-json", "missing-parent"],
)
def test_broken_fixture_fails_clearly_and_leaves_the_database_as_it_was(
    tmp_path, curriculum, content, error, message
):
    before = tree_table()
    broken = tmp_path / "broken.json"
    broken.write_text(content, encoding="utf-8")
    with pytest.raises(error, match=message) as raised:
        call_command("loaddata", str(broken), verbosity=0)
    if error is DeserializationError:
        assert isinstance(raised.value.__cause__, json.JSONDecodeError)
    assert tree_table() == before
