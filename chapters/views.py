"""The reader's pages: the home page, one page per node, and the search page."""

from django.core.paginator import Paginator
from django.http import QueryDict
from django.shortcuts import get_object_or_404, render

from . import navigation, search
from .forms import SearchForm
from .models import Node

RESULTS_PER_PAGE = 20


def home(request):
    """Render the wiki's title and the full table of contents."""
    return render(request, "chapters/home.html", {"toc": navigation.table_of_contents()})


def node_detail(request, path):
    """Render the section or chapter stored at ``path``, or answer 404."""
    node = get_object_or_404(Node, path=path)
    context = {
        "node": node,
        "ancestors": navigation.breadcrumb(node),
        "toc": navigation.table_of_contents(),
    }
    if node.is_chapter:
        context["previous"], context["next"] = navigation.neighbours(node)
        return render(request, "chapters/chapter.html", context)
    context["children"] = node.get_children()
    return render(request, "chapters/section.html", context)


def search_results(request):
    """Render the search form and, for a query, a page of results; answer 400 for bad filters.

    An empty query shows the form only. A page number that is not a number or is past the end
    shows the first or the last page (``Paginator.get_page``).
    """
    form = SearchForm(request.GET)
    if not form.is_valid():
        return render(request, "chapters/search.html", {"form": form}, status=400)
    query, area, status = (form.cleaned_data[name] for name in ("q", "area", "status"))
    context = {"form": form, "search_query": query}
    if query:
        nodes = search.find_nodes(query, area=area, status=status)
        page = Paginator(nodes, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
        ancestors = navigation.breadcrumbs(page)
        context["page"] = page
        context["results"] = [
            {"node": node, "ancestors": ancestors[node.pk], "snippet": search.snippet(node, query)}
            for node in page
        ]
        context["params"] = QueryDict(mutable=True)
        context["params"].update({key: value for key, value in form.cleaned_data.items() if value})
    return render(request, "chapters/search.html", context)
