"""The ranking rules both databases share: the order's keys, and the counts they compare.

docs/search.md ("Ranking") states the rules and where they come from. :mod:`.postgresql`
aliases the keys of :data:`ORDER` on its nodes, with its own conditions for "matches a
term" and its own ``relevance``; :mod:`.sqlite` writes the same keys as SQL
(``sqlite.RANKED``), since compiling them from Django's expressions cost more than running
the query.
"""

from functools import reduce
from operator import add

from django.db.models import Case, IntegerField, Q, Value, When
from django.db.models.functions import Length

__all__ = ["ORDER", "count_met", "partial_title_length"]

# The keys, most significant first: a title equal to the query; more of the query's terms
# matched; more of them in the title; a heading equal to the query; more of its pairs of
# words side by side; more of its terms in a heading; the relevance; a shorter title among
# those holding some terms but not all; tree order.
ORDER = (
    "-title_is_query",
    "-coverage",
    "-title_coverage",
    "-heading_is_query",
    "-adjacent",
    "-heading_coverage",
    "relevance",
    "title_length",
    "tree_id",
    "lft",
)


def count_met(conditions):
    """Return how many of ``conditions`` (``Q`` objects) a node meets, as an expression."""
    if not conditions:
        return Value(0)
    return reduce(
        add,
        (
            Case(When(condition, then=Value(1)), default=Value(0), output_field=IntegerField())
            for condition in conditions
        ),
    )


def partial_title_length(every_term):
    """Return the length of a title that holds some terms of the query but not all, else 0.

    Of two titles holding as many of the query's words, the shorter says less about
    anything else: BM25's normalization by a field's length (Robertson and Zaragoza, 2009),
    as a key of its own so that both databases compare it alike.

    Args:
        every_term: the number of the query's terms.
    """
    partial = Q(title_coverage__gt=0) & Q(title_coverage__lt=every_term)
    return Case(When(partial, then=Length("title")), default=Value(0))
