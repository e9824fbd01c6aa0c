"""The project's licence: BSD-3-Clause, declared in pyproject.toml and in the LICENSE file."""

import tomllib
from importlib.metadata import distribution, metadata
from pathlib import Path

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
