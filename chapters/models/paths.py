"""Where a node is: its stored path, its ancestors' paths, and its place read again under the
tree's lock.

:class:`NodePaths` is the part of ``Node`` (:mod:`.node`) that its ``save()`` uses to work
from the tree as stored rather than from a possibly stale instance: the tree fields read
again (:meth:`NodePaths.refresh_tree_fields`), the path built from the parent's stored one,
and the descendants' paths rewritten in one ``UPDATE`` when the node's path changed.
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Value
from django.db.models.functions import Concat, Substr

from .tree import TREE_FIELDS, set_mptt_memory

__all__ = ["PLACEMENT_FIELDS", "NodePaths"]

# The fields of a parent that the tree's rules read (validate_placement), besides its place.
PLACEMENT_FIELDS = ("kind", "title", "path")


class NodePaths:
    """A node's path and place in the tree as stored; a mixin of ``Node``.

    It reads and writes nodes through the node's own model (``type(self).objects``).
    """

    def natural_key(self):
        """Return the node's path, its natural key (``NodeManager.get_by_natural_key``): what
        names a node in dumps made with ``--natural-foreign``, as in the curriculum file."""
        return (self.path,)

    def ancestor_paths(self):
        """Return the stored paths of this node's ancestors, from the top, without a query.

        An ancestor's path is a prefix of this node's path ending at a slash.
        """
        parts = self.path.split("/")
        return ["/".join(parts[:end]) for end in range(1, len(parts))]

    def _rewrite_descendant_paths(self, old_path):
        """Move the stored paths of this node's descendants from ``old_path`` to its path.

        One ``UPDATE`` replacing the prefix, as Wagtail rewrites its pages' ``url_path``
        (``wagtail.models.Page._update_descendant_url_paths``). The descendants are found by
        their nested-set fields as stored after the save, not by the prefix: SQLite's
        ``LIKE`` ignores case, so a prefix would also match a section whose slug differs
        only in case.

        Args:
            old_path: the node's path before the save; None for a node just added, whose
                descendants are none.

        Returns:
            A mapping of each descendant's old path to its primary key.
        """
        if old_path is None:
            return {}
        tree_id, lft, rght = (
            type(self).objects.filter(pk=self.pk).values_list("tree_id", "lft", "rght").get()
        )
        descendants = type(self).objects.filter(tree_id=tree_id, lft__gt=lft, rght__lt=rght)
        moved = dict(descendants.values_list("path", "pk"))
        if moved:
            rest = Substr("path", len(old_path) + 1)
            descendants.update(path=Concat(Value(self.path), rest, output_field=models.TextField()))
        return moved

    def refresh_tree_fields(self):
        """Read this node's place in the tree, and its parent's, from the database again.

        django-mptt inserts and moves by the nested-set numbers in memory (the node's and its
        parent's), and takes a save for a move when ``parent`` differs from the parent the
        instance was loaded with; another process may have changed both since. Called after
        the write's lock, this makes the save work from the tree as it is: the node's tree
        fields and its parent's are the stored ones, and a save moves the node only if its
        stored parent differs from ``parent``.

        Returns:
            False if the node has a primary key but is not stored (it was deleted meanwhile,
            or is being restored with its old key), and then nothing is read; True otherwise.

        Raises:
            ValidationError: the parent is no longer stored.
        """
        if self.pk is not None:
            stored = type(self).objects.filter(pk=self.pk).values("parent_id", *TREE_FIELDS).first()
            if stored is None:
                return False
            set_mptt_memory(self, loaded_parent=stored.pop("parent_id"))
            for field, value in stored.items():
                setattr(self, field, value)
        if self.parent_id is not None:
            try:
                self.parent.refresh_from_db(fields=[*TREE_FIELDS, *PLACEMENT_FIELDS])
            except type(self).DoesNotExist:
                raise ValidationError(
                    {"parent": f"The section “{self.parent.title}” no longer exists."}
                ) from None
        return True

    def build_path(self):
        """Return the URL path from the parent's stored path and this node's slug."""
        if self.parent_id is None:
            return self.slug
        parent_path = type(self).objects.filter(pk=self.parent_id).values_list("path", flat=True)
        return f"{parent_path.get()}/{self.slug}"
