"""The reader cache: every page the wiki serves is kept or revalidated by one version.

**The wiki's version.** One row, :class:`~chapters.models.WikiVersion`, which the database
itself bumps: migration 0010 puts triggers on the node, link and redirect tables that add one
to it, in the same transaction, on every insert, update or delete there (from ``save()``,
django-mptt's SQL, bulk writes, ``loaddata``, a revert or a psql session alike), so no write
path can forget it. On PostgreSQL, migration 0011 makes the bump also send a notification
(``NOTIFY chapters_wiki_version``), and a ``TRUNCATE`` (``manage.py flush``) notify too.
Nothing else invalidates a cache: whatever is kept is kept under a version, and a bump makes
every process and every app server that shares the database look under the next one.

**How a request learns it**, once per request (:func:`~.validators.wiki_version`): on SQLite
from what its connection read last, with a query only after the database changed
(``PRAGMA data_version``, :class:`~.version_watch.DataVersion`); on PostgreSQL from the
memory of its process, which listens for the notifications on a connection of its own and
reads the version again only after one, after a write of its own, inside a transaction, when
it is not listening, and at least once a minute; ``WIKI_VERSION_NOTIFY=0`` (behind
PgBouncer's transaction pooling) makes it a query again. The safety nets are told in
:mod:`~.version_watch`.

**The release.** The version of the pages (:func:`~.validators.version`) is the wiki's
version and a digest of the code, templates and static files (:data:`~.validators.SOURCES`),
so that servers running the same code share what they keep and a deploy never serves a page
or a 304 of the code before it. With debug on, the digest is taken for every request, so an
edited template shows at once.

**Validators and 304s.** A page's ``ETag`` is the version of the pages and whom the page is
for (``reader``, or ``user-<pk>`` with ``-editor`` for a user who may edit,
``permissions.can_edit``, since their pages have an "Edit" link, then what else their pages
show that the version does not follow: the changes waiting for review and the pages they
watch, :func:`~.validators.viewer`); its ``Last-Modified`` is the time of the wiki's
version. Proposing a change, or watching a page, writes no table the version's triggers
watch: what readers see does not change. A request whose ``If-None-Match`` or ``If-Modified-Since``
still matches is answered 304 before anything is rendered.

**What caches in front may keep** (:func:`~.pages.mark_for_readers`). A reader's page, and its
304, say ``Cache-Control: public, max-age=0, s-maxage=1, stale-while-revalidate=1`` (the two
numbers are ``WIKI_SHARED_CACHE_SECONDS`` and ``WIKI_SHARED_CACHE_STALE_SECONDS``): a browser
asks again every time, cheaply, with the ETag; a shared cache in front (``deploy/``'s nginx
and Varnish) keeps the page for s-maxage, then serves it for at most stale-while-revalidate
more while it asks the wiki again in the background, with the ETag. So an edit shows
through such a cache at most s-maxage + stale-while-revalidate seconds after its commit (one
more through nginx, which counts whole seconds) and one render of the page: 3 seconds and a
render with the defaults. A reader's page does not say ``Vary: Cookie``: it is the same for
every reader, and a cache must not keep a copy per reader's cookies. The rule that stands
for it: **a shared cache in front sends every request with the session or messages cookie
to the wiki** and keeps nothing of its answer, as ``deploy/`` does; signed-in users' pages
say ``Cache-Control: no-cache, private``, and so does any response that sets a cookie
(:func:`~.pages.mark_private`). Their ETags name the viewer, so a browser's own copy of a
reader's page is never shown to the user who then signs in: it is revalidated, and does
not match. Static and media files say how long they may be kept; other pages say nothing a
shared cache keeps.

**Kept pages for readers.** A reader is a GET or HEAD without a session or messages cookie:
anonymous, with no messages waiting, so their page is the same for every reader. A view
decorated with :func:`~.pages.cached_page` keeps a reader's page (a 200 that sets no cookie,
once the middleware after ``ReaderPageMiddleware`` have seen it) whole in Django's cache
under the version of the pages and its URL without the query (scheme, host and path: a page
names its own absolute URL); each process also keeps the last few it read in its own memory
(:func:`~.pages.kept_page`). The decorator hands the page to keep, with its key and version,
over to the middleware on the response, and marks its views so that the middleware know them
before any view runs: both explicit in :mod:`~.handover`. Parts of pages are kept by the
modules that build them, under the same version or under a digest of their content
(``chapters.contents``: the table of contents and what each page shows of the tree).

**The two middleware**, in ``MIDDLEWARE`` (``wiki/settings.py``):

- :class:`~.middleware.ReaderNotModifiedMiddleware` right after the security, static-file
  and compression middleware: a reader's 304 needs neither the session, the user nor the
  view, and has no body, so nothing after it (not even the CSP) needs to run;
- :class:`~.middleware.ReaderPageMiddleware` after the middleware that set headers on every
  response (CSP, ``Content-Length``, frame options) and before sessions, CSRF,
  authentication, messages, history and axes, which have nothing to do for an anonymous
  GET: it answers with the kept page, the same bytes and headers the view gave.

Both answer inside ``wiki.compression``'s middleware, which compresses kept pages as it does
rendered ones and gives a reader's 304 the ``Vary: Accept-Encoding`` and weak ETag of the
compressed page (its ``If-None-Match`` is compared weakly, as RFC 9110 asks for a GET).

**Signed-in users**, staff included, always get a freshly rendered page (it may have their
"Edit" link or their messages), answered 304 by Django's ``condition`` decorator on the view
when their ETag matches, and never kept; with messages waiting, a page has no validators and
is always rendered.

**A Redis that cannot be reached** is a cache that holds nothing, with a warning in the log
(:mod:`~.backends`, the backend ``REDIS_URL`` selects): pages are rendered, not refused.

The modules: :mod:`~.validators` (the version of the pages, the viewer, ETag and
Last-Modified), :mod:`~.pages` (``cached_page`` and kept pages), :mod:`~.handover` (what the
decorator and the middleware tell each other), :mod:`~.middleware` (the two middleware),
:mod:`~.version_watch` (each process's version, kept by PostgreSQL's notifications) and
:mod:`~.backends` (the Redis backend that answers a miss when Redis is down).
"""

from .middleware import ReaderNotModifiedMiddleware, ReaderPageMiddleware
from .pages import PAGES_IN_PROCESS, cached_page, clear, kept_page
from .validators import SOURCES, source_digest, version
from .version_watch import VersionWatch, forget_after_writes, install, watch

__all__ = [
    "PAGES_IN_PROCESS",
    "SOURCES",
    "ReaderNotModifiedMiddleware",
    "ReaderPageMiddleware",
    "VersionWatch",
    "cached_page",
    "clear",
    "forget_after_writes",
    "install",
    "kept_page",
    "source_digest",
    "version",
    "watch",
]
