"""Make random writes to the tree from a process of its own, for tests/test_concurrency.py.

Run as ``python -m tests.tree_writer WORKER OPERATIONS`` with ``DATABASE_URL`` naming the
test database. The worker reads the tree once and then works from those (soon stale)
instances, as a server process holding nodes from an earlier query would: it inserts chapters
and sections, moves nodes with ``Node.objects.move_node`` (into a section, or beside another
node: a reorder), reparents nodes by setting ``parent`` and saving, and deletes chapters it
inserted itself (so that the test knows exactly which nodes must be left). A move the tree's
rules refuse (under itself, a chapter at the top level, ...) is counted, not an error; any
other exception ends the worker with a traceback and a non-zero status.

Prints one line of JSON: ``{"kept": [pk, ...], "deleted": n, "moved": n, "refused": n}``,
``kept`` being the primary keys of the nodes it inserted and did not delete.
"""

import json
import os
import random
import sys


def main(worker, operations):
    """Make ``operations`` random tree writes, seeded by ``worker``; print what was done."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.core.exceptions import ValidationError
    from mptt.exceptions import InvalidMove

    from chapters.models import Node

    rng = random.Random(worker)
    # The test's tree only: workers that started earlier may have inserted (and may delete)
    # nodes of their own already.
    nodes = list(Node.objects.exclude(title__startswith="Worker "))
    kept, counts = [], {"deleted": 0, "moved": 0, "refused": 0}
    for number in range(operations):
        sections = [n for n in nodes if not n.is_chapter]
        operation = rng.choice(["insert", "insert", "move", "reorder", "reparent", "delete"])
        try:
            if operation == "insert":
                kind = rng.choice([Node.Kind.CHAPTER, Node.Kind.CHAPTER, Node.Kind.SECTION])
                created = Node.objects.create(
                    title=f"Worker {worker} node {number}", kind=kind, parent=rng.choice(sections)
                )
                nodes.append(created)
                kept.append(created.pk)
            elif operation == "move":
                Node.objects.move_node(
                    rng.choice(nodes),
                    rng.choice(sections),
                    rng.choice(["first-child", "last-child"]),
                )
                counts["moved"] += 1
            elif operation == "reorder":
                Node.objects.move_node(
                    rng.choice(nodes), rng.choice(nodes), rng.choice(["left", "right"])
                )
                counts["moved"] += 1
            elif operation == "reparent":
                node, parent = rng.choice(nodes), rng.choice(sections)
                node.validate_placement(parent)
                node.parent = parent
                node.save()
                counts["moved"] += 1
            else:
                # Only chapters: a section may have gained other workers' nodes.
                doomed = [n for n in nodes if n.pk in kept and n.is_chapter]
                if doomed:
                    kept.remove(doomed[-1].pk)
                    nodes.remove(doomed[-1])
                    doomed[-1].delete()
                    counts["deleted"] += 1
        except (InvalidMove, ValidationError):
            counts["refused"] += 1
    print(json.dumps({"kept": kept, **counts}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
