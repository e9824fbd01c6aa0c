"""A node's prerequisites as an import gives them: the paths its entry names, made the ids
the node stores (``Node.requires``, ``chapters.models.prerequisites``).

:class:`Requiring` is the part of :class:`~.engine.TreeImport` that resolves them. A path
names a page of the import (an entry, at the path the import gives it) or a page of the tree
that the import leaves where it is. An entry's prerequisites are written with its other
fields, in its one revision, when every page they name exists by then; one naming a page the
import adds later gets them in a second save once every entry is written.
"""

from django.core.exceptions import ValidationError

from ..models import Node

__all__ = ["Requiring"]


class Requiring:
    """Prerequisites resolved to ids; a mixin of ``TreeImport``.

    It reads the import's ``entries``, ``placed`` (the nodes written, by entry) and
    ``tree`` (:class:`~.matching.Matches`), and sets ``current`` (where a refusal is).
    """

    def _requires(self, entry):
        """Return the ids of the pages ``entry``'s ``requires`` names; None when it gives
        none, or names a page the import adds later (the entry is then kept in
        ``deferred``). A resolved list replaces the paths in ``entry.requires``.

        Raises:
            ValidationError: a path names no page, in the import or in the tree.
        """
        if entry.requires is None or all(isinstance(pk, int) for pk in entry.requires):
            return entry.requires
        by_path = {each.path: each for each in self.entries}
        stored = dict(Node.objects.filter(path__in=entry.requires).values_list("path", "pk"))
        ids = []
        for path in entry.requires:
            named = by_path.get(path)
            if named in self.placed:
                ids.append(self.placed[named].pk)
            elif named in self.tree.matched:
                ids.append(self.tree.matched[named])
            elif named is not None:
                self.deferred.append(entry)
                return None
            elif path in stored:
                ids.append(stored[path])
            else:
                self.current = entry.at("requires")
                raise ValidationError(f"“requires” names “{path}”, where there is no page.")
        entry.requires = ids
        return ids

    def _deferred_requires(self):
        """Give the entries that named pages added after them their prerequisites."""
        for entry in self.deferred:
            node = Node.objects.get(pk=self.placed[entry].pk)
            requires = self._requires(entry)
            if requires != node.requires:
                node.requires, self.current = requires, entry.at("requires")
                node._change_reason = self.reason
                node.save()
