"""The import engine: entries written into the tree, all or nothing, through the write path
every edit takes.

Both formats (``chapters.curriculum_file``, ``chapters.files``) hand their checked entries
(:mod:`.entries`) to a :class:`TreeImport` inside one write to the tree
(:func:`~chapters.models.tree_write`), whose lock is taken before anything of the tree is
read. It matches them to nodes (:mod:`.matching`), then writes through ``Node.save()``,
``NodeManager.move_node()`` and ``Node.delete()``, which check the tree's rules again: each
node written gets one revision with the import's summary, dated by the entry's ``updated``
when the node is new or that date is later than its latest revision, and now otherwise.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection
from mptt.exceptions import InvalidMove

from ..markdown import MarkdownError
from ..models import Node
from ..permissions import PUBLISHED, holds_published
from .matching import Matches
from .placing import Placing
from .requiring import Requiring
from .stale import not_stale

__all__ = [
    "Change",
    "ImportRefused",
    "Policy",
    "TreeImport",
    "advance_sequence",
    "date_latest_revision",
    "tree_position",
]

# What an import compares and writes besides the body and the node's place.
CONTENT_FIELDS = ("title", "slug", "kind", "status")


class ImportRefused(Exception):
    """A write of the import refused by the tree's rules; ``problems`` names the entry."""

    def __init__(self, problems):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Change:
    """One node an import wrote: "added", "changed", "moved" or "deleted", its path (the
    new one), and what changed."""

    action: str
    path: str
    detail: str = ""

    def __str__(self):
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.action} {self.path}{detail}"


@dataclass(frozen=True)
class Policy:
    """What a format asks of the engine.

    Attributes:
        delete: delete the nodes of the part of the tree read that no entry matched.
        use_ids: match entries by their ``id`` first, and give a new node its entry's
            ``id`` when no node ever had it.
        publish: whether the importer may publish; when false, each write that would
            change what readers see is listed in ``unpublishable`` (``chapters.files``).
        as_written: the format's body as it would write a stored one: a node whose body
            reads the same is unchanged.
        keep_site_edits: apply the stale rule (:mod:`.stale`) to entries with a date.
        new_first: where a new node without a sibling before it goes: "first" (the first
            child, or the first area), or "before_next" (before the next sibling the tree
            holds, else the last child).
    """

    delete: bool = False
    use_ids: bool = True
    publish: bool = True
    as_written: Callable[[str], str] = str
    keep_site_edits: bool = True
    new_first: str = "first"


