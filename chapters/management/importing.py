"""What the import commands (``import_markdown``, ``import_curriculum``) share: the user they
import as (``--user``) and the summary their revisions get, naming the source and, when it
is in a git work tree, its commit."""

import subprocess
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

__all__ = ["add_user_argument", "git_commit", "import_summary", "import_user"]

# How long ``git rev-parse`` may take before the import goes on without the commit.
GIT_TIMEOUT = 10


def add_user_argument(parser):
    """Add ``--user <username>``, the author of the import's revisions, to ``parser``."""
    parser.add_argument(
        "--user",
        metavar="USERNAME",
        help="The user recorded as the author of the revisions (none by default).",
    )


def import_user(username):
    """Return the user named ``username``, or None for None.

    Raises:
        CommandError: no user has that name; the import must not start.
    """
    if username is None:
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"There is no user “{username}”; nothing was imported.")
    return user


def git_commit(folder):
    """Return the commit checked out in the git work tree holding ``folder``, or None.

    ``git rev-parse HEAD`` run in ``folder``: None when the folder is in no work tree, the
    repository has no commit yet, or git is not installed or does not answer in
    :data:`GIT_TIMEOUT` seconds; an import never fails for want of git.

    Args:
        folder: a ``Path`` to a directory.
    """
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def import_summary(name, folder):
    """Return the revisions' summary: "Imported from <name>", and " at <commit>" when
    ``folder`` is in a git work tree (:func:`git_commit`).

    Args:
        name: how the summary names the source (the folder, or the file).
        folder: a ``Path``: the directory whose commit is recorded.
    """
    commit = git_commit(Path(folder))
    return f"Imported from {name}" + (f" at {commit}" if commit else "")
