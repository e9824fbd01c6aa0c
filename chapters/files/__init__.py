"""The curriculum as a folder of Markdown files, written and read back.

``manage.py export_markdown DIR`` writes a folder, ``manage.py import_markdown DIR`` reads
one back; the admin downloads and uploads the same folder as a ZIP. The folder::

    SUMMARY.md                          the order: a nested list of links to the files
    mathematics/index.md                an area: its front matter, then its body
    mathematics/linear-algebra/index.md a section, likewise
    mathematics/linear-algebra/vectors.md   a chapter

One folder per area and section, named by its slug, holding an ``index.md`` and one
``<slug>.md`` per chapter. Every section has an ``index.md``, whether or not it has a body:
it is where the section's title, status, date and id live. Each ``.md`` file starts with
YAML front matter between two ``---`` lines (:mod:`.frontmatter`)::

    ---
    title: Vectors
    status: draft
    slug: vectors
    updated: 2026-08-09 12:00:00+00:00
    id: 17
    ---

    The body, Markdown as the wiki stores it: ``[[wiki links]]``, ``$math$`` and all.

``id`` is the node's primary key, which stays the same through edits, renames and moves in
one database. ``SUMMARY.md`` (:mod:`.summary`), in the spirit of mdBook's, lists every file
once, each nested under its section's ``index.md``; its link texts are the titles when
written, and a file's title when it has none of its own. A folder of one section (the
admin's download of a section) keeps the folders of the sections above it, without their
files, and ``SUMMARY.md`` says so in front matter of its own (``section: <path>``).

The media library is in the ``media/`` folder: each item's file under its name, and
``media.json`` listing the items (``chapters.media.transfer``); a section's folder holds the
items its pages use. An import adds and replaces items from it before the pages. Other files
are left alone. The same database always gives the same bytes: files in tree order
in ``SUMMARY.md``, sorted in a ZIP, UTF-8, LF line ends, a final newline.

The modules: :mod:`.frontmatter` (a file's front matter and body), :mod:`.summary` (the
outline), :mod:`.folder` (folders on disk and in ZIPs, with their limits), :mod:`.export`
(the tree to files), :mod:`.reading` (files to checked entries) and :mod:`.importer` (the
entries into the tree).
"""
