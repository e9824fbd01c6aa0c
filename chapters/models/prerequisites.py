"""Prerequisites: the chapters a chapter builds on, in the order to read them.

A chapter stores them as a list of node ids (``Node.requires``), so that a rename or a move
of a prerequisite keeps it. The list is part of the chapter's revisions, as its body is:
which chapters a text builds on is said by its writer together with the text, so a revert
restores the list the text was written against, a review shows it changed, and the history
says who changed it.

The rules (:class:`PrerequisiteRules`, checked by ``Node.save()`` under the tree's lock and
by the admin's ``clean()``): only a chapter has prerequisites; each is a chapter, named once,
and was a node when it was added; and no chapter comes, through its prerequisites, before
itself: a list that would make a cycle is refused, its message naming the cycle
("“A” → “B” → “A”"). A prerequisite deleted later stays in the list, as a broken link stays
in a body: the chapter's pages leave it out, and the broken-links report lists it
(:func:`missing_prerequisites`) until someone edits the list or restores the page (a restored
node keeps its id, so the prerequisite comes back).
"""

from types import SimpleNamespace

from django.apps import apps
from django.core.exceptions import ValidationError

__all__ = [
    "REQUIRES_KIND",
    "PrerequisiteRules",
    "find_cycle",
    "missing_prerequisites",
    "prerequisite_edges",
    "requires_shape_problem",
]

# The ``kind`` of a missing prerequisite's row in the broken-links report.
REQUIRES_KIND = "requires"


def requires_shape_problem(requires):
    """Return why ``requires`` is not a list of distinct node ids, as a sentence; else None.

    Args:
        requires: the value of a node's ``requires``, as stored or read from a file.
    """
    if not isinstance(requires, list) or not all(
        isinstance(pk, int) and not isinstance(pk, bool) and pk > 0 for pk in requires
    ):
        return "“requires” is not a list of node ids."
    if len(set(requires)) != len(requires):
        return "“requires” names a chapter more than once."
    return None


def prerequisite_edges(using=None):
    """Return every stored node's prerequisites: ``{pk: [pk, ...]}`` of the nodes with some
    (one query)."""
    nodes = apps.get_model("chapters", "Node").objects.using(using)
    return {pk: requires for pk, requires in nodes.values_list("pk", "requires") if requires}


def find_cycle(edges, start):
    """Return a cycle of prerequisites through ``start``, as a list of ids from ``start`` back
    to it; None when there is none.

    A depth-first search from ``start`` along ``edges`` (``{pk: [pk, ...]}``), following each
    list in order, so the cycle named is the first one the lists lead to.
    """
    path, seen = [start], set()

    def walk(pk):
        for target in edges.get(pk, ()):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                path.append(target)
                if found := walk(target):
                    return found
                path.pop()
        return None

    return walk(start)


class PrerequisiteRules:
    """The checks of a node's ``requires``; a mixin of ``Node`` (by ``NodeRules``)."""

    def validate_requires(self):
        """Check the node's prerequisites against the stored tree (see the module's rules).

        Called by ``save()`` under the write's lock, and by ``clean()``.

        Raises:
            ValidationError: keyed by ``requires``: not a list of distinct ids, a section
                with prerequisites, a prerequisite that is a section or (newly added) no
                node, or a cycle, named as "“A” → “B” → “A”".
        """
        if problem := requires_shape_problem(self.requires):
            raise ValidationError({"requires": problem[0].upper() + problem[1:]})
        if not self.requires:
            return
        if not self.is_chapter:
            raise ValidationError({"requires": "Only a chapter has prerequisites."})
        nodes = type(self).objects
        found = dict(nodes.filter(pk__in=self.requires).values_list("pk", "kind"))
        stored = nodes.filter(pk=self.pk).values_list("requires", flat=True).first() or []
        for pk in self.requires:
            if pk not in found and pk not in stored:
                raise ValidationError({"requires": f"No page has the id {pk}."})
        titles = dict(nodes.filter(pk__in=self.requires).values_list("pk", "title"))
        for pk, kind in found.items():
            if kind != self.Kind.CHAPTER:
                raise ValidationError(
                    {"requires": f"“{titles[pk]}” is a section; a prerequisite is a chapter."}
                )
        if self.pk is None:
            return
        edges = prerequisite_edges(self._state.db)
        edges[self.pk] = self.requires
        if cycle := find_cycle(edges, self.pk):
            names = dict(nodes.filter(pk__in=cycle).values_list("pk", "title"))
            names[self.pk] = self.title
            chain = " → ".join(f"“{names[pk]}”" for pk in cycle)
            raise ValidationError({"requires": f"These prerequisites would make a cycle: {chain}."})


def missing_prerequisites(area=None):
    """Return the prerequisites that name a deleted node, for the broken-links report, in the
    chapters' tree order: rows with ``source``, ``kind`` (:data:`REQUIRES_KIND`), ``text``
    (the deleted node's last title) and ``problem``. One query; one more when a chapter has
    prerequisites, and another when one of them is missing.

    Args:
        area: an area (a root node) to keep to, or None for the whole tree.
    """
    Node = apps.get_model("chapters", "Node")
    sources = Node.objects.exclude(requires=[]).only(
        "pk", "title", "path", "requires", "tree_id", "lft"
    )
    if area is not None:
        sources = sources.filter(tree_id=area.tree_id)
    sources = list(sources)
    wanted = {pk for source in sources for pk in source.requires}
    present = set(Node.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    if not wanted - present:
        return []
    revisions = Node.history.filter(id__in=wanted - present).order_by("history_id")
    last_titles = dict(revisions.values_list("id", "title"))
    return [
        SimpleNamespace(
            source=source,
            kind=REQUIRES_KIND,
            text=last_titles.get(pk, f"#{pk}"),
            problem=f"The prerequisite “{last_titles.get(pk, pk)}” was deleted.",
        )
        for source in sources
        for pk in source.requires
        if pk not in present
    ]
