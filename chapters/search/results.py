"""What a search finds: the nodes, best first, and how many, for a ``Paginator``."""

__all__ = ["Found"]


class Found:
    """The nodes a query finds, best first, with their number when it is known already.

    A backend that ranks in a query of its own (``chapters.search.sqlite``) learns the
    number of matches there, so the ``Paginator`` need not count them again. Everything but
    :meth:`count` and slicing is the queryset's (``values_list()``, ``exists()``, ...).

    Args:
        nodes: a lazy queryset of the nodes, in order.
        count: their number, or None to let the queryset count them.
    """

    def __init__(self, nodes, count=None):
        self.nodes = nodes
        self._count = count

    def count(self):
        """Return the number of nodes found."""
        return self.nodes.count() if self._count is None else self._count

    def empty(self):
        """Return True when nothing is found (without a query when the number is known)."""
        return self._count == 0 if self._count is not None else not self.nodes.exists()

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        return self.nodes[index]

    def __iter__(self):
        return iter(self.nodes)

    def __getattr__(self, name):
        return getattr(self.nodes, name)
