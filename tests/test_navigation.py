"""The tree in memory: ``cache_trees`` against django-mptt's ``get_cached_trees``."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chapters.models import Node, cache_trees


def shape(roots):
    """Return each node's pk, its parent's pk and its children's pks, walking from ``roots``."""
    rows, stack = [], list(reversed(roots))
    while stack:
        node = stack.pop()
        children = list(node.get_children())
        rows.append((node.pk, node.parent.pk if node.parent else None, [c.pk for c in children]))
        stack.extend(reversed(children))
    return rows


@pytest.mark.django_db
def test_cache_trees_links_the_curriculum_as_django_mptt_does(curriculum):
    ours = cache_trees(Node.objects.for_navigation())
    with CaptureQueriesContext(connection) as queries:
        walked = shape(ours)
        area = next(root for root in ours if root.title == "ML Systems")
        section = next(c for c in area.get_children() if c.title == "ML Compilers")
        ancestors = [a.title for a in section.get_children()[0].get_ancestors()]
    assert len(queries) == 0
    assert walked == shape(Node.objects.for_navigation().get_cached_trees())
    assert len(walked) == Node.objects.count() == 222
    assert ancestors == ["ML Systems", "ML Compilers"]


@pytest.mark.django_db
def test_cache_trees_makes_roots_of_nodes_whose_parent_is_left_out(small_tree):
    roots = cache_trees(Node.objects.filter(level__gte=1))
    assert [root.title for root in roots] == ["Section A1", "Section A2", "Section B1"]
    chapters = [chapter.title for chapter in roots[0].get_children()]
    assert chapters == ["Chapter One", "Chapter Two", "Chapter Three"]