class TreeImport(Placing, Requiring):
    """One import's writes, under the tree's lock: what was matched, written and refused.

    Args:
        reason: the revisions' summary.
        policy: the format's :class:`Policy`.
    """

    def __init__(self, reason, policy):
        self.reason, self.policy = reason, policy
        self.tree = Matches()
        self.entries, self.unmatched, self.unpublishable = [], [], []
        self.changes, self.unchanged, self.placed, self.siblings = [], 0, {}, {}
        self.current, self.explicit_ids = "", False
        self.deferred = []

    @property
    def problems(self):
        """Return the entries' problems found while matching them."""
        return self.tree.problems

    def match(self, entries, section=None):
        """Match ``entries`` (in their order, each parent before its children) to the tree.

        Args:
            entries: the checked entries.
            section: the path of the section the entries are of, for a folder of one
                section; None for the whole tree.
        """
        self.entries = entries
        for entry in entries:
            self.siblings.setdefault((id(entry.parent), entry.location), []).append(entry)
        self.tree.match(entries, use_ids=self.policy.use_ids)
        self.unmatched = self.tree.unmatched(entries, section)

    def apply(self):
        """Write: deletions that free slugs, matched entries, new entries, the rest of the
        deletions (sections whose matched nodes have moved out).

        Raises:
            ImportRefused: the tree's rules refused a write; it names the entry.
        """
        try:
            self._apply()
        except (ValidationError, InvalidMove, MarkdownError) as error:
            messages = error.messages if isinstance(error, ValidationError) else [str(error)]
            raise ImportRefused([f"{self.current}: {' '.join(messages)}"]) from error

    def _apply(self):
        holding = set()
        for pk in self.tree.matched.values():
            holding.update(Node(path=self.tree.nodes[pk][2]).ancestor_paths())
        if self.policy.delete:
            self._delete([pk for pk in self.unmatched if self.tree.nodes[pk][2] not in holding])
        for entry in self.entries:
            if entry in self.tree.matched:
                self._update(entry)
        for entry in self.entries:
            self._ensure(entry)
        self._deferred_requires()
        if self.policy.delete:
            self._delete(self.unmatched)

    def _refuse(self, where, what):
        """Record a write that needs someone who may publish, when the importer may not."""
        if not self.policy.publish:
            self.unpublishable.append(
                f"{where}: {what} Only a reviewer may publish pages or change published ones."
            )

    def _ensure(self, entry):
        """Return the entry's node, adding it first when it is new."""
        if entry not in self.placed:
            self._add(entry)
        return self.placed[entry]

    def _update(self, entry):
        """Update and move the entry's matched node where they differ."""
        node = Node.objects.get(pk=self.tree.matched[entry])
        self.current, old_path = entry.at(), node.path
        parent = self._parent(entry)
        previous = self._previous(entry)
        changed = [
            name
            for name in CONTENT_FIELDS
            if getattr(entry, name) is not None and getattr(node, name) != getattr(entry, name)
        ]
        if self.policy.as_written(node.body) != entry.body:
            changed.append("body")
        requires = self._requires(entry)
        if requires is not None and requires != node.requires:
            changed.append("requires")
        if changed and entry.updated is not None and self.policy.keep_site_edits:
            changed = not_stale(node, entry, changed, self.policy.as_written)
        move = None
        if node.parent_id != (parent.pk if parent is not None else None):
            move = (previous, "right") if previous is not None else self._first_place(parent, node)
        elif previous is not None and tree_position(node) < tree_position(previous):
            move = (previous, "right")
        if not changed and move is None:
            self.placed[entry] = node
            self.unchanged += 1
            return
        self._refuse_update(entry, node, changed, move)
        newer = entry.updated is not None and entry.updated > node.updated
        for name in changed:
            setattr(node, name, getattr(entry, name))
        node._change_reason = self.reason
        if move is not None:
            Node.objects.move_node(node, *move)
        else:
            node.save()
        if newer:
            date_latest_revision(node, entry.updated)
        self.placed[entry] = node
        detail = ", ".join(changed)
        if node.path != old_path:
            self.changes.append(
                Change("moved", node.path, f"from {old_path}; {detail}".rstrip("; "))
            )
        elif move is not None:
            self.changes.append(Change("moved", node.path, ", ".join([*changed, "order"])))
        else:
            self.changes.append(Change("changed", node.path, detail))

    def _refuse_update(self, entry, node, changed, move):
        """Record an update that changes what readers see, when the importer may not."""
        if node.status == PUBLISHED:
            self._refuse(entry.at(), f"it changes the published page /{node.path}/.")
        elif "status" in changed and entry.status == PUBLISHED:
            self._refuse(entry.at(), f"it publishes /{node.path}/.")
        elif (move is not None or "slug" in changed) and holds_published(node):
            self._refuse(entry.at(), f"it moves /{node.path}/, with published pages under it.")

    def _add(self, entry):
        """Add the entry's node in its place."""
        parent = self._parent(entry)
        previous = self._previous(entry)
        self.current = entry.at()
        if entry.status == PUBLISHED:
            self._refuse(entry.at(), f"it adds “{entry.title}”, published.")
        node = Node(
            parent=parent,
            title=entry.title,
            slug=entry.slug,
            kind=entry.kind,
            status=entry.status or Node.Status.DRAFT,
            body=entry.body,
            requires=self._requires(entry) or [],
        )
        free = entry.id is not None and self.policy.use_ids and entry.id not in self.tree.nodes
        if free and not Node.history.filter(id=entry.id).exists():
            node.pk, self.explicit_ids = entry.id, True
        node.validate_placement(parent)
        target, position = (
            (previous, "right") if previous is not None else self._new_place(entry, parent)
        )
        if target is not None:
            node.insert_at(target, position)
        node._change_reason = self.reason
        node.save(force_insert=node.pk is not None)
        if entry.updated is not None:
            date_latest_revision(node, entry.updated)
        self.placed[entry] = node
        self.changes.append(Change("added", node.path))

    def _delete(self, pks):
        """Delete the nodes of ``pks`` that are still there (a section takes its nodes along)."""
        for node in Node.objects.filter(pk__in=pks):
            if not Node.objects.filter(pk=node.pk).exists():
                continue
            self.current = f"deleting {node.path}"
            if holds_published(node):
                self._refuse(
                    f"/{node.path}/",
                    "it is not in the folder, so the import deletes it, and it is published or "
                    "has published pages under it.",
                )
            under = node.get_descendant_count()
            node._change_reason = self.reason
            node.delete()
            detail = f"with {under} page{'s' if under != 1 else ''} under it" if under else ""
            self.changes.append(Change("deleted", node.path, detail))


def tree_position(node):
    """Return the node's place in tree order as stored: ``(tree_id, lft)``."""
    return Node.objects.filter(pk=node.pk).values_list("tree_id", "lft").get()


def date_latest_revision(node, when):
    """Date the node's latest revision, and its ``updated``, ``when`` instead of now.

    ``Node.save()`` dates every save now; an import keeps its entries' dates.
    """
    Node.objects.filter(pk=node.pk).update(updated=when)
    revision = Node.history.filter(id=node.pk).order_by("-history_id").values("pk").first()
    Node.history.filter(pk=revision["pk"]).update(history_date=when, updated=when)


def advance_sequence():
    """Move PostgreSQL's sequence of node ids past the ids an import gave; SQLite's
    ``AUTOINCREMENT`` follows them by itself. Never moves it back."""
    if connection.vendor != "postgresql":
        return
    table = Node._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(s, GREATEST(nextval(s), (SELECT MAX(id) FROM {table}))) "
            f"FROM pg_get_serial_sequence(%s, 'id') AS s",
            [table],
        )
