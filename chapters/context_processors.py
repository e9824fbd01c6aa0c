"""What every page's template may name: the wiki's name and description.

Both are settings (``WIKI_NAME``, ``WIKI_DESCRIPTION`` in ``wiki/settings.py``), so that
another wiki changes them there rather than in templates.
"""

from django.conf import settings

__all__ = ["wiki"]


def wiki(request):
    """Return ``wiki_name`` and ``wiki_description`` from the settings, for every template."""
    return {"wiki_name": settings.WIKI_NAME, "wiki_description": settings.WIKI_DESCRIPTION}
