"""The docs name only what exists: README.md and docs/*.md against the repository.

Cheap, exact checks of the facts that drift: repository paths, links and their headings,
``manage.py`` commands, environment variables and migrations. What the docs say about them
is for a reader to judge; that they exist is checked here.
"""

import re
from pathlib import Path

from django.conf import settings
from django.core.management import get_commands

ROOT = Path(settings.BASE_DIR)
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MIGRATIONS = ROOT / "chapters" / "migrations"

# A repository path: one of the repository's top-level folders, then a path inside it, not
# preceded by a path character (so "/admin/chapters/node/", a URL, is not one).
REPO_PATH = re.compile(
    r"(?<![\w./-])(?:\.ci|bench|bin|chapters|docs|fixtures|static|templates|tests|wiki)/[\w./-]*"
)
# A Markdown link or image: ``[text](target)`` or ``[text](target#anchor)``.
LINK = re.compile(r"\]\((?P<target>[^)\s#]*)(?:#(?P<anchor>[^)\s]+))?\)")
MANAGE_COMMAND = re.compile(r"manage\.py[ \t]+([a-z_]+)")
# A variable set in a shell command, as in ``DJANGO_DEBUG=1``.
VARIABLE_SET = re.compile(r"(?<![\w$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PYTHON)=")
# A row of the variables' table in docs/operations.md: ``| `NAME` | ... |``.
VARIABLE_ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]+)` \|", re.MULTILINE)
# How the settings read a variable: ``os.environ.get("NAME"...)`` or ``env_flag("NAME"...)``.
VARIABLE_READ = re.compile(r"(?:environ\.get|env_flag)\(\s*\"([A-Z][A-Z0-9_]+)\"")
MIGRATION_NAME = re.compile(r"\b(\d{4}_[a-z0-9_]+)\b")
BARE_MIGRATION_NUMBER = re.compile(r"\bmigrations? `?(\d{4})\b(?!_)")


def text(path):
    """Return the text of ``path``, a file of the repository."""
    return path.read_text(encoding="utf-8")


def prose(path):
    """Return the text of the Markdown file ``path`` without its code (fenced or inline)."""
    return re.sub(r"^```.*?^```|`[^`\n]+`", "", text(path), flags=re.MULTILINE | re.DOTALL)


def headings(path):
    """Return the anchors GitHub gives the headings of the Markdown file ``path``.

    GitHub's rule: the heading's text in lower case, without punctuation other than hyphens,
    spaces turned into hyphens. Lines in fenced code blocks are not headings.
    """
    anchors, fenced = set(), False
    for line in text(path).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#+ (.+)", line)):
            title = re.sub(r"[^\w\- ]", "", match[1].strip().lower())
            anchors.add(title.replace(" ", "-"))
    return anchors


def test_docs_name_only_repository_paths_that_exist():
    missing = [
        f"{doc.name}: {found}"
        for doc in DOCS
        for found in REPO_PATH.findall(text(doc))
        if not (ROOT / found.rstrip(".")).exists()
    ]
    assert missing == []


def test_docs_link_only_to_files_and_headings_that_exist():
    broken = []
    for doc in DOCS:
        for link in LINK.finditer(prose(doc)):
            target, anchor = link["target"], link["anchor"]
            if target.startswith(("http:", "https:", "mailto:")):
                continue
            path = (doc.parent / target).resolve() if target else doc
            if not path.exists():
                broken.append(f"{doc.name}: {target}")
            elif anchor and anchor not in headings(path):
                broken.append(f"{doc.name}: {target}#{anchor}")
    assert broken == []


def test_docs_name_only_management_commands_that_exist():
    commands = get_commands()
    unknown = [
        f"{doc.name}: manage.py {name}"
        for doc in DOCS
        for name in MANAGE_COMMAND.findall(text(doc))
        if name not in commands
    ]
    assert unknown == []


def test_operations_lists_exactly_the_variables_the_settings_and_gunicorn_read():
    read = set()
    for source in ("settings.py", "signin.py", "gunicorn.conf.py"):
        read |= set(VARIABLE_READ.findall(text(ROOT / "wiki" / source)))
    listed = VARIABLE_ROW.findall(text(ROOT / "docs" / "operations.md"))
    assert sorted(listed) == sorted(read)


def test_docs_set_only_variables_the_code_reads():
    readers = [
        ROOT / "wiki" / "settings.py",
        ROOT / "wiki" / "signin.py",
        ROOT / "wiki" / "gunicorn.conf.py",
        ROOT / "tests" / "conftest.py",
        *sorted((ROOT / "bin").iterdir()),
    ]
    code = "\n".join(text(path) for path in readers)
    unread = [
        f"{doc.name}: {name}"
        for doc in DOCS
        for name in VARIABLE_SET.findall(text(doc))
        if not re.search(rf"\b{name}\b", code)
    ]
    assert unread == []


def test_docs_name_only_migrations_that_exist_by_their_full_names():
    named = {name for doc in DOCS for name in MIGRATION_NAME.findall(text(doc))}
    assert sorted(name for name in named if not (MIGRATIONS / f"{name}.py").exists()) == []
    bare = [f"{doc.name}: {n}" for doc in DOCS for n in BARE_MIGRATION_NUMBER.findall(text(doc))]
    assert bare == []


def test_architecture_lists_every_migration():
    listed = set(MIGRATION_NAME.findall(text(ROOT / "docs" / "architecture.md")))
    assert sorted(path.stem for path in MIGRATIONS.glob("0*.py")) == sorted(listed)
