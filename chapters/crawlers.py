"""What the wiki tells search engines' crawlers: ``robots.txt`` and the sitemap.

The sitemap is Django's sitemaps framework (``django.contrib.sitemaps``): the home page and
every node's page, drafts included (every node's page is public), in tree order, each with
its ``updated`` as ``lastmod``. A sitemap holds at most 50,000 URLs (``Sitemap.limit``, the
protocol's limit: https://www.sitemaps.org/protocol.html#index); past that, ``/sitemap.xml``
becomes Django's sitemap index, naming ``/sitemap-nodes.xml``, ``/sitemap-nodes.xml?p=2``
and so on. Reading every node for each request would cost a crawler's visit a read of the
whole tree, so each answer is kept in Django's cache under the version of the pages
(``chapters.caching``) until the next edit.
"""

import hashlib
from functools import wraps

from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as sitemap_views
from django.core.cache import cache
from django.db.models import Max
from django.http import Http404, HttpResponse
from django.urls import reverse

from .caching import version
from .models import Node

__all__ = [
    "DISALLOWED",
    "SITEMAPS",
    "HomeSitemap",
    "NodeSitemap",
    "kept_per_version",
    "latest_update",
    "robots_txt",
    "sitemap_section",
    "sitemap_xml",
]

# The paths crawlers are asked to leave alone; everything else is public and allowed (the
# pages, recent changes, the feeds, the static files pages need to be drawn).
DISALLOWED = [
    "/admin/",  # the editors' interface: crawlers only ever reach its sign-in page
    "/search/",  # results for any query: endless URLs repeating the pages' own text
    "/diff/",  # comparisons of any two revisions: a number of URLs growing as edits squared
    "/history/",  # each page's list of revisions: changes with every edit, no text of its own
    "/revisions/",  # old texts of the pages, which would be found beside the current ones
    "/dashboard/",  # staff only: a redirect to the admin's sign-in page
    "/links/",  # the broken links (/links/broken/), staff only too
]


def latest_update():
    """Return when a node was last changed (its ``updated``), or None without nodes."""
    return Node.objects.aggregate(latest=Max("updated"))["latest"]


class HomeSitemap(Sitemap):
    """The home page, which shows the whole tree: changed when a node last was."""

    def items(self):
        return ["chapters:home"]

    def location(self, item):
        return reverse(item)

    def lastmod(self, item):
        return latest_update()


class NodeSitemap(Sitemap):
    """Every node's page, in tree order, changed at its ``updated``."""

    def items(self):
        return Node.objects.only("path", "updated")

    def lastmod(self, node):
        return node.updated

    def get_latest_lastmod(self):
        """Return the latest ``updated``, for the sitemap index, with one query."""
        return latest_update()


SITEMAPS = {"home": HomeSitemap, "nodes": NodeSitemap}


def robots_txt(request):
    """Answer ``/robots.txt``: all agents, the ``DISALLOWED`` paths, the sitemap's URL.

    The sitemap's URL must be a full URL (the sitemaps protocol's ``Sitemap:`` line,
    https://www.sitemaps.org/protocol.html#submit_robots); it has the request's scheme and
    host.
    """
    lines = [
        "User-agent: *",
        *(f"Disallow: {path}" for path in DISALLOWED),
        "",
        f"Sitemap: {request.build_absolute_uri(reverse('chapters:sitemap'))}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


def kept_per_version(view):
    """Keep ``view``'s 200 answers in Django's cache under the version of the pages.

    The key is the request's scheme, host and path (the sitemap's URLs are absolute, as the
    request's) and its page ``p``, the only parameter Django's sitemap views read; a ``p``
    that is not a number is not kept (Django answers it 404).

    Args:
        view: a view answering a ``TemplateResponse``.

    Returns:
        The decorated view.
    """

    @wraps(view)
    def serve(request, *args, **kwargs):
        page = request.GET.get("p", "1")
        if not (page.isascii() and page.isdigit()):
            return view(request, *args, **kwargs)
        url = f"{request.build_absolute_uri(request.path)}?p={int(page)}"
        key = f"crawlers:{hashlib.sha256(url.encode()).hexdigest()}"
        response = cache.get(key, version=version(request))
        if response is None:
            response = view(request, *args, **kwargs).render()
            if response.status_code == 200:
                cache.set(key, response, version=version(request))
        return response

    return serve


@kept_per_version
def sitemap_xml(request):
    """Answer ``/sitemap.xml``: the sitemap, or the sitemap index past ``Sitemap.limit``.

    Raises:
        Http404: a page ``p`` of the index, which has one (every ``p`` would be kept).
    """
    if any(sitemap().paginator.num_pages > 1 for sitemap in SITEMAPS.values()):
        if "p" in request.GET:
            raise Http404("The sitemap index has one page.")
        return sitemap_views.index(request, SITEMAPS, sitemap_url_name="chapters:sitemap-section")
    return sitemap_views.sitemap(request, SITEMAPS)


@kept_per_version
def sitemap_section(request, section):
    """Answer ``/sitemap-<section>.xml``: one section's sitemap, a page of it by ``?p=``."""
    return sitemap_views.sitemap(request, SITEMAPS, section=section)
