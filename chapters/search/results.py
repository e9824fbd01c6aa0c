"""What a search finds: the nodes, best first, and how many, for a ``Paginator``."""

from functools import cached_property

__all__ = ["Found", "FoundLater"]


class Found:
    """The nodes a query finds, best first, with their number when it is known already.

    A backend that ranks in a query of its own learns the number of matches there, so the
    ``Paginator`` need not count them again. Everything but :meth:`count` and slicing is the
    queryset's (``values_list()``, ``exists()``, ...).

    Args:
        nodes: a lazy queryset of the nodes, in order, or a function that makes it: building
            the queryset of a search compiles its expressions, which costs more than a
            search (bench/README.md, "Search"), so it is made only when a slice past the
            ranked nodes, or the queryset itself, is asked for.
        count: their number, or None to let the queryset count them.
        every: False when they match some terms of the query only, as no node matched
            them all (``chapters.search.find_nodes``).
        few: True when, besides, half of the query's terms or more are found nowhere: a
            correction is tried first (``chapters.search.answer``).
        ranked: the ids of the first nodes in order, when the backend ranked them apart: a
            slice within them is read by id, without ordering every match again.
        by_id: the queryset the ranked nodes are read from by id (the nodes searched,
            without the query's conditions, which the ranking applied already).
        first_slice: True when ``ranked`` were ranked among a first slice of the nodes
            only (``postgresql_sql.first_slice``): a page past them is read from the
            queryset less the ranked nodes, so that no node is shown twice.
    """

    ordered = True  # for the Paginator, which warns about unordered lists

    def __init__(
        self,
        nodes,
        count=None,
        *,
        every=True,
        few=False,
        ranked=None,
        by_id=None,
        first_slice=False,
    ):
        self._nodes = nodes
        self._count = count
        self.every = every
        self.few = few
        self._ranked = ranked
        self._by_id = by_id
        self._first_slice = first_slice

    @cached_property
    def nodes(self):
        """Return the lazy queryset of the nodes, in order (made on first use)."""
        return self._nodes() if callable(self._nodes) else self._nodes

    def count(self):
        """Return the number of nodes found (counted once)."""
        if self._count is None:
            self._count = self.nodes.count()
        return self._count

    def empty(self):
        """Return True when nothing is found (without a query when the number is known)."""
        return self._count == 0 if self._count is not None else not self.nodes.exists()

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        ranked = self._ranked
        if isinstance(index, slice) and ranked is not None and index.step is None:
            start, stop = index.start or 0, index.stop
            every_ranked = len(ranked) == self._count
            if stop is not None and start >= 0 and (stop <= len(ranked) or every_ranked):
                return self._read(ranked[start:stop])
            if stop is not None and start >= 0 and self._first_slice:
                rest = self.nodes.exclude(pk__in=ranked)
                past = rest[max(start - len(ranked), 0) : stop - len(ranked)]
                return self._read(ranked[start:stop]) + list(past)
        return self.nodes[index]

    def _read(self, ids):
        """Return the nodes of ``ids``, in their order (one query, none for no ids)."""
        if not ids:
            return []
        nodes = self.nodes if self._by_id is None else self._by_id
        by_id = {node.pk: node for node in nodes.filter(pk__in=ids).order_by()}
        return [by_id[pk] for pk in ids]

    def __iter__(self):
        return iter(self.nodes)

    def __getattr__(self, name):
        return getattr(self.nodes, name)


class FoundLater:
    """A :class:`Found` made when first used: what is known before is kept apart.

    The nodes with some of a query's terms, when half of its terms or more are found
    nowhere (``few``), are replaced by a correction's whenever there is one
    (``chapters.search.answer``): ranking them first cost as much as a search (at 20,000
    nodes, "memory heirarchy" ranked every node holding "memory").

    Args:
        find: a function returning the :class:`Found`.
        every: as :class:`Found`'s, known beforehand.
        few: as :class:`Found`'s, known beforehand.
    """

    ordered = True

    def __init__(self, find, *, every, few):
        self._find = find
        self.every = every
        self.few = few

    @cached_property
    def found(self):
        """Return the :class:`Found` (made on first use)."""
        return self._find()

    def __len__(self):
        return len(self.found)

    def __getitem__(self, index):
        return self.found[index]

    def __iter__(self):
        return iter(self.found)

    def __getattr__(self, name):
        if name.startswith("_") or name == "found":
            raise AttributeError(name)
        return getattr(self.found, name)
