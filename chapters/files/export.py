"""The tree, or one section of it, as a folder of Markdown files (see the package's docstring)."""

from datetime import UTC

from ..media.transfer import export_media
from ..models import MediaItem, Node
from .frontmatter import write_document
from .summary import SUMMARY, write_summary

__all__ = ["MEDIA", "export_files", "front_matter"]

INDEX = "index.md"
# The folder holding the media library's files (chapters.media.transfer).
MEDIA = "media"


def front_matter(node, paths):
    """Return the front matter of a node's file: title, status, slug, updated and id, in
    that order, then ``requires``, the paths of its prerequisites, when it has some.

    Args:
        node: the node.
        paths: every node's path by id (a deleted prerequisite is left out).
    """
    fields = {
        "title": node.title,
        "status": node.status,
        "slug": node.slug,
        "updated": node.updated.astimezone(UTC),
        "id": node.pk,
    }
    requires = [paths[pk] for pk in node.requires if pk in paths]
    if requires:
        fields["requires"] = requires
    return fields


def export_files(section=None):
    """Return the files of the whole tree, or of one section and everything under it.

    A section's folder is named by its slug and a chapter's file by its slug and ``.md``;
    a chapter whose slug is ``index``, or that would share a name with a sibling on a file
    system that ignores case, gets ``-2`` (``-3``, ...) after it: its front matter keeps
    its slug. A section's folder sits in the folders of the sections above it, named by
    their slugs.

    Args:
        section: a section node, or None for the whole tree.

    The media library's files are in ``media/`` (``chapters.media.transfer``): every item
    for the whole tree, the items its pages use for a section.

    Returns:
        A dict of relative paths to bytes; the same for the same database.
    """
    nodes = Node.objects.all()
    if section is not None:
        nodes = nodes.filter(tree_id=section.tree_id, lft__gte=section.lft, rght__lte=section.rght)
        top = section.path.rpartition("/")[0]
        base_level = section.level
    else:
        top, base_level = "", 0
    folders, taken, files, items = {None: top}, {}, {}, []
    paths = dict(Node.objects.values_list("pk", "path"))
    for node in nodes:
        parent = node.parent_id if node.pk != getattr(section, "pk", None) else None
        where = folders[parent]
        used = taken.setdefault(where, {INDEX.removesuffix(".md")})
        name = _free_name(node.slug, used)
        if node.is_chapter:
            file = _join(where, f"{name}.md")
        else:
            folders[node.pk] = _join(where, name)
            file = _join(folders[node.pk], INDEX)
            taken[folders[node.pk]] = {INDEX.removesuffix(".md")}
        files[file] = write_document(front_matter(node, paths), node.body).encode("utf-8")
        items.append((node.level - base_level, node.title, file))
    files[SUMMARY] = write_summary(items, section.path if section is not None else None).encode()
    media = MediaItem.objects.order_by("name")
    if section is not None:
        media = media.filter(uses__source__in=nodes).distinct()
    files.update({f"{MEDIA}/{name}": data for name, data in export_media(media).items()})
    return files


def _free_name(slug, used):
    """Return ``slug``, or ``slug-2``, ``slug-3``, ... : the first whose case-folded form is
    not in ``used``; add it to ``used``."""
    name, number = slug, 2
    while name.casefold() in used:
        name, number = f"{slug}-{number}", number + 1
    used.add(name.casefold())
    return name


def _join(folder, name):
    return f"{folder}/{name}" if folder else name
