"""``manage.py loaddata``: Django's command, refusing fixtures that would break the tree.

Django's ``loaddata`` saves rows raw: nothing checks a fixture's parents, kinds, slugs or
django-mptt's nested-set fields. This command (it takes the place of Django's, as an app's
command of the same name does) takes the tree's lock (``lock_tree``: a fixture writes tree
fields, so no other write to the tree may run meanwhile), loads as Django does and then, in
the same transaction, checks the tree with ``Node.objects.check_tree()``; if anything is
wrong it fails with the list of problems and the transaction rolls back, so the database is
left as it was. Then it renders again the bodies that may link to nodes loaded after them.
"""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.core.management.commands import loaddata

from chapters.markdown import MarkdownError
from chapters.models import Node, lock_tree


class Command(loaddata.Command):
    help = (
        "Install the named fixture(s) in the database, as Django's loaddata does, and refuse "
        "(rolling everything back) fixtures that would leave the curriculum's tree invalid."
    )

    def loaddata(self, fixture_labels):
        """Load the fixtures under the tree's lock, then check the tree.

        Runs inside ``handle()``'s transaction, which keeps the lock until it ends.

        Raises:
            CommandError: a row of a node cannot be loaded (its body cannot be rendered, or
                it is its own ancestor), or the tree is invalid after loading.
        """
        lock_tree(self.using)
        try:
            super().loaddata(fixture_labels)
        except ValidationError as error:
            raise CommandError(
                f"Problem installing fixtures: {' '.join(error.messages)}"
            ) from error
        except MarkdownError as error:
            raise CommandError(f"Problem installing fixtures: {error}") from error
        if Node not in self.models:
            return
        problems = Node.objects.check_tree()
        if problems:
            listed = "\n".join(f"- {problem}" for problem in problems[:20])
            raise CommandError(
                "The fixture would leave the curriculum's tree invalid, so nothing was "
                f"loaded:\n{listed}"
            )
        # Rows were rendered as they were loaded; a link to a node loaded after its source
        # resolves only now.
        for node in Node.objects.filter(body__contains="["):
            node.refresh_body()
