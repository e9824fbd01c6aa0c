"""Folders of files on disk and in ZIP archives, read within limits and written exactly.

A folder is held as a dict of relative paths (``/``-separated, Unicode NFC) to bytes. Only
the Markdown files (``.md``) and the files of the ``media/`` folder (the media library,
``chapters.media.transfer``) are read, a media file up to ``MEDIA_MAX_SIZE``; other files
are counted against the limits and left alone. Hidden files and folders (``.git``) and
the ``__MACOSX`` folder macOS puts into ZIPs are skipped.

A ZIP is refused whole, before anything of it is extracted, when an entry's name is absolute
or climbs out with ``..``, an entry is a symbolic link or encrypted, it has more than
``MAX_FILES`` entries, or its files would unpack to more than ``MAX_BYTES`` (a ZIP bomb
declares small sizes and unpacks to huge ones: reading stops at the declared size, and
Python's ``zipfile`` then finds the checksum wrong). A folder on disk is refused for a
symbolic link, which could also make a cycle of folders.
"""

import io
import os
import stat
import unicodedata
import zipfile
from pathlib import Path

from django.conf import settings

__all__ = [
    "MAX_BYTES",
    "MAX_FILES",
    "MAX_MARKDOWN_BYTES",
    "FolderError",
    "read_directory",
    "read_zip",
    "write_directory",
    "zip_folder",
]

MAX_FILES = 50_000
MAX_BYTES = 256 * 1024 * 1024
# A body is at most 100,000 characters, four bytes each at most, plus its front matter.
MAX_MARKDOWN_BYTES = 1024 * 1024
SKIPPED = ("__MACOSX",)
# 1980-01-01, the earliest date a ZIP holds: every export gives the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class FolderError(Exception):
    """A folder or ZIP that cannot be read or written; ``problems`` lists every reason."""

    def __init__(self, problems):
        super().__init__("\n".join(problems))
        self.problems = problems


def _skipped(parts):
    """Return True for a path whose parts include a hidden or skipped name."""
    return any(part.startswith(".") or part in SKIPPED for part in parts)


def _is_markdown(path):
    return path.endswith(".md")


def _is_media(path):
    """Return True for a file of the media folder (``media/<name>``, chapters.media.transfer)."""
    return path.startswith("media/") and path.count("/") == 1


def _too_large(path, size, media):
    """Return why a Markdown file, or a media file (``media``), of ``size`` bytes is refused,
    or None."""
    limit = settings.MEDIA_MAX_SIZE if media else MAX_MARKDOWN_BYTES
    return f"{path} is larger than {limit:,} bytes." if size > limit else None


def read_directory(directory):
    """Read the Markdown files of a folder on disk.

    Args:
        directory: a ``Path``.

    Returns:
        A dict of relative paths to bytes.

    Raises:
        FolderError: the folder does not exist, holds a symbolic link, or is beyond the
            limits.
    """
    if not directory.is_dir():
        raise FolderError([f"{directory} is not a folder."])
    files, problems, count, size = {}, [], 0, 0
    for root, folders, names in os.walk(directory):
        relative = Path(root).relative_to(directory).parts
        folders[:] = sorted(f for f in folders if not _skipped([f]))
        for name in [*folders, *names]:
            full = Path(root, name)
            if full.is_symlink():
                problems.append(
                    f"{Path(*relative, name).as_posix()} is a symbolic link; the folder may hold "
                    "none (a link can make a cycle of folders)."
                )
        for name in sorted(names):
            path = unicodedata.normalize("NFC", Path(*relative, name).as_posix())
            full = Path(root, name)
            if _skipped([name]) or full.is_symlink():
                continue
            count, size = count + 1, size + full.stat().st_size
            if _is_markdown(path) or _is_media(path):
                problem = _too_large(path, full.stat().st_size, _is_media(path))
                if problem:
                    problems.append(problem)
                else:
                    files[path] = full.read_bytes()
    problems += _limit_problems(count, size)
    if problems:
        raise FolderError(problems)
    return files


