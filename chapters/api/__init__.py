"""The REST API at /api/: Django REST framework, with drf-spectacular's OpenAPI 3 schema.

- :mod:`.reads`: the tree, pages by id or path, revisions, diffs, search; what the site shows
  the same user, with ETags.
- :mod:`.writes`: a new chapter; an edit of a page from its base revision, merged and
  reviewed as on the site, in one ``tree_write()``.
- :mod:`.review`: the queue of pending changes, one change, a reviewer's decision.
- :mod:`.media`: uploads to the media library, as the site's.
- :mod:`.authentication`: tokens (``chapters.models.ApiToken``) or the session; a read
  token only reads.
- :mod:`.tokens`: the page where users make and revoke their tokens; :mod:`.admin` lists
  and revokes everyone's.
- :mod:`.errors`: every error as ``{"detail", "code"}`` JSON.
- :mod:`.urls`: the URLs, the schema at /api/openapi.json and its documentation at
  /api/docs/ (Swagger UI from drf-spectacular-sidecar's files, served by the wiki).

Why DRF and not django-ninja: docs/architecture.md ("The API"); the rate limits:
docs/operations.md ("The API").
"""
