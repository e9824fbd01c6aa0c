"""Synonyms for search: the model, the first British and American spellings, and triggers
that bump the wiki's version on every change to them (a synonym changes what search finds,
and search suggestions are kept per version)."""

from django.db import migrations, models

# (British, American) spellings of words in the curriculum's titles and their kin.
SPELLINGS = [
    ("analyse", "analyze"),
    ("behaviour", "behavior"),
    ("centre", "center"),
    ("colour", "color"),
    ("colours", "colors"),
    ("generalisation", "generalization"),
    ("grey", "gray"),
    ("modelling", "modeling"),
    ("normalisation", "normalization"),
    ("optimisation", "optimization"),
    ("optimise", "optimize"),
    ("parallelisation", "parallelization"),
    ("quantisation", "quantization"),
    ("quantise", "quantize"),
    ("regularisation", "regularization"),
    ("tokenisation", "tokenization"),
    ("tokeniser", "tokenizer"),
    ("vectorisation", "vectorization"),
    ("visualisation", "visualization"),
]

SQLITE_BUMP = """
    INSERT INTO chapters_wikiversion (id, number, changed)
    VALUES (1, 1, strftime('%Y-%m-%d %H:%M:%f', 'now'))
    ON CONFLICT (id) DO UPDATE SET number = number + 1, changed = excluded.changed;
"""


def add_spellings(apps, schema_editor):
    """Add :data:`SPELLINGS` as synonyms."""
    Synonym = apps.get_model("chapters", "Synonym")
    Synonym.objects.bulk_create(Synonym(word=word, same_as=other) for word, other in SPELLINGS)


def create_triggers(apps, schema_editor):
    """Bump the wiki's version on every write to synonyms (as migrations 0010 and 0011)."""
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for event in ("INSERT", "UPDATE", "DELETE"):
            schema_editor.execute(
                f"CREATE TRIGGER chapters_synonym_{event.lower()}_bumps_version AFTER {event} "
                f"ON chapters_synonym BEGIN {SQLITE_BUMP} END"
            )
    elif vendor == "postgresql":
        schema_editor.execute(
            "CREATE TRIGGER chapters_synonym_bumps_version AFTER INSERT OR UPDATE OR DELETE "
            "ON chapters_synonym FOR EACH STATEMENT EXECUTE FUNCTION chapters_bump_wiki_version()"
        )
        schema_editor.execute(
            "CREATE TRIGGER chapters_synonym_truncate_notifies AFTER TRUNCATE ON chapters_synonym "
            "FOR EACH STATEMENT EXECUTE FUNCTION chapters_notify_wiki_version()"
        )


def drop_triggers(apps, schema_editor):
    """Drop the triggers (the table goes with the model)."""
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for event in ("insert", "update", "delete"):
            schema_editor.execute(f"DROP TRIGGER chapters_synonym_{event}_bumps_version")
    elif vendor == "postgresql":
        schema_editor.execute("DROP TRIGGER chapters_synonym_bumps_version ON chapters_synonym")
        schema_editor.execute("DROP TRIGGER chapters_synonym_truncate_notifies ON chapters_synonym")


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0015_search"),
    ]

    operations = [
        migrations.CreateModel(
            name="Synonym",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("word", models.CharField(help_text="One word, e.g. “colour”.", max_length=100)),
                (
                    "same_as",
                    models.CharField(
                        help_text="Another spelling of it, e.g. “color”.",
                        max_length=100,
                        verbose_name="same as",
                    ),
                ),
            ],
            options={
                "ordering": ["word", "same_as"],
                "constraints": [
                    models.UniqueConstraint(fields=("word", "same_as"), name="one_synonym_per_pair")
                ],
            },
        ),
        migrations.RunPython(add_spellings, migrations.RunPython.noop),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
