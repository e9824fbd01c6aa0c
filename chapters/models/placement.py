"""Where a node may stand in the tree: under which parent, beside which siblings, how deep.

:class:`PlacementRules` is the half of :class:`~.rules.NodeRules` that reads the other
nodes: ``Node.save()`` checks it under the tree's lock (:meth:`PlacementRules.validate_in_tree`),
imports before they write (:meth:`PlacementRules.validate_placement`), and ``check_tree()``
without a query (:meth:`PlacementRules.check_placement`). The limits of a path, and the
top-level slugs the site's own URLs take, are here too: a place is refused by them.
"""

from urllib.parse import quote

from django.core.exceptions import ValidationError
from django.db.models import Max
from django.db.models.functions import Length

__all__ = [
    "PATH_MAX_LENGTH",
    "PATH_URL_MAX_LENGTH",
    "REQUEST_LINE_MAX_LENGTH",
    "RESERVED_ROOT_SLUGS",
    "PlacementRules",
]

# First path segments that belong to other URLs of the project (see wiki/urls.py and
# chapters/urls.py): a top-level node with one of these slugs could never be reached.
RESERVED_ROOT_SLUGS = frozenset(
    {
        "admin", "static", "history", "revisions", "diff", "recent", "feeds", "search",
        "dashboard", "links", "preview", "healthz", "books", "edit", "new", "review", "drafts",
        "watch", "print", "media", "contents", "metrics", "api", "notifications",
        "outline", "accounts", "diagrams", "progress", "discuss", "discussion",
        "prerequisites",
    }
)  # fmt: skip

PATH_MAX_LENGTH = 1000

# Every page's URL must fit in the request line a server accepts, whatever script its slugs
# are in: gunicorn's limit_request_line at its maximum (wiki/gunicorn.conf.py) holds "HEAD "
# (GET's is shorter), the longest URL a node has, "/history/<path>/?page=<n>", and
# " HTTP/1.1". In a URL, the path is UTF-8 and percent-encoded: an ASCII letter takes one
# byte, a Cyrillic one 6, a Chinese one 9, and one beyond the Basic Multilingual Plane 12.
REQUEST_LINE_MAX_LENGTH = 8190
PATH_URL_MAX_LENGTH = REQUEST_LINE_MAX_LENGTH - len("HEAD /history//?page=999999 HTTP/1.1")


class PlacementRules:
    """The checks of a node's place in the tree; a mixin of ``Node`` (by ``NodeRules``).

    They read the other nodes through the node's own model (``type(self).objects``).
    """

    def validate_placement(self, parent):
        """Check that this node may live under ``parent``, asking the database about siblings.

        Args:
            parent: the prospective parent node, or None for the top level.

        Raises:
            ValidationError: (keyed by field) for the rules of :meth:`check_placement`, or
                when the node's path or a descendant's would grow longer than the column, or
                longer than ``PATH_URL_MAX_LENGTH`` in a URL.
        """
        siblings = type(self).objects.filter(parent=parent).exclude(pk=self.pk)
        self.check_placement(parent, set(siblings.values_list("slug", flat=True)))
        depth_gain = len(parent.path) + 1 if parent is not None else 0
        stored_path, descendants = self.stored_descendants()
        longest = len(self.slug)
        if descendants is not None:
            stored = descendants.aggregate(longest=Max(Length("path")))["longest"]
            longest += stored - len(stored_path)
        if depth_gain + longest > PATH_MAX_LENGTH:
            raise ValidationError(
                {"parent": f"The page's address would grow past {PATH_MAX_LENGTH} characters."}
            )
        # Encoded, a character takes at most 12 bytes: the paths are read only when they
        # could be too long for a URL.
        if 12 * (depth_gain + longest) > PATH_URL_MAX_LENGTH:
            tails = [""]
            if descendants is not None:
                paths = descendants.values_list("path", flat=True)
                tails += [path[len(stored_path) :] for path in paths]
            prefix = f"{parent.path}/" if parent is not None else ""
            encoded = len(quote(prefix + self.slug)) + max(len(quote(tail)) for tail in tails)
            if encoded > PATH_URL_MAX_LENGTH:
                raise ValidationError(
                    {
                        "slug": f"The page's address would take {encoded:,} bytes in a URL, "
                        f"past the {PATH_URL_MAX_LENGTH:,} a server accepts (a letter beyond "
                        "ASCII takes 6 to 12): shorten its slug or its sections' slugs."
                    }
                )

    def stored_descendants(self):
        """Return this node's stored path and its stored descendants, found by the nested-set
        fields as stored (one query by key; the descendants are a queryset, unevaluated).

        Not by the path's prefix: SQLite's ``LIKE`` ignores case, so a prefix would also
        match a section whose slug differs only in case, and it reads every node there.

        Returns:
            ``(path, queryset)``; ``(None, None)`` for a node without descendants, not saved,
            or no longer stored.
        """
        nodes = type(self).objects
        fields = ("path", "tree_id", "lft", "rght")
        stored = nodes.filter(pk=self.pk).values_list(*fields).first() if self.pk else None
        if stored is None or stored[3] - stored[2] == 1:
            return None, None
        path, tree_id, lft, rght = stored
        return path, nodes.filter(tree_id=tree_id, lft__gt=lft, rght__lt=rght)

    def check_placement(self, parent, sibling_slugs):
        """Check the tree's rules for this node under ``parent``, without a query.

        Args:
            parent: the prospective parent node, or None for the top level.
            sibling_slugs: the slugs of the other children of ``parent``.

        Raises:
            ValidationError: (keyed by field) when ``parent`` is this node or one of its
                descendants, when ``parent`` is a chapter, when this node is a chapter and
                ``parent`` is None, when a top-level slug is reserved, or when a sibling
                already has this slug.
        """
        if parent is not None and parent.is_descendant_of(self, include_self=True):
            raise ValidationError(
                {"parent": "A node cannot be moved under itself or one of its descendants."}
            )
        if parent is not None and parent.is_chapter:
            raise ValidationError(
                {"parent": f"“{parent.title}” is a chapter; chapters cannot have children."}
            )
        if parent is None and self.is_chapter:
            raise ValidationError({"parent": "A chapter must belong to a section."})
        if parent is None and self.slug in RESERVED_ROOT_SLUGS:
            raise ValidationError({"slug": f"“{self.slug}” is reserved for the site's own URLs."})
        if self.slug and self.slug in sibling_slugs:
            raise ValidationError({"slug": f"A sibling already uses the slug “{self.slug}”."})

    def validate_in_tree(self):
        """Check the tree's rules for this node where it is about to be saved.

        Called by :meth:`save` under the write's lock and after :meth:`refresh_tree_fields`, so
        that it sees the tree as the save will change it: the rules of
        :meth:`validate_placement` under the node's parent, and that a chapter has no
        children.

        Raises:
            ValidationError: (keyed by field) the node may not be saved where it is.
        """
        self.validate_placement(self.parent if self.parent_id is not None else None)
        stored = self.pk is not None and not self._state.adding
        if self.is_chapter and stored and type(self).objects.filter(parent_id=self.pk).exists():
            raise ValidationError({"kind": "This node has children, so it must stay a section."})
