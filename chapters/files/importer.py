"""A folder of Markdown files into the tree: nodes added, changed, moved and (when asked)
deleted to match it, all or nothing, through the write path every edit takes.

Everything is one write to the tree (:func:`~chapters.models.tree_write`), whose lock is
taken before it reads the tree; nodes are written by ``Node.save()``,
``NodeManager.move_node()`` and ``Node.delete()``, which check the tree's rules again.
Each node written gets one revision, "Imported" (the command's names the folder and its git
commit). A dry run does all of it, then rolls it
back.
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from mptt.exceptions import InvalidMove

from ..curriculum_file import date_latest_revision, tree_position
from ..markdown import MarkdownError
from ..media.transfer import MediaImportError, import_media
from ..models import Node, tree_write
from ..permissions import PUBLISHED, holds_published
from .export import MEDIA
from .folder import FolderError
from .frontmatter import normalize_body
from .reading import read_folder

__all__ = ["REASON", "Change", "ImportResult", "import_folder"]

REASON = "Imported"
# How the summaries of the import commands start (``chapters.management.importing``), and
# those of curriculum files (``chapters.curriculum_file``): imports, not edits on the site.
IMPORTED = f"{REASON} from "
# What an import compares and writes besides the body and the node's place.
CONTENT_FIELDS = ("title", "slug", "kind", "status")


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
class ImportResult:
    """What an import did: the changes in order, the nodes left unchanged, and the nodes of
    the folder's part of the tree that are not in the folder and were kept."""

    changes: list
    unchanged: int
    kept: int


def import_folder(
    files,
    *,
    delete=False,
    dry_run=False,
    use_ids=True,
    publish=True,
    request=None,
    user=None,
    summary=REASON,
):
    """Make the tree match a folder of Markdown files (see ``chapters.files``).

    Each file's entry is matched to a node by its ``id`` when a node has it, otherwise by
    its place: the node with its slug under the node its parent entry matched (for the
    top of ``SUMMARY.md``, under the wiki's section its folder is in). A matched node is
    updated and moved to the entry's place when they differ; an entry matching no node is
    added, with the file's ``id`` as its primary key when no node ever had that key (so an
    export imported into an empty wiki exports the same files). Siblings end up in
    ``SUMMARY.md``'s order. Nodes that are not in the folder are kept, or deleted with
    ``delete``: every node of the wiki for a whole wiki's folder, the nodes under its one
    section for a section's folder. A node is dated by the file's ``updated`` when it is new
    or the file's date is later than its latest revision, and now otherwise. A file dated
    before a change made on the site leaves that change alone, and one that changes the same
    fields is refused (``_Import._not_stale``). The media library's files in ``media/`` are
    imported first (``chapters.media.transfer``), so the pages placing them find them.

    Args:
        files: a dict of relative paths to bytes (:mod:`.folder`).
        delete: delete the nodes that are not in the folder.
        dry_run: do everything, then roll it back.
        use_ids: match and create nodes by the files' ``id``; false to match by place only,
            for a folder exported from another database.
        publish: whether the importer may publish (``permissions.can_publish``). When
            false, an import that would add a published page, publish one, or change, move
            or delete a published page (or a section with published pages under it) is
            refused, naming each such page: the review workflow (``chapters.edit.workflow``)
            has no pending change for an import, and an editor's import must not go live
            unreviewed.
        request: the request importing, if any: the revisions' author and the address
            e-mail links to (``tree_write``).
        user: the revisions' author, where there is no request (``manage.py
            import_markdown --user``), or None.
        summary: the revisions' summary: :data:`REASON`, or the command's "Imported from
            <folder>" with its git commit (``chapters.management.importing``); it must start
            with :data:`REASON`, as the stale rule knows imports by it (``_Import._not_stale``).

    Returns:
        An :class:`ImportResult`.

    Raises:
        FolderError: the folder cannot be read, or does not fit the tree, or (without
            ``publish``) would change what readers see; its problems name each file and
            line. Nothing is written.
    """
    prefix = f"{MEDIA}/"
    media = {
        path.removeprefix(prefix): data for path, data in files.items() if path.startswith(prefix)
    }
    outline, problems = read_folder(
        {path: files[path] for path in files if not path.startswith(prefix)}
    )
    if problems:
        raise FolderError(problems)
    bodies = [entry.body for entry in outline.entries]
    with tree_write(request=request, user=user, bodies=bodies):
        run = _Import(outline, delete=delete, use_ids=use_ids, publish=publish, reason=summary)
        if run.problems:
            raise FolderError(run.problems)
        try:
            done = import_media(media, dry_run=dry_run)
        except MediaImportError as error:
            raise FolderError([f"{prefix}{problem}" for problem in error.problems]) from error
        run.changes.extend(
            Change("added", f"{prefix}{name}")
            if action == "added"
            else Change("changed", f"{prefix}{name}", "replaced")
            for action, name in done
        )
        try:
            run.apply()
        except (ValidationError, InvalidMove, MarkdownError) as error:
            messages = error.messages if isinstance(error, ValidationError) else [str(error)]
            raise FolderError([f"{run.current}: {' '.join(messages)}"]) from error
        if run.unpublishable:
            raise FolderError(run.unpublishable)
        if dry_run:
            transaction.set_rollback(True)
        elif run.explicit_ids:
            _advance_sequence()
        return ImportResult(run.changes, run.unchanged, len(run.unmatched) if not delete else 0)


