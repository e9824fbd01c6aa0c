"""A folder of Markdown files into the tree: nodes added, changed, moved and (when asked)
deleted to match it, all or nothing, through the write path every edit takes.

The folder is read into entries (:mod:`.reading`), which the import engine
(``chapters.imports.engine``) writes in one write to the tree; the media library's files go
first. Each node written gets one revision, "Imported" (the command's names the folder and
its git commit). A dry run does all of it, then rolls it back.
"""

from dataclasses import dataclass

from django.db import transaction

from ..imports.engine import Change, ImportRefused, Policy, TreeImport, advance_sequence
from ..imports.stale import REASON
from ..media.transfer import MediaImportError, import_media
from ..models import tree_write
from .export import MEDIA
from .folder import FolderError
from .frontmatter import normalize_body
from .reading import read_folder

__all__ = ["REASON", "Change", "ImportResult", "import_folder"]


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
    fields is refused (``chapters.imports.stale``). The media library's files in ``media/`` are
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
            with :data:`REASON`, as the stale rule knows imports by it (``chapters.imports.stale``).

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
        run = TreeImport(summary, Policy(delete, use_ids, publish, as_written=normalize_body))
        run.match(outline.entries, outline.section)
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
        except ImportRefused as error:
            raise FolderError(error.problems) from error
        if run.unpublishable:
            raise FolderError(run.unpublishable)
        if dry_run:
            transaction.set_rollback(True)
        elif run.explicit_ids:
            advance_sequence()
        return ImportResult(run.changes, run.unchanged, len(run.unmatched) if not delete else 0)
