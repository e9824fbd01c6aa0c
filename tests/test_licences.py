"""The project's licence: BSD-3-Clause, declared in pyproject.toml and in the LICENSE file;
and the allow-list its production dependencies' licences are checked against
(bin/licences.py, which bin/audit runs)."""

import importlib.util
import tomllib
from importlib.metadata import distribution, metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_project_declares_bsd_3_clause_as_an_spdx_expression():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (project["license"], project["license-files"]) == ("BSD-3-Clause", ["LICENSE"])
    installed = metadata("curriculum-wiki")
    assert (installed["License-Expression"], installed.get_all("License-File")) == (
        "BSD-3-Clause",
        ["LICENSE"],
    )


def test_licence_file_is_django_s_own_text_for_the_project_s_contributors():
    django = next(
        file for file in distribution("Django").files if file.parts[-2:] == ("licenses", "LICENSE")
    ).read_text()
    ours = (ROOT / "LICENSE").read_text()
    assert " ".join(ours.split()) == " ".join(
        django.replace(
            "Django Software Foundation and individual contributors",
            "The Curriculum Wiki contributors",
        )
        .replace("name of Django", "name of the Curriculum Wiki")
        .split()
    )


def load_licences():
    """Return bin/licences.py as a module (bin/ is no package: bin/audit runs it as a file)."""
    spec = importlib.util.spec_from_file_location("licences", ROOT / "bin" / "licences.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


licences = load_licences()


@pytest.mark.parametrize(
    ("licence", "expected"),
    [
        ("MIT", True),
        ("MIT License", True),
        ("BSD License; MIT License", True),
        ("Apache-2.0 OR BSD-2-Clause", True),
        ("GPL-3.0-only or MIT", True),
        ("(MIT OR GPL-2.0-only) AND BSD-3-Clause", True),
        ("Apache-2.0 WITH LLVM-exception", True),
        ("GPL-2.0-or-later", False),
        ("AGPL-3.0-or-later", False),
        ("GNU Affero General Public License v3 or later (AGPLv3+)", False),
        ("LGPL-3.0-only", False),
        ("MPL-2.0", False),
        ("MIT AND GPL-3.0-only", False),
        ("(MIT OR GPL-2.0-only) AND LGPL-2.1-or-later", False),
        ("MIT License; GNU General Public License v3 (GPLv3)", False),
        ("LicenseRef-Proprietary", False),
        ("UNKNOWN", False),
        ("", False),
        ("MIT OR", False),
        ("(MIT", False),
        ("MIT)", False),
        ("MIT WITH", False),
    ],
)
def test_allowed_follows_spdx_expressions_and_classifiers(licence, expected):
    assert licences.allowed(licence) is expected


def test_refused_names_copyleft_unknown_and_missing_packages_in_lock_order():
    packages = [
        {"Name": "Django", "Version": "5.2.19", "License": "BSD-3-Clause"},
        {"Name": "merge3", "Version": "1.0.0", "License": "GPL-2.0-or-later"},
        {"Name": "psycopg", "Version": "3.3.9", "License": "LGPL-3.0-only"},
        {"Name": "psycopg_binary", "Version": "3.3.9", "License": "GPL-3.0-only"},
        {"Name": "Mystery.Pkg", "Version": "1", "License": "UNKNOWN"},
    ]
    pins = ["django", "merge3", "mystery-pkg", "psycopg", "psycopg-binary", "typing-extensions"]
    assert licences.refused(packages, pins) == [
        "merge3: GPL-2.0-or-later",
        "mystery-pkg: UNKNOWN",
        "psycopg-binary: GPL-3.0-only",
        "typing-extensions: not installed, so its licence is unknown",
    ]


def test_every_package_accepted_by_name_is_pinned_in_the_production_lock():
    pins = licences.pins_of((ROOT / "requirements.txt").read_text())
    assert sorted(set(licences.ACCEPTED) - set(pins)) == []
    assert pins[:3] == ["asgiref", "attrs", "bleach"]