class _Import:
    """One import's state: the tree as read under the lock, the matches, what was written."""

    def __init__(self, outline, *, delete, use_ids, publish, reason=REASON):
        self.entries, self.delete, self.use_ids = outline.entries, delete, use_ids
        self.reason = reason
        self.publish, self.unpublishable = publish, []
        self.problems, self.changes, self.unchanged = [], [], 0
        self.current, self.explicit_ids = "", False
        rows = Node.objects.values_list("pk", "parent_id", "slug", "path", "kind")
        self.nodes = {pk: (parent, slug, path, kind) for pk, parent, slug, path, kind in rows}
        self.by_place = {(parent, slug): pk for pk, (parent, slug, _, _) in self.nodes.items()}
        self.by_path = {path: pk for pk, (_, _, path, _) in self.nodes.items()}
        self.matched, self.placed, self.siblings = {}, {}, {}
        for entry in self.entries:
            self.siblings.setdefault((id(entry.parent), entry.location), []).append(entry)
        self._match()
        self.unmatched = self._unmatched(outline.section)

    def _location(self, entry):
        """Return the pk of the wiki's section a top-level entry's folder is in (None for an
        area), recording a problem when there is none."""
        if not entry.location:
            return None
        pk = self.by_path.get(entry.location)
        if pk is None or self.nodes[pk][3] != Node.Kind.SECTION:
            self.problems.append(
                f"{entry.at()}: is in the folder “{entry.location}”, but the wiki has no "
                "section at that path."
            )
        return pk

    def _match(self):
        if self.use_ids:
            for entry in self.entries:
                if entry.id in self.nodes:
                    self.matched[entry] = entry.id
        claimed = set(self.matched.values())
        for entry in self.entries:
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

    def _unmatched(self, section):
        """Return the pks, in tree order, of the nodes of the folder's part of the tree that no
        entry matched."""
        if section is None:
            scope = list(self.nodes)
        else:
            top = next((e for e in self.entries if e.parent is None), None)
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

    def apply(self):
        """Write: deletions that free slugs, matched entries, new entries, the rest of the
        deletions (sections whose matched nodes have moved out)."""
        holding = set()
        for pk in self.matched.values():
            holding.update(Node(path=self.nodes[pk][2]).ancestor_paths())
        if self.delete:
            self._delete([pk for pk in self.unmatched if self.nodes[pk][2] not in holding])
        for entry in self.entries:
            if entry in self.matched:
                self._update(entry)
        for entry in self.entries:
            self._ensure(entry)
        if self.delete:
            self._delete(self.unmatched)

    def _refuse(self, where, what):
        """Record a write that needs someone who may publish, when the importer may not."""
        if not self.publish:
            self.unpublishable.append(
                f"{where}: {what} Only a reviewer may publish pages or change published ones."
            )

    def _ensure(self, entry):
        """Return the entry's node, adding it first when it is new."""
        if entry not in self.placed:
            self._add(entry)
        return self.placed[entry]

    def _parent(self, entry):
        """Return the node the entry goes under, fresh from the database, or None."""
        if entry.parent is not None:
            parent = self._ensure(entry.parent)
        elif entry.location:
            parent = Node(pk=self.by_path[entry.location])
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

    def _update(self, entry):
        node = Node.objects.get(pk=self.matched[entry])
        self.current, old_path = entry.at(), node.path
        parent = self._parent(entry)
        previous = self._previous(entry)
        changed = [
            name
            for name in CONTENT_FIELDS
            if getattr(entry, name) is not None and getattr(node, name) != getattr(entry, name)
        ]
        if normalize_body(node.body) != entry.body:
            changed.append("body")
        if changed and entry.updated is not None:
            changed = self._not_stale(node, entry, changed)
        move = None
        if node.parent_id != (parent.pk if parent is not None else None):
            move = (previous, "right") if previous is not None else self._first_place(parent, node)
        elif previous is not None and tree_position(node) < tree_position(previous):
            move = (previous, "right")
        if not changed and move is None:
            self.placed[entry] = node
            self.unchanged += 1
            return
        if node.status == PUBLISHED:
            self._refuse(entry.at(), f"it changes the published page /{old_path}/.")
        elif "status" in changed and entry.status == PUBLISHED:
            self._refuse(entry.at(), f"it publishes /{old_path}/.")
        elif (move is not None or "slug" in changed) and holds_published(node):
            self._refuse(entry.at(), f"it moves /{old_path}/, with published pages under it.")
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

    def _not_stale(self, node, entry, changed):
        """Return the fields of ``changed`` the file changes, leaving out those it would only
        put back as they were before someone changed the page on the site.

        A file dated by ``updated`` was exported from the node's revision of that date (its
        base). When someone has saved the page on the site since (a revision after that date
        that is not an import's), each field is compared with the base on both sides: one
        the file leaves as it was is the site's to keep (a stale export never undoes an edit
        made since); one only the file changed is imported; one both changed is a conflict,
        refused, and the message says how to settle it (docs/editing.md, "Keeping the
        curriculum in files"). Without a base (the page's first revision is later than the
        file's date) every field of ``changed`` counts as changed on both sides.

        Raises:
            ValidationError: the file and the site both changed a field since its date.
        """
        since = Node.history.filter(id=node.pk, history_date__gt=entry.updated)
        imports = Q(history_change_reason=REASON) | Q(history_change_reason__startswith=IMPORTED)
        edit = since.exclude(imports).select_related("history_user").first()
        if edit is None:
            return changed
        base = Node.history.filter(id=node.pk, history_date__lte=entry.updated).first()
        if base is None:
            return self._stale(node, entry, edit, changed)

        def value(source, name):
            found = getattr(source, name)
            return normalize_body(found) if name == "body" else found

        files = [name for name in changed if value(base, name) != getattr(entry, name)]
        both = [name for name in files if value(base, name) != value(node, name)]
        if both:
            self._stale(node, entry, edit, both)
        return files

    @staticmethod
    def _stale(node, entry, edit, fields):
        """Refuse a file that changes ``fields``, which the site's ``edit`` changed since."""
        who = f" by {edit.history_user}" if edit.history_user else ""
        raise ValidationError(
            f"“{node.title}” was changed on the site{who} at "
            f"{edit.history_date:%Y-%m-%d %H:%M:%S %Z}, after this file's “updated” "
            f"({entry.updated:%Y-%m-%d %H:%M:%S %Z}), and the file changes its "
            f"{', '.join(fields)} too. Export it again and make your change there, or "
            "delete the file's “updated” line to replace the site's change."
        )

    def _add(self, entry):
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
        )
        free = entry.id is not None and self.use_ids and entry.id not in self.nodes
        if free and not Node.history.filter(id=entry.id).exists():
            node.pk, self.explicit_ids = entry.id, True
        node.validate_placement(parent)
        target, position = (
            (previous, "right") if previous is not None else self._first_place(parent)
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


def _advance_sequence():
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
