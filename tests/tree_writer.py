"""Make random writes to the tree from a process of its own, for tests/test_concurrency.py.

Run as ``python -m tests.tree_writer WORKER SECONDS`` with ``DATABASE_URL`` naming the test
database. For ``SECONDS``, the worker makes every kind of write the wiki has, as a server
process would, mostly from instances read a while ago (re-read every twenty writes): it
inserts chapters and sections; moves nodes with ``Node.objects.move_node`` (into a section,
or beside another node: a reorder); reparents and renames nodes by setting fields and
saving; reverts nodes to an older revision; imports a curriculum file adding a chapter under
a section; deletes chapters it added itself and restores some of them (so that the test
knows exactly which nodes must be left). A write the tree's rules refuse (a move under
itself, a slug taken meanwhile, a parent gone) is counted, not an error; any other exception
ends the worker with a traceback and a non-zero status. Once the time is up, a worker that
has not yet made every kind of write makes the missing kinds until it has.

Prints one line of JSON: ``{"kept": [pk, ...], "done": {operation: n}, "refused": n}``,
``kept`` being the primary keys of the nodes it added (inserted, imported or restored) and
did not delete.
"""

import json
import os
import random
import sys
import time
from datetime import UTC, datetime

OPERATIONS = [
    "insert",
    "move",
    "reorder",
    "reparent",
    "rename",
    "revert",
    "import",
    "delete",
    "restore",
]


def main(worker, seconds):
    """Make random tree writes for ``seconds``, seeded by ``worker``; print what was done."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.core.exceptions import ValidationError
    from django.db.models import Q
    from mptt.exceptions import InvalidMove

    from chapters import history, recovery
    from chapters.curriculum_file import CurriculumFileError, import_curriculum
    from chapters.models import Node

    rng = random.Random(worker)
    kept, deleted, done, refused = [], [], dict.fromkeys(OPERATIONS, 0), 0
    nodes, number, end = [], 0, time.monotonic() + seconds

    def read_tree():
        # The test's tree and this worker's nodes: others' nodes may go at any moment.
        return list(Node.objects.filter(~Q(title__startswith="Worker ") | Q(pk__in=kept)))

    def insert():
        kind = rng.choice([Node.Kind.CHAPTER, Node.Kind.CHAPTER, Node.Kind.SECTION])
        created = Node.objects.create(
            title=f"Worker {worker} node {number}", kind=kind, parent=rng.choice(sections)
        )
        nodes.append(created)
        kept.append(created.pk)

    def move():
        target = rng.choice(sections)
        Node.objects.move_node(rng.choice(nodes), target, rng.choice(["first-child", "last-child"]))

    def reorder():
        Node.objects.move_node(rng.choice(nodes), rng.choice(nodes), rng.choice(["left", "right"]))

    def reparent():
        chosen = rng.choice(nodes)
        chosen.parent = rng.choice(sections)
        chosen.save()

    def rename():
        chosen = rng.choice(nodes)
        chosen.title = f"{chosen.title.split(' (')[0]} ({worker}.{number})"
        chosen.slug = f"{chosen.slug.split('--')[0]}--{worker}-{number}"
        chosen.save()

    def revert():
        chosen = Node.objects.get(pk=rng.choice(nodes).pk)
        revisions = list(Node.history.filter(id=chosen.pk)[:4])
        history.revert(chosen, revisions[-1])

    def import_chapter():
        section = Node.objects.get(pk=rng.choice(sections).pk)
        title, slug = f"Worker {worker} import {number}", f"w{worker}-import-{number}"
        entry = {
            "path": f"{section.path}/{slug}",
            "parent": section.path,
            "slug": slug,
            "kind": "chapter",
            "status": "draft",
            "title": title,
            "body": "",
            "updated": datetime.now(UTC).isoformat(),
        }
        data = json.dumps({"format": "curriculum-wiki", "version": 1, "nodes": [entry]})
        import_curriculum(data.encode(), f"worker-{worker}.json")
        [pk] = Node.history.filter(title=title, history_type="+").values_list("id", flat=True)
        kept.append(pk)

    def delete():
        doomed = [n for n in nodes if n.pk in kept and n.is_chapter]
        if not doomed:
            return False
        chosen = rng.choice(doomed)
        pk = chosen.pk
        # Counted only once it happened: a refused delete leaves the node kept.
        if chosen.delete() == (0, {}):
            raise AssertionError(f"Node {pk}, added by this worker, is gone.")
        kept.remove(pk)
        nodes.remove(chosen)
        deleted.append(pk)
        return True

    def restore():
        if not deleted:
            return False
        pk = rng.choice(deleted)
        revision = Node.history.filter(id=pk, history_type="-").first()
        recovery.restore(revision)
        deleted.remove(pk)
        kept.append(pk)
        return True

    writes = {
        "insert": insert,
        "move": move,
        "reorder": reorder,
        "reparent": reparent,
        "rename": rename,
        "revert": revert,
        "import": import_chapter,
        "delete": delete,
        "restore": restore,
    }
    # Random writes until the time is up; then, on a machine so busy that some kind of write
    # has not come up yet, the missing kinds only, until each has been made once.
    # The time is read once a round: read again for the choice, it could pass the end after
    # the loop's check, with no kind missing left to choose from.
    while (now := time.monotonic()) < end or not all(done.values()):
        if number % 20 == 0:
            nodes = read_tree()
        sections = [n for n in nodes if not n.is_chapter]
        missing = [write for write in OPERATIONS if not done[write]]
        operation = rng.choice(OPERATIONS if now < end else missing)
        try:
            if writes[operation]() is not False:
                done[operation] += 1
            elif now >= end and (operation != "restore" or delete() is False):
                # What it needs first: a deletion to restore, a chapter of its own to delete.
                insert()
        except (InvalidMove, ValidationError, CurriculumFileError, Node.DoesNotExist):
            refused += 1
        number += 1
    print(json.dumps({"kept": kept, "done": done, "refused": refused}))


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]))
