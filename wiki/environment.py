"""Reading settings from the environment: shared by wiki/settings.py and wiki/signin.py."""

import os

__all__ = ["env_flag"]


def env_flag(name, default=False):
    """Return the boolean value of the environment variable ``name``.

    Args:
        name: the variable's name.
        default: the value when the variable is unset or empty.

    Returns:
        True for ``1``, ``true``, ``yes`` or ``on`` (any case), False for anything else.
    """
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value in {"1", "true", "yes", "on"}