def _limit_problems(count, size):
    problems = []
    if count > MAX_FILES:
        problems.append(f"The folder holds {count:,} files; the limit is {MAX_FILES:,}.")
    if size > MAX_BYTES:
        problems.append(f"The folder's files hold {size:,} bytes; the limit is {MAX_BYTES:,}.")
    return problems


def read_zip(data):
    """Read the Markdown files of a ZIP archive, refusing unsafe archives (module docstring).

    An archive holding one folder with ``SUMMARY.md`` in it, rather than at its top (a
    folder zipped as a whole), is read from that folder.

    Args:
        data: the archive's bytes.

    Returns:
        A dict of relative paths to bytes.

    Raises:
        FolderError: the archive is not a ZIP, is unsafe, or is beyond the limits.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise FolderError([f"The file is not a ZIP archive ({error})."]) from error
    entries = archive.infolist()
    if len(entries) > MAX_FILES:
        raise FolderError(
            [f"The archive holds {len(entries):,} entries; the limit is {MAX_FILES:,}."]
        )
    problems, wanted, names = [], [], set()
    for info in entries:
        name = unicodedata.normalize("NFC", info.filename)
        parts = name.rstrip("/").split("/")
        if name.startswith("/") or "\\" in name or ":" in parts[0] or ".." in parts:
            problems.append(f"“{name}” is not a path inside the archive's folder.")
        elif stat.S_ISLNK(info.external_attr >> 16):
            problems.append(f"“{name}” is a symbolic link; the archive may hold none.")
        elif info.flag_bits & 0x1:
            problems.append(f"“{name}” is encrypted.")
        elif name in names:
            problems.append(f"“{name}” is in the archive twice.")
        elif not (info.is_dir() or _skipped(parts)):
            names.add(name)
            # media/ at the top, or under the one folder that _unwrap removes
            media = _is_media(name) or _is_media(name.split("/", 1)[-1])
            if _is_markdown(name) or media:
                problem = _too_large(name, info.file_size, media)
                if problem:
                    problems.append(problem)
                else:
                    wanted.append((name, info))
    problems += _limit_problems(len(names), sum(info.file_size for info in entries))
    if problems:
        raise FolderError(problems)
    files = {}
    try:
        for name, info in wanted:
            with archive.open(info) as member:
                files[name] = member.read(info.file_size + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as error:
        raise FolderError([f"The archive is damaged ({error})."]) from error
    return _unwrap(files)


def _unwrap(files):
    """Return the files of the one folder holding ``SUMMARY.md``, when it is not at the top."""
    if "SUMMARY.md" in files:
        return files
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and f"{next(iter(tops))}/SUMMARY.md" in files:
        prefix = f"{next(iter(tops))}/"
        return {path.removeprefix(prefix): data for path, data in files.items()}
    return files


def zip_folder(files):
    """Return a ZIP archive of ``files`` (relative paths to bytes), the same bytes each time.

    Entries are sorted by path, dated 1980-01-01 and compressed with DEFLATE.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(files):
            info = zipfile.ZipInfo(path, date_time=ZIP_DATE)
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[path])
    return buffer.getvalue()


def write_directory(files, directory, *, replace=False):
    """Write ``files`` (relative paths to bytes) into a folder on disk.

    Args:
        files: the files to write.
        directory: a ``Path``; created if missing.
        replace: allow a folder that holds files: its Markdown files that are not in
            ``files`` are removed, and folders left empty, so the folder holds what an export
            gives; hidden files (``.git``) and other files stay.

    Raises:
        FolderError: the folder holds files and ``replace`` is false, or cannot be written.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
        present = [
            path for path in directory.rglob("*") if not _skipped(path.relative_to(directory).parts)
        ]
        if present and not replace:
            raise FolderError(
                [f"{directory} is not empty: export into an empty folder, or replace its files."]
            )
        for path in present:
            relative = path.relative_to(directory).as_posix()
            if path.is_file() and _is_markdown(relative) and relative not in files:
                path.unlink()
        for path in sorted(present, key=lambda p: len(p.parts), reverse=True):
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        for relative, data in sorted(files.items()):
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except OSError as error:
        raise FolderError([f"Cannot write {error.filename}: {error.strerror}."]) from error
