"""Check the licences of a lock's packages against the project's allow-list.

The wiki is BSD-3-Clause, so what it runs with must let an organisation use, change and
ship it under those terms: permissive licences are allowed; copyleft ones (GPL, AGPL) are
refused; weak copyleft (LGPL, MPL) is accepted only for the packages named in ``ACCEPTED``,
each for its reason, since a package used unmodified as a library keeps the wiki's own
terms; so is a permissive licence under a name that is no SPDX identifier. ``bin/audit``
runs this on the production lock's packages, installed in a throwaway virtualenv, as
pip-licenses reports them::

    pip-licenses --python ENV/bin/python --from=mixed --format=json \\
        | python3 bin/licences.py requirements.txt

pip-licenses reports a package's licence as its SPDX expression (``License-Expression``,
PEP 639) or, for older metadata, its licence classifiers' names joined by ``"; "``. An
expression is allowed when it holds by SPDX's rules (``A OR B``: either; ``A AND B``: both;
``A WITH exception``: ``A``); classifiers are allowed when each of them is. Anything else
(no licence, an unknown name, ``LicenseRef-...``) is refused: a person decides, and adds
the package to ``ACCEPTED`` with the reason.

Exit status 0 when every pin of the lock is allowed; 1, with a line for each package
refused, otherwise.
"""

import json
import re
import sys

__all__ = ["ACCEPTED", "ALLOWED", "allowed", "canonical", "pins_of", "refused"]

# Permissive licences: SPDX identifiers, and the classifiers' names for them.
ALLOWED = frozenset(
    {
        "0BSD",
        "Apache-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "HPND",
        "ISC",
        "MIT",
        "MIT-0",
        "MIT-CMU",
        "PSF-2.0",
        "Python-2.0",
        "Unlicense",
        "Zlib",
        "Apache Software License",
        "BSD License",
        "Historical Permission Notice and Disclaimer (HPND)",
        "ISC License (ISCL)",
        "MIT License",
        "MIT No Attribution License (MIT-0)",
        "Python Software Foundation License",
        "The Unlicense (Unlicense)",
        "zlib/libpng License",
    }
)

# Weak copyleft, or a permissive licence under a name that is no SPDX identifier, accepted
# for one package each: its licence exactly as pip-licenses reports it (a new licence is
# checked again), and why.
ACCEPTED = {
    "psycopg": (
        "LGPL-3.0-only",
        "Django's PostgreSQL driver, imported unmodified; the LGPL asks nothing of the code "
        "that uses a library",
    ),
    "psycopg-binary": ("LGPL-3.0-only", "psycopg's compiled part, as psycopg"),
    "uritemplate": (
        "BSD 3-Clause OR Apache-2.0",
        "drf-spectacular's URI templates, under either of two permissive licences; its "
        "metadata spells BSD-3-Clause with a space, which is no SPDX identifier",
    ),
    "certifi": (
        "Mozilla Public License 2.0 (MPL 2.0)",
        "Mozilla's CA certificates, which requests (single sign-on's HTTP, through "
        "django-allauth) verifies TLS with; used unmodified, and the MPL's copyleft is per "
        "file, asking nothing of the code that uses them",
    ),
    "pyphen": (
        "GNU General Public License v2 or later (GPLv2+); GNU Lesser General Public License v2 "
        "or later (LGPLv2+); Mozilla Public License 1.1 (MPL 1.1)",
        "WeasyPrint's hyphenation, offered under any of the three: taken under MPL 1.1 or "
        "LGPL 2.1+, unmodified",
    ),
}

TOKEN = re.compile(r"\(|\)|[^\s()]+")


def allowed(licence):
    """Return True when a licence, as pip-licenses reports it, is on the allow-list.

    Args:
        licence: an SPDX expression, or licence classifiers' names joined by ``"; "``.

    Returns:
        True for an expression that holds with ``ALLOWED``'s identifiers (operators in any
        case), or classifiers that are all in ``ALLOWED``; False for anything else, an
        expression that does not parse included.
    """
    names = licence.split("; ")
    if all(name in ALLOWED for name in names):
        return True
    tokens = TOKEN.findall(licence)
    try:
        value, rest = _any_of(tokens)
    except (IndexError, ValueError):
        return False
    return not rest and value


def _any_of(tokens):
    """Parse ``term (OR term)*`` from the front of ``tokens``; return its value and the rest."""
    value, tokens = _all_of(tokens)
    while tokens and tokens[0].upper() == "OR":
        other, tokens = _all_of(tokens[1:])
        value = value or other
    return value, tokens


def _all_of(tokens):
    """Parse ``licence (AND licence)*``; return its value and the rest."""
    value, tokens = _licence(tokens)
    while tokens and tokens[0].upper() == "AND":
        other, tokens = _licence(tokens[1:])
        value = value and other
    return value, tokens


def _licence(tokens):
    """Parse ``( expression )`` or ``identifier [WITH exception]``; return its value and the
    rest.

    Raises:
        IndexError: the tokens end too early.
        ValueError: a parenthesis or an operator is out of place.
    """
    first, tokens = tokens[0], tokens[1:]
    if first == "(":
        value, tokens = _any_of(tokens)
        if tokens[0] != ")":
            raise ValueError("unclosed parenthesis")
        return value, tokens[1:]
    if first == ")" or first.upper() in ("AND", "OR", "WITH"):
        raise ValueError(f"unexpected {first}")
    if tokens and tokens[0].upper() == "WITH":
        if len(tokens) < 2:
            raise ValueError("WITH names no exception")
        tokens = tokens[2:]
    return first in ALLOWED, tokens


def canonical(name):
    """Return a package's name as PyPI compares names (PEP 503): lower case, runs of
    ``-``, ``_`` and ``.`` made one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def refused(packages, pins):
    """Return why packages are refused, one line each, in the order of ``pins``.

    Args:
        packages: pip-licenses' JSON rows (``Name``, ``Version``, ``License``).
        pins: the lock's package names.

    Returns:
        A line for each pin whose licence is neither allowed nor accepted for it, or that
        pip-licenses did not report; empty when all are allowed.
    """
    licences = {canonical(row["Name"]): row["License"] for row in packages}
    lines = []
    for pin in pins:
        name = canonical(pin)
        licence = licences.get(name)
        if licence is None:
            lines.append(f"{name}: not installed, so its licence is unknown")
        elif not allowed(licence) and ACCEPTED.get(name, (None,))[0] != licence:
            lines.append(f"{name}: {licence}")
    return lines


def pins_of(lock):
    """Return the package names a pip-compile lock pins, in order."""
    return re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", lock, re.MULTILINE)


def main():
    """Check pip-licenses' JSON on standard input against the lock named by the argument."""
    with open(sys.argv[1]) as lock:
        pins = pins_of(lock.read())
    lines = refused(json.load(sys.stdin), pins)
    for line in lines:
        print(f"refused: {line}")
    print(f"{len(pins) - len(lines)} of {len(pins)} packages of {sys.argv[1]} allowed")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
