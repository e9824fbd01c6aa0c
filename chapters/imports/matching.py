"""Which node of the tree each entry of an import is: matched by id, else by its place.

Read under the tree's lock by the import engine (:mod:`.engine`), from the tree's rows.
"""

from ..models import Node

__all__ = ["Matches"]


class Matches:
    """The tree's nodes as one import reads them under the lock, and the entries matched to
    them.

    Attributes:
        nodes: ``{pk: (parent pk, slug, path, kind)}`` of every node.
        by_path: ``{path: pk}``.
        matched: ``{entry: pk}`` of the entries that are a node of the tree.
        problems: entries placed under a path where the wiki has no section.
    """

    def __init__(self):
        rows = Node.objects.values_list("pk", "parent_id", "slug", "path", "kind")
        self.nodes = {pk: (parent, slug, path, kind) for pk, parent, slug, path, kind in rows}
        self.by_place = {(parent, slug): pk for pk, (parent, slug, _, _) in self.nodes.items()}
        self.by_path = {path: pk for pk, (_, _, path, _) in self.nodes.items()}
        self.matched, self.problems = {}, []

    def match(self, entries, *, use_ids):
        """Match each entry to a node: by its ``id`` when a node has it (with ``use_ids``),
        otherwise by its place, the node with its slug under the node its parent entry
        matched (for an entry without one, under the section at its ``location``). A node is
        matched to one entry at most."""
        if use_ids:
            for entry in entries:
                if entry.id in self.nodes:
                    self.matched[entry] = entry.id
        claimed = set(self.matched.values())
        for entry in entries:
            if entry.parent is None:
                parent = self._location(entry)
            elif entry.parent in self.matched:
                parent = self.matched[entry.parent]
            else:
                continue
            pk = self.by_place.get((parent, entry.slug))
            if entry not in self.matched and pk is not None and pk not in claimed:
                self.matched[entry] = pk
                claimed.add(pk)

    def _location(self, entry):
        """Return the pk of the wiki's section an entry without a parent entry goes under
        (None for an area), recording a problem when there is none."""
        if not entry.location:
            return None
        pk = self.by_path.get(entry.location)
        if pk is None or self.nodes[pk][3] != Node.Kind.SECTION:
            self.problems.append(
                f"{entry.at()}: is in the folder “{entry.location}”, but the wiki has no "
                "section at that path."
            )
        return pk

    def unmatched(self, entries, section):
        """Return the pks, in tree order, of the nodes of the part of the tree read that no
        entry matched: the whole tree, or with ``section`` (a path) the subtree of the node
        the first top entry matched."""
        if section is None:
            scope = list(self.nodes)
        else:
            top = next((e for e in entries if e.parent is None), None)
            if top not in self.matched:
                return []
            path = self.nodes[self.matched[top]][2]
            scope = [
                pk
                for pk, (_, _, p, _) in self.nodes.items()
                if p == path or p.startswith(f"{path}/")
            ]
        taken = set(self.matched.values())
        return [pk for pk in scope if pk not in taken]
