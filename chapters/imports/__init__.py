"""One import engine for both of the curriculum's formats.

The curriculum comes in as a JSON curriculum file (``chapters.curriculum_file``) or as a
folder of Markdown files (``chapters.files``). The two differ only in how they are read and
written; from there on an import is the same:

- :mod:`.entries`: what a reader makes of a file, one :class:`~.entries.Entry` per node,
  whatever the format, and the checks every entry passes once (a node's own fields, as
  ``Node.field_problems`` checks them for ``manage.py loaddata`` too, and its body);
- :mod:`.matching`: under the tree's lock, which node each entry is (by id, else by its
  place);
- :mod:`.engine`: the writes, all in one ``tree_write``: matched nodes updated and moved,
  new ones added, with the options a format asks for (deleting what is not in a folder,
  ids, refusing what an editor may not publish);
- :mod:`.stale`: a folder's file dated before a change made on the site leaves it alone.
"""
