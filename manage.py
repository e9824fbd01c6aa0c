#!/usr/bin/env python
"""Run Django's command-line utility for the curriculum wiki."""

import os
import sys


def main():
    """Run the management command named on the command line."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wiki.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
