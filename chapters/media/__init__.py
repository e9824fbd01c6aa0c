"""Images and files for pages: uploading, storing, serving and placing them.

The whole story, module by module:

- ``chapters.models.media``: the models, ``MediaItem`` (an upload under a stable name),
  ``MediaVersion`` (the files it held before it was replaced) and ``MediaUse`` (a page's
  references to it, derived from the body like links; they protect a used item from
  deletion);
- :mod:`.uploads`: what an upload is, read from its content (the limits and refusals, an
  image's from its header alone), and storing it as it came under a name no other upload
  takes, at once;
- :mod:`.processing`: the rest, in a task (``chapters.tasks.process_media``): images
  re-encoded upright without their metadata, with resized WebP copies, then the pages using
  them rendered again; until then pages show a placeholder of the image's size;
- :mod:`.views`: the files served under ``/media/<name>`` (images inline, other files as
  downloads, never sniffed), the media library for editors (browse, search, upload, replace,
  delete) and the upload endpoint the editor's script posts to;
- :mod:`.forms`: the library's forms;
- ``chapters.markdown.mdx.media``: ``![alt](image:<name>)`` and ``[text](file:<name>)`` in
  bodies, resolved by ``chapters.models.media.MediaResolver``.

Who may upload is ``chapters.permissions.can_upload``.
"""

__all__ = []
