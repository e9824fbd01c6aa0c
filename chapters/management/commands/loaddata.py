"""``manage.py loaddata``: Django's command, deriving what nodes need and refusing fixtures
that would break the tree.

Django's ``loaddata`` saves rows raw, without ``Node.save()``: nothing checks a fixture's
parents, kinds, slugs or django-mptt's nested-set fields, and nothing computes a node's
derived fields. This command takes the place of Django's (an app's command of the same name
does) and does both, in ``loaddata``'s transaction, in one write to the tree
(``tree_write``: a fixture writes tree fields, so no other write to the tree may run
meanwhile):

1. each node row's own fields are checked (``Node.field_problems``: the checks a curriculum
   file's entries pass too), and each pending change's and draft's choices (their
   ``field_problems``), then it is saved as Django saves it, with a provisional path (a
   fixture's paths, if it has any, are not trusted, and two new rows must not share one);
   rows with problems are not saved, and the command fails with all of them once every row
   was read;
2. once every row is in, the tree is checked (``Node.objects.check_tree()``); anything wrong
   fails the command with the list of problems, and the transaction rolls back, leaving the
   database as it was;
3. the stored paths are derived from the parents and slugs, top down (none may be longer
   than the column); the nodes loaded get
   their body rendered (HTML, text, headings, links), and a revision dated as the row's
   ``updated`` where their content differs from their latest revision, so loading the same
   fixture again records nothing. Under the tree's lock no lexer runs: code is rendered
   plain;
4. once the load has committed and let go of the lock, the nodes loaded with code are
   rendered again, highlighted, and so are the other nodes whose bodies link somewhere: their
   links may find the nodes just loaded (``Node.refresh_body``, each in a transaction of its
   own).
"""

from django.core.management.base import CommandError
from django.core.management.commands import loaddata

from chapters.markdown import MarkdownError
from chapters.models import PATH_MAX_LENGTH, REVISION_FIELDS, Node, PathRedirect, tree_write
from chapters.words import identifier_parts, spaceless_grams


class Command(loaddata.Command):
    help = (
        "Install the named fixture(s) in the database, as Django's loaddata does; compute "
        "the derived fields of the nodes loaded (paths, rendered bodies, links) and record a "
        "revision of each changed node; refuse (rolling everything back) fixtures that would "
        "leave the curriculum's tree invalid."
    )

    def loaddata(self, fixture_labels):
        """Load the fixtures in a write to the tree, check the tree, then derive what nodes
        need.

        Runs inside ``handle()``'s transaction, which keeps the lock until it ends.

        Raises:
            CommandError: the tree is invalid after loading, or a loaded body cannot be
                rendered.
        """
        self.loaded_nodes, self.refused_rows = [], []
        with tree_write(using=self.using):
            self._load(fixture_labels)

    def handle(self, *fixture_labels, **options):
        """Load the fixtures (Django's ``handle``: one transaction), then, once it has
        committed, render again the nodes it left to render (step 4 above)."""
        self.render_after = []
        super().handle(*fixture_labels, **options)
        for node in Node.objects.using(self.using).filter(pk__in=self.render_after):
            node.refresh_body()

    def _load(self, fixture_labels):
        """Load, check and derive, in the write to the tree open (see :meth:`loaddata`)."""
        try:
            super().loaddata(fixture_labels)
        except Exception as error:
            # A row refused below may be why a later one fails (its parent is missing).
            if self.refused_rows:
                raise CommandError(self.refusal()) from error
            raise
        if self.refused_rows:
            raise CommandError(self.refusal())
        if not self.loaded_nodes:
            return
        problems = Node.objects.check_tree()
        if problems:
            listed = "\n".join(f"- {problem}" for problem in problems[:20])
            raise CommandError(
                "The fixture would leave the curriculum's tree invalid, so nothing was "
                f"loaded:\n{listed}"
            )
        too_long = derive_paths()
        if too_long:
            raise CommandError(
                "The fixture would give pages addresses longer than "
                f"{PATH_MAX_LENGTH:,} characters, so nothing was loaded:\n"
                + "\n".join(f"- {node} (pk {node.pk}): /{node.path}/" for node in too_long[:20])
            )
        try:
            for node in Node.objects.filter(pk__in=self.loaded_nodes):
                links = node.render_body(highlight=False)
                if "<pre" in node.body_html:
                    self.render_after.append(node.pk)
                Node.objects.filter(pk=node.pk).update(
                    body_html=node.body_html,
                    body_text=node.body_text,
                    headings=node.headings,
                    sections=node.sections,
                    words=node.words,
                    title_parts=identifier_parts(node.title),
                    text_parts=node.text_parts,
                    grams=spaceless_grams(node.title, node.body_text),
                )
                node.store_references(links)
                record_loaded_revision(node)
        except MarkdownError as error:
            raise CommandError(f"Problem installing fixtures: {node}: {error}") from error
        others = Node.objects.filter(body__contains="[").exclude(pk__in=self.loaded_nodes)
        self.render_after += others.values_list("pk", flat=True)

    def refusal(self):
        """Return the message of a load refused for the rows' own problems."""
        listed = "\n".join(f"- {problem}" for problem in self.refused_rows[:50])
        more = len(self.refused_rows) - 50
        return f"The fixture has rows that cannot be loaded, so nothing was loaded:\n{listed}" + (
            f"\n- and {more} more." if more > 0 else ""
        )

    def save_obj(self, obj):
        """Save a deserialized row as Django does; check a node's fields and give it a
        provisional path first.

        A node whose fields are wrong (``Node.field_problems``: a status or kind that is not
        a choice, a blank or too long title, a date without a timezone, ...) is not saved, nor
        a pending change or a draft whose choices are not choices
        (``PendingChange.field_problems``, ``EditDraft.field_problems``); their problems are
        kept, and ``loaddata`` fails with all of them once every row was read.

        Returns:
            Whether the row was saved, as Django's ``save_obj``.
        """
        row = obj.object
        node = row if isinstance(row, Node) else None
        problems = row.field_problems() if hasattr(row, "field_problems") else []
        if problems:
            label = f"“{node.title[:60]}”" if node is not None else row._meta.verbose_name
            self.refused_rows.extend(f"{label} (pk {row.pk}): {problem}" for problem in problems)
            return False
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

    Returns:
        The nodes whose path would be longer than ``PATH_MAX_LENGTH`` (with ``title`` and
        the ``path`` they would have); nothing is written when there are any.
    """
    paths, changed = {}, []
    rows = Node.objects.values_list("pk", "parent", "slug", "path", "title")
    for pk, parent_id, slug, path, title in rows:
        paths[pk] = f"{paths[parent_id]}/{slug}" if parent_id is not None else slug
        if path != paths[pk]:
            changed.append(Node(pk=pk, path=paths[pk], title=title))
    too_long = [node for node in changed if len(node.path) > PATH_MAX_LENGTH]
    if too_long:
        return too_long
    Node.objects.bulk_update(changed, ["path"], batch_size=500)
    PathRedirect.objects.filter(old_path__in=[node.path for node in changed]).delete()
    return []


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
