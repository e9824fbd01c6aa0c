"""Editing on the site: the editor, drafts that save themselves, merges, review, watching.

The whole story, module by module:

- :mod:`.views`: the editor at ``/edit/<path>/`` and ``/new/<section path>/``, a plain form
  (title, status, section, edit summary, Markdown body) beside a preview of the body in the
  page's own markup (:mod:`.preview`, the pipeline pages are saved with); the drafts the
  editor's script saves every few seconds (``/drafts/...``, an ``EditDraft`` per user and
  page, offered back when the editor opens again and deleted on save); the titles that
  complete ``[[wiki links]]``, kept per version of the wiki.
- :mod:`.merge`: three-way merges of an edit with one saved meanwhile: the body line by line
  (diff3, on difflib), the other fields one by one.
- :mod:`.conflicts`: the forms' side of it, shared by the site's editor and the admin's
  change form: a save over a newer revision is merged and shown again, unsaved, with their
  change and the conflicts side by side, and the next Save saves what the editor has seen.
- :mod:`.forms`: the editor's form, the reviewer's decision, and choices of a node shown by
  its titles ("ML Systems / ML Compilers").
- :mod:`.workflow`: what a save does by the review workflow (saved, or a ``PendingChange``
  for an editor's edit of a published page), approving (live at once, merged with what was
  saved since) and sending back; reverting as the workflow allows.
- :mod:`.review`: the review queue (``/review/``), a pending change's page, the Watch
  button.
- :mod:`.notify`: e-mail to the people watching a page or a section above it.

Who may do what is ``chapters.permissions``; the models are in ``chapters.models`` (drafts,
review, watches), in tables no version trigger watches, so none of this changes what readers
see until a change is saved.
"""

__all__ = []
