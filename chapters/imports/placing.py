"""Where the import engine puts a node: under which node, after which sibling.

:class:`Placing` is the part of :class:`~.engine.TreeImport` that finds a node's parent and
its place among its siblings from the entries already written, so that siblings end up in
the entries' order.
"""

from ..models import Node

__all__ = ["Placing"]


class Placing:
    """A node's parent and place among its siblings; a mixin of ``TreeImport``.

    It reads the import's ``siblings`` (entries by parent), ``placed`` (the nodes written,
    by entry), ``tree`` (:class:`~.matching.Matches`) and its policy's ``new_first``, and calls its
    ``_ensure``.
    """

    def _parent(self, entry):
        """Return the node the entry goes under, fresh from the database, or None."""
        if entry.parent is not None:
            parent = self._ensure(entry.parent)
        elif entry.location:
            parent = Node(pk=self.tree.by_path[entry.location])
        else:
            return None
        return Node.objects.get(pk=parent.pk)

    def _previous(self, entry):
        """Return the node of the nearest sibling before the entry that is written already."""
        group = self.siblings[(id(entry.parent), entry.location)]
        before = group[: group.index(entry)]
        return next((self.placed[e] for e in reversed(before) if e in self.placed), None)

    def _first_place(self, parent, node=None):
        """Return ``(target, position)`` for the first place under ``parent`` (None: the top)."""
        if parent is not None:
            return parent, "first-child"
        first = Node.objects.filter(parent=None).exclude(pk=getattr(node, "pk", None)).first()
        return (first, "left") if first is not None else (None, "last-child")

    def _new_place(self, entry, parent):
        """Return ``(target, position)`` for a new node without a sibling before it."""
        if self.policy.new_first == "first":
            return self._first_place(parent)
        group = self.siblings[(id(entry.parent), entry.location)]
        later = group[group.index(entry) + 1 :]
        following = next((e for e in later if e in self.tree.matched), None)
        return (self.placed[following], "left") if following is not None else (None, None)
