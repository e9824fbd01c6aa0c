"""The search page's areas: the filter's options and the links to browse, kept per version.

The search page offers every area twice: as the options of its form's area menu, and, when
nothing is found, as links to browse. A wiki may have hundreds of areas, and rendering an
option or a link per area through Django's templates costs more than the search itself.
Both are the same for every query, so they are rendered once per version of the pages and
kept in Django's cache, as the table of contents is (``chapters.contents``); the menu's
choice is marked by inserting ``selected`` into the kept options.
"""

from dataclasses import dataclass

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.safestring import mark_safe

from ..models import Node

__all__ = ["Areas", "search_areas"]

# The cache key of the areas (an Areas), under the version of the pages.
AREAS_KEY = "search-areas"


@dataclass(frozen=True)
class Areas:
    """The areas as the search page shows them.

    Attributes:
        choices: ``(slug, title)`` of every area (root node), in tree order: the form's
            choices.
        options: the area menu's ``<option>`` elements, "All areas" first, none selected
            (``chapters/_search_area_options.html``).
        links: a ``<li>`` with a link per area (``chapters/_search_area_links.html``).
    """

    choices: tuple
    options: str
    links: str

    def options_for(self, selected):
        """Return the menu's options with the option of ``selected`` marked, as safe HTML.

        Args:
            selected: the slug of a chosen area, or "" for all areas (also when the form's
                area was refused: the menu then shows "All areas", as a browser shows a
                menu in which no option is selected).

        Returns:
            The kept options, which the template escaped, with ``selected`` added to one.
        """
        option = f'<option value="{escape(selected)}">'
        return mark_safe(self.options.replace(option, option[:-1] + " selected>", 1))


def search_areas(version):
    """Return the :class:`Areas` of the pages' ``version``, from the cache or rendered.

    Args:
        version: the version of the pages (``chapters.caching.version``).

    Returns:
        An :class:`Areas`; building it costs one query.
    """
    areas = cache.get(AREAS_KEY, version=version)
    if areas is None:
        choices = tuple(Node.objects.root_nodes().values_list("slug", "title"))
        areas = Areas(
            choices=choices,
            options=render_to_string("chapters/_search_area_options.html", {"areas": choices}),
            links=render_to_string("chapters/_search_area_links.html", {"areas": choices}),
        )
        cache.set(AREAS_KEY, areas, version=version)
    return areas
