"""The lock files agree with pyproject.toml: requirements.txt pins the project's dependencies
for production (``bin/serve-production``), requirements-s3.txt pins them with the ``s3``
extra (production with uploads in S3), requirements-test.txt with the ``test`` extra
(``bin/test``), every pin with its hashes. ``bin/lock`` regenerates all three."""

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+)")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def parse_lock(text):
    """Return the pins of a pip-compile lock as ``{name: (version, hashes)}``.

    Args:
        text: the lock's text. A requirement and its ``--hash`` options may continue over
            lines ending in a backslash; ``#`` starts a comment.

    Returns:
        A dict from the canonical package name to its pinned version (a string) and the list
        of its ``--hash`` options in order.

    Raises:
        AssertionError: a requirement is not pinned with ``==``.
    """
    pins = {}
    for line in re.sub(r"\\\n", " ", text).splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        pin = PIN.fullmatch(words[0])
        assert pin, f"not pinned with ==: {words[0]}"
        hashes = [word for word in words[1:] if HASH.fullmatch(word)]
        pins[canonicalize_name(pin["name"])] = (pin["version"], hashes)
    return pins


def read_lock(name):
    """Return the pins of the lock file ``name`` beside pyproject.toml (see ``parse_lock``)."""
    return parse_lock((ROOT / name).read_text())


def declared(extra=None):
    """Return pyproject.toml's requirements: the dependencies, or those of the extra ``extra``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["optional-dependencies"][extra] if extra else project["dependencies"]
    return [Requirement(line) for line in lines]


def unsatisfied(requirements, pins):
    """Return the requirements that ``pins`` leaves out or pins outside their specifier."""
    return [
        str(requirement)
        for requirement in requirements
        if canonicalize_name(requirement.name) not in pins
        or not requirement.specifier.contains(
            pins[canonicalize_name(requirement.name)][0], prereleases=True
        )
    ]


def test_parse_lock_reads_pins_and_hashes():
    text = (
        "#\n#    bin/lock\n#\n"
        "Django==5.2.19 \\\n"
        "    --hash=sha256:" + "a" * 64 + " \\\n"
        "    --hash=sha256:" + "b" * 64 + "\n"
        "    # via curriculum-wiki (pyproject.toml)\n"
        "typing_extensions==4.16.0 \\\n"
        "    --hash=sha256:" + "c" * 64 + "\n"
        "    # via psycopg\n"
    )
    assert parse_lock(text) == {
        "django": ("5.2.19", ["--hash=sha256:" + "a" * 64, "--hash=sha256:" + "b" * 64]),
        "typing-extensions": ("4.16.0", ["--hash=sha256:" + "c" * 64]),
    }


def test_production_lock_pins_every_dependency_within_its_range():
    assert unsatisfied(declared(), read_lock("requirements.txt")) == [], "run bin/lock"


def test_test_lock_pins_every_dependency_and_test_tool_within_its_range():
    requirements = declared() + declared("test")
    assert unsatisfied(requirements, read_lock("requirements-test.txt")) == [], "run bin/lock"


def test_s3_lock_pins_every_dependency_and_the_s3_extra_within_its_range():
    requirements = declared() + declared("s3")
    assert unsatisfied(requirements, read_lock("requirements-s3.txt")) == [], "run bin/lock"


def test_locks_carry_a_hash_for_every_pin():
    for name in ("requirements.txt", "requirements-s3.txt", "requirements-test.txt"):
        pins = read_lock(name)
        assert [package for package, (_, hashes) in pins.items() if not hashes] == [], name


def test_production_lock_holds_no_test_tool():
    test_tools = {canonicalize_name(requirement.name) for requirement in declared("test")}
    assert test_tools == {
        "axe-playwright-python",
        "beautifulsoup4",
        "django-oauth-toolkit",
        "hypothesis",
        "openapi-spec-validator",
        "playwright",
        "pytest",
        "pytest-django",
        "pytest-randomly",
        "pytest-xdist",
        "ruff",
        "tantivy",
    }
    assert sorted(test_tools & read_lock("requirements.txt").keys()) == []


def test_production_lock_holds_no_s3_package():
    assert [str(requirement) for requirement in declared("s3")] == ["django-storages[s3]<2,>=1.14"]
    assert sorted(
        read_lock("requirements-s3.txt").keys() - read_lock("requirements.txt").keys()
    ) == [
        "boto3",
        "botocore",
        "django-storages",
        "jmespath",
        "python-dateutil",
        "s3transfer",
        "six",
    ]  # urllib3 too, but production has it already (requests, for single sign-on)


@pytest.mark.parametrize("name", ["requirements-s3.txt", "requirements-test.txt"])
def test_other_locks_pin_what_production_pins_at_the_same_versions(name):
    production = read_lock("requirements.txt")
    other = read_lock(name)
    assert {package: other.get(package, (None,))[0] for package in production} == {
        package: version for package, (version, _) in production.items()
    }
