"""The reader's pages: the home page with the table of contents, and one page per node."""

from django.shortcuts import get_object_or_404, render

from . import navigation
from .models import Node


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
