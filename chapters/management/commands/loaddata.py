"""``manage.py loaddata``: Django's command, deriving what nodes need and refusing fixtures
that would break the tree.

Django's ``loaddata`` saves rows raw, without ``Node.save()``: nothing checks a fixture's
parents, kinds, slugs or django-mptt's nested-set fields, and nothing computes a node's
derived fields. This command takes the place of Django's (an app's command of the same name
does) and does both, in ``loaddata``'s transaction, under the tree's lock (``lock_tree``: a
fixture writes tree fields, so no other write to the tree may run meanwhile):

1. each node row is saved as Django saves it, with a provisional path (a fixture's paths,
   if it has any, are not trusted, and two new rows must not share one);
2. once every row is in, the tree is checked (``Node.objects.check_tree()``); anything wrong
   fails the command with the list of problems, and the transaction rolls back, leaving the
   database as it was;
3. the stored paths are derived from the parents and slugs, top down; the nodes loaded get
   their body rendered (HTML, text, headings, links), and a revision dated as the row's
   ``updated`` where their content differs from their latest revision, so loading the same
   fixture again records nothing;
4. the other nodes whose bodies link somewhere are rendered again: their links may find
   the nodes just loaded.
"""

from django.core.management.base import CommandError
from django.core.management.commands import loaddata

from chapters.markdown import MarkdownError
from chapters.models import REVISION_FIELDS, Link, Node, PathRedirect, lock_tree


class Command(loaddata.Command):
    help = (
        "Install the named fixture(s) in the database, as Django's loaddata does; compute "
        "the derived fields of the nodes loaded (paths, rendered bodies, links) and record a "
        "revision of each changed node; refuse (rolling everything back) fixtures that would "
        "leave the curriculum's tree invalid."
    )

    def loaddata(self, fixture_labels):
        """Load the fixtures under the tree's lock, check the tree, then derive what nodes need.

        Runs inside ``handle()``'s transaction, which keeps the lock until it ends.

        Raises:
            CommandError: the tree is invalid after loading, or a loaded body cannot be
                rendered.
        """
        self.loaded_nodes = []
        lock_tree(self.using)
        super().loaddata(fixture_labels)
        if not self.loaded_nodes:
            return
        problems = Node.objects.check_tree()
        if problems:
            listed = "\n".join(f"- {problem}" for problem in problems[:20])
            raise CommandError(
                "The fixture would leave the curriculum's tree invalid, so nothing was "
                f"loaded:\n{listed}"
            )
        derive_paths()
        try:
            for node in Node.objects.filter(pk__in=self.loaded_nodes):
                links = node.render_body()
                Node.objects.filter(pk=node.pk).update(
                    body_html=node.body_html, body_text=node.body_text, headings=node.headings
                )
                Link.replace(node, links)
                record_loaded_revision(node)
        except MarkdownError as error:
            raise CommandError(f"Problem installing fixtures: {node}: {error}") from error
        others = Node.objects.filter(body__contains="[").exclude(pk__in=self.loaded_nodes)
        for node in others:
            node.refresh_body()

    def save_obj(self, obj):
        """Save a deserialized row as Django does; give a node a provisional path first.

        Returns:
            Whether the row was saved, as Django's ``save_obj``.
        """
        node = obj.object if isinstance(obj.object, Node) else None
        if node is not None:
            # No stored path starts with "/": these cannot meet a real one, nor each other.
            node.path = f"/loading/{len(self.loaded_nodes)}"
        saved = super().save_obj(obj)
        if saved and node is not None:
            self.loaded_nodes.append(node.pk)
        return saved


def derive_paths():
    """Store every node's path as its parent's path and its slug, top down.

    The tree is valid (checked first), so tree order lists each parent before its children.
    Redirects from the paths that nodes now use are dropped: a node at a path wins over a
    redirect, and a stale redirect would only be in the way of the next move.
    """
    paths, changed = {}, []
    for pk, parent_id, slug, path in Node.objects.values_list("pk", "parent", "slug", "path"):
        paths[pk] = f"{paths[parent_id]}/{slug}" if parent_id is not None else slug
        if path != paths[pk]:
            changed.append(Node(pk=pk, path=paths[pk]))
    Node.objects.bulk_update(changed, ["path"], batch_size=500)
    PathRedirect.objects.filter(old_path__in=[node.path for node in changed]).delete()


def record_loaded_revision(node):
    """Record a revision of ``node`` as a fixture wrote it, unless its content is unchanged.

    Args:
        node: a node just loaded, with its derived path; dated as the fixture's ``updated``.
    """
    latest = Node.history.filter(id=node.pk).first()
    content = {field: getattr(node, field) for field in REVISION_FIELDS}
    if latest and all(getattr(latest, field) == value for field, value in content.items()):
        return
    Node.history.model.objects.create(
        history_date=node.updated,
        history_type="~" if latest else "+",
        history_change_reason="Loaded from a fixture",
        **{
            field.attname: getattr(node, field.attname)
            for field in Node.history.model.tracked_fields
        },
    )
