"""The media library as a folder of files, for exports, imports and backups.

The folder holds each item's current file under its name, and ``media.json``, the list of
items (name, kind, title, alt text) in name order, sorted keys, two spaces of indent, UTF-8
and a final newline, so the same library always gives the same bytes::

    media.json
    fusion-diagram.png
    lecture-notes.pdf

The Markdown folder keeps it as its ``media/`` folder (``chapters.files``);
``export_curriculum --media DIR`` writes it beside the curriculum file and
``import_curriculum --media DIR`` reads it back. Earlier versions of replaced files are not
in it: a backup of the database and of ``MEDIA_ROOT`` keeps them (docs/operations.md).

An import goes through the library's own checks (``chapters.media.uploads``): an item of a
name the library lacks is added under that name, an item whose file differs is replaced (a
new version), the same file changes nothing.
"""

import json

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from ..models import MediaItem
from . import uploads

__all__ = ["MANIFEST", "MediaImportError", "export_media", "import_media"]

MANIFEST = "media.json"
FIELDS = ("alt", "kind", "name", "title")


class MediaImportError(Exception):
    """A media folder that cannot be imported; ``problems`` lists every reason."""

    def __init__(self, problems):
        super().__init__("\n".join(problems))
        self.problems = problems


def export_media(items=None):
    """Return the media folder of ``items`` (every item when None): names to bytes.

    Raises:
        FileNotFoundError: an item's file is missing from the storage.
    """
    items = MediaItem.objects.order_by("name") if items is None else items
    files, manifest = {}, []
    for item in items:
        with default_storage.open(item.file.name) as handle:
            files[item.name] = handle.read()
        manifest.append({field: getattr(item, field) for field in FIELDS})
    if not manifest:
        return {}
    text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    files[MANIFEST] = text.encode("utf-8")
    return files


def import_media(files, *, uploader=None, dry_run=False):
    """Add or replace the library's items from a media folder (names to bytes).

    Call it inside a transaction: on a problem, nothing should be kept of what it wrote.

    Args:
        files: the folder's files, ``media.json`` among them (no ``media.json``: nothing to
            import).
        uploader: the user the items are uploaded as.
        dry_run: check every file as an upload would be checked, and store nothing.

    Returns:
        ``[(action, name), ...]``, action "added" or "replaced", for the items written.

    Raises:
        MediaImportError: ``media.json`` cannot be read, names a file the folder lacks, or a
            file is refused; every problem is listed.
    """
    if MANIFEST not in files:
        return []
    try:
        manifest = json.loads(files[MANIFEST].decode("utf-8"))
        entries = [{field: str(entry[field]) for field in FIELDS} for entry in manifest]
    except (UnicodeDecodeError, ValueError, TypeError, KeyError) as error:
        raise MediaImportError([f"{MANIFEST} cannot be read: {error}."]) from error
    existing = {
        item.name: item for item in MediaItem.objects.filter(name__in=[e["name"] for e in entries])
    }
    done, problems = [], []
    for entry in entries:
        name = entry["name"]
        if name not in files:
            problems.append(f"{MANIFEST} names “{name}”, which is not in the folder.")
            continue
        upload = ContentFile(files[name], name=name)
        item = existing.get(name)
        try:
            if item is not None and _stored_bytes(item) == files[name]:
                continue
            if dry_run:
                uploads.inspect(upload)
            elif item is None:
                uploads.add(
                    upload, title=entry["title"], alt=entry["alt"], uploader=uploader, name=name
                )
            else:
                uploads.replace(item, upload, uploader=uploader)
        except ValidationError as error:
            problems.append(f"{name}: {' '.join(error.messages)}")
            continue
        done.append(("added" if item is None else "replaced", name))
    if problems:
        raise MediaImportError(problems)
    return done


def _stored_bytes(item):
    """Return the bytes of ``item``'s current file, or None when the storage lacks it."""
    try:
        with default_storage.open(item.file.name) as handle:
            return handle.read()
    except FileNotFoundError:
        return None
