"""Django settings for the curriculum wiki.

Every setting that differs between a laptop and a server comes from the environment, in the
manner of cookiecutter-django:

- ``DATABASE_URL``: the database, parsed by dj-database-url. Default: a SQLite file
  ``db.sqlite3`` beside ``manage.py``. ``postgres://user@host:5432/name`` selects PostgreSQL
  through psycopg 3.
- ``DJANGO_DEBUG``: ``1``/``true``/``yes``/``on`` turns debug mode on. Default: off.
- ``DJANGO_SECRET_KEY``: required when debug is off; the settings refuse to load without it.
- ``DJANGO_ALLOWED_HOSTS``: comma-separated host names. Default: ``localhost,127.0.0.1``.
- ``DJANGO_HTTPS``: on when the site is served over HTTPS only: redirects HTTP to HTTPS, sends
  cookies only over HTTPS and sends HSTS. Default: off (a laptop serves plain HTTP).
- ``DJANGO_HSTS_SECONDS``: how long browsers keep to HTTPS (``Strict-Transport-Security``),
  with ``DJANGO_HTTPS`` on. Default: 31536000 (a year).
- ``DJANGO_BEHIND_PROXY``: on when one reverse proxy in front of Django terminates TLS and sets
  ``X-Forwarded-Proto`` and ``X-Forwarded-For``: requests it marks ``https`` count as secure,
  and the login lockout counts failures per client address from ``X-Forwarded-For``. Default:
  off (the headers are not trusted, since any client could send them).
- ``WIKI_VERSION_NOTIFY``: off (``0``/``false``/``no``/``off``) behind a pooler that does not
  keep a ``LISTEN`` (PgBouncer's transaction pooling): each page then reads the wiki's
  version with a query on PostgreSQL. Default: on.
- ``WIKI_SHARED_CACHE_SECONDS`` and ``WIKI_SHARED_CACHE_STALE_SECONDS``: how long a shared
  cache in front may keep a reader's page (``s-maxage``), and serve it stale while it asks
  again (``stale-while-revalidate``). Default: 1 and 1.
- ``REDIS_URL``: the cache, ``redis://host:6379/<db>``, shared by every app server (Django's
  own Redis backend). Default: a local-memory cache in each process.
- ``WIKI_TASKS_MAX_WAIT``: seconds a background task may wait for a worker before
  ``/healthz`` answers 503, as no worker takes tasks (``chapters.health``). Default: 300;
  ``0`` never.
- ``WIKI_TASKS_DEAD_AFTER``: seconds after its last heartbeat that a task worker is taken
  for dead and its task handed to another (``chapters.worker``). Default: 30.
- ``WIKI_BOOKS_ROOT``: the folder books are kept in (``chapters.books.builds``, the storage
  ``books``), which web and task hosts share; with ``WIKI_MEDIA_S3_BUCKET`` set, books are
  kept in that bucket under ``books/`` instead. Default: ``media/books/`` beside ``manage.py``.
- ``WIKI_BASE_URL``: the wiki's address, ``https://wiki.example.org/``, for the links in
  e-mail about writes made outside a request (imports, scripts). Default:
  ``http://127.0.0.1:8000/``.
- ``DJANGO_EMAIL_BACKEND``: how the e-mail to watchers is sent (``chapters.edit.notify``).
  Default: Django's console backend, which writes each message to the server's output;
  ``django.core.mail.backends.smtp.EmailBackend`` sends it through ``DJANGO_EMAIL_HOST``
  (default ``localhost``), ``DJANGO_EMAIL_PORT`` (default 25), ``DJANGO_EMAIL_HOST_USER``,
  ``DJANGO_EMAIL_HOST_PASSWORD`` and ``DJANGO_EMAIL_USE_TLS`` (a flag), from
  ``DJANGO_DEFAULT_FROM_EMAIL`` (default ``wiki@localhost``).
- ``WIKI_WEBHOOK_ALLOW_PRIVATE``: comma-separated networks (CIDR) whose private, loopback or
  link-local addresses webhooks may be sent to (``chapters.webhooks.addresses``). Default:
  none. ``WIKI_WEBHOOK_TIMEOUT``: the seconds a delivery waits for each step, three times
  that for the whole delivery. Default: 5.
- ``WIKI_METRICS_TOKEN``: the bearer token that opens ``/metrics`` to a scraper, and
  ``WIKI_METRICS_ALLOW_IPS``: comma-separated networks (CIDR) whose clients may read it
  (``chapters.metrics``). Default: neither; staff users only.
- ``WIKI_OIDC_*`` (single sign-on) and ``WIKI_SIGNUP_OPEN``: ``wiki/signin.py``.

With debug off, static files are served by WhiteNoise from ``STATIC_ROOT`` under hashed,
compressed names, so ``manage.py collectstatic`` must have run (``bin/serve-production`` runs
it).
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from wiki.environment import env_flag
from wiki.logs import LOGS

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env_flag("DJANGO_DEBUG")

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random string before serving with "
            "debug off, or set DJANGO_DEBUG=1 for local development."
        )
    # Only reachable with DEBUG on, i.e. on a developer's machine.
    SECRET_KEY = "django-insecure-local-development-only"

ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1").split(",")
    if host.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "mptt",
    "simple_history",
    "csp",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # The sign-in page and single sign-on (wiki/signin.py, chapters/signin/).
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "chapters",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware, as WhiteNoise asks: static files skip the rest.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Counts and times every request but static files' (chapters.metrics): outside everything
    # else, so that the time includes the reader cache's answers and the compression.
    "chapters.metrics.RequestMetricsMiddleware",
    # Compresses every response not made for a signed-in user (wiki/compression.py): outside
    # the reader middleware below, so that readers' kept pages and 304s pass through it, and
    # inside WhiteNoise, which serves its own compressed copies of static files.
    "wiki.compression.PublicGZipMiddleware",
    # A reader's conditional GET of a page that has not changed is answered 304 here, before
    # anything else runs (chapters.caching).
    "chapters.caching.middleware.ReaderNotModifiedMiddleware",
    # django-csp's middleware, with the policy built once per process (wiki/csp.py).
    "wiki.csp.PolicyOnceMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Readers' pages kept in the cache, and their 304s, are answered here, with the headers
    # of the middleware above, before sessions, authentication and the rest below
    # (chapters.caching).
    "chapters.caching.middleware.ReaderPageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # django-allauth's sign-in flows (chapters/signin/).
    "allauth.account.middleware.AccountMiddleware",
    # Lets django-simple-history record the signed-in user as a revision's author.
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into its lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "wiki.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "chapters.context_processors.wiki",
                "chapters.context_processors.account",
            ],
        },
    },
]

WSGI_APPLICATION = "wiki.wsgi.application"

# Each process keeps its connection for a minute of requests (conn_max_age), and checks it
# with a query before the first use in a request (CONN_HEALTH_CHECKS): a connection the
# database closed meanwhile (a restart, a failover, an idle timeout) is replaced instead of
# failing that request with a 500.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=60,
        conn_health_checks=True,
    )
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Begin every transaction with BEGIN IMMEDIATE, which takes SQLite's one write lock at
    # once, rather than the default deferred BEGIN: two deferred transactions that both read
    # and then write fail with "database is locked" instead of waiting, as two server
    # processes writing the tree at once would. A writer waits for the lock up to "timeout"
    # seconds (Python's default, 5, is too short on a busy machine). Reads outside
    # transactions (pages) take no write lock. See chapters.models.lock_tree.
    DATABASES["default"].setdefault("OPTIONS", {}).update(transaction_mode="IMMEDIATE", timeout=20)

# On PostgreSQL, each process learns of a new version of the wiki by a notification instead
# of a query per page (chapters.caching.version_watch). WIKI_VERSION_NOTIFY=0 switches that
# off, as behind PgBouncer's transaction pooling, where a LISTEN does not last.
WIKI_VERSION_NOTIFY = env_flag("WIKI_VERSION_NOTIFY", default=True)

# Readers' pages may be kept by a shared cache in front (deploy/nginx/wiki.conf,
# deploy/varnish/wiki.vcl) for this many seconds (s-maxage), then served stale for up to
# WIKI_SHARED_CACHE_STALE_SECONDS more while the cache asks the wiki again
# (stale-while-revalidate): an edit shows through such a cache within their sum plus one
# page's render (chapters.caching).
WIKI_SHARED_CACHE_SECONDS = int(os.environ.get("WIKI_SHARED_CACHE_SECONDS") or 1)
WIKI_SHARED_CACHE_STALE_SECONDS = int(os.environ.get("WIKI_SHARED_CACHE_STALE_SECONDS") or 1)

# One cache for every app server when REDIS_URL names a Redis; otherwise each process keeps
# its own in memory, which is right for one process (bin/serve, the tests). A Redis that
# cannot be reached is a miss with a warning, not a 500 (chapters.caching.backends); it is
# given a tenth of a second to connect and a fifth to answer (redis-py waits 5 s for each by
# default, per operation), far more than a Redis on the same network takes.
REDIS_URL = os.environ.get("REDIS_URL", "")
CACHE_TIMEOUT = int(os.environ.get("WIKI_CACHE_TIMEOUT") or 7 * 24 * 3600)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "chapters.caching.backends.TolerantRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 0.1, "socket_timeout": 0.2},
            # Everything is kept under a version or a digest of its content, so nothing goes
            # stale: entries expire only to free the memory of old versions, after a week
            # (Django's default, 300 s, dropped the contents every five minutes).
            "TIMEOUT": CACHE_TIMEOUT,
        }
    }
else:
    # Room for every page of the curriculum and its navigation (about 450 entries) and for
    # the fragments of the contents of 20,000 nodes (721 areas); when full, the third least
    # recently read is dropped. Nothing expires by time (TIMEOUT None): every entry is kept
    # under a version or a digest of its content, so none goes stale.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": None,
            "OPTIONS": {"MAX_ENTRIES": 2000},
        }
    }

# Past this many nodes, pages hold the areas and their own branch of the table of contents,
# and load the whole list from one resource per version (chapters.contents).
TOC_INLINE_MAX_NODES = int(os.environ.get("WIKI_TOC_INLINE_MAX_NODES") or 1000)

# Where errors and warnings go: wiki/logs.py.
LOGGING = LOGS

# Slow or unbounded work (books, image processing, e-mail, re-renders) runs as tasks
# (chapters/tasks.py) of Django's tasks framework, through its backport, kept in the wiki's
# own database by django-tasks-db and run by `manage.py worker` processes (chapters.worker):
# no server beyond the database. Books have a queue of their own, so that an operator may
# give them workers of their own; a worker takes every queue by default.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default", "books"],
    }
}
# A task waiting longer than this many seconds means no worker takes tasks: /healthz answers
# 503 (chapters.health). 0: never.
TASKS_MAX_WAIT = int(os.environ.get("WIKI_TASKS_MAX_WAIT") or 300)
# A worker whose heartbeat is this many seconds old is taken for dead, and its running task is
# handed to the others (chapters.worker); workers beat six times as often.
TASKS_DEAD_AFTER = float(os.environ.get("WIKI_TASKS_DEAD_AFTER") or 30)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# E-mail to the people watching pages (chapters.edit.notify): printed to the server's output
# unless another backend is named, so that a laptop sends nothing.
EMAIL_BACKEND = os.environ.get(
    "DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT") or 25)
EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("DJANGO_EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "wiki@localhost")
# The wiki's address, for the links in e-mail sent about writes made outside a request (an
# import, a script); writes made on the site use the request's.
WIKI_BASE_URL = os.environ.get("WIKI_BASE_URL") or "http://127.0.0.1:8000/"

# Webhooks (chapters/webhooks/): the networks whose private, loopback or link-local addresses
# webhooks may still be sent to, comma-separated CIDR (e.g. "10.0.5.0/24"); none by default,
# as a webhook aimed inside the servers' network would reach what only they can reach. And
# how long a delivery waits for each step (connecting, sending, each read), in seconds; the
# whole delivery gets three times that (chapters.webhooks.delivery).
WIKI_WEBHOOK_ALLOW_PRIVATE = [
    network.strip()
    for network in os.environ.get("WIKI_WEBHOOK_ALLOW_PRIVATE", "").split(",")
    if network.strip()
]
WIKI_WEBHOOK_TIMEOUT = float(os.environ.get("WIKI_WEBHOOK_TIMEOUT") or 5)

# Metrics (chapters/metrics.py): /metrics answers staff users, a request bearing this token
# ("Authorization: Bearer <token>") and the client addresses of these networks
# (comma-separated CIDR, e.g. "10.0.0.0/8" for a Prometheus inside the network); nobody else.
WIKI_METRICS_TOKEN = os.environ.get("WIKI_METRICS_TOKEN", "")
WIKI_METRICS_ALLOW_IPS = [
    network.strip()
    for network in os.environ.get("WIKI_METRICS_ALLOW_IPS", "").split(",")
    if network.strip()
]

# The wiki's name and what it is, told to search engines and link previews in every page's
# <head> (meta description, Open Graph: chapters/templatetags/metadata.py).
WIKI_NAME = "Curriculum Wiki"
WIKI_DESCRIPTION = (
    "A learning curriculum, from mathematics to ML systems and illustration: "
    "areas, sections and chapters."
)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# With debug off, collectstatic stores each file under a name with its content's hash (so
# browsers may keep it forever), and only there, with gzip and Brotli copies (none of source
# maps, which only developer tools fetch: compressing them took half of collectstatic's time),
# and WhiteNoise serves them. With debug on (bin/serve) pages name the files in static/ as
# they are, with no collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")

# Uploaded images and files (chapters.media): kept in the default storage, the filesystem
# under MEDIA_ROOT unless WIKI_MEDIA_S3_BUCKET names a bucket, and always served by the wiki's
# own views under /media/<name> (chapters/media/views.py), which look the name up and add
# the headers each kind needs; MEDIA_URL is the storage's own URL, which pages never use.
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT") or BASE_DIR / "media")
MEDIA_URL = "/media/"
if os.environ.get("WIKI_MEDIA_S3_BUCKET"):
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["WIKI_MEDIA_S3_BUCKET"],
            "endpoint_url": os.environ.get("WIKI_MEDIA_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("WIKI_MEDIA_S3_REGION") or None,
            "location": "media",
            "file_overwrite": False,
            "default_acl": "private",
        },
    }
# What an upload may be (chapters.media.uploads): its size in bytes, and an image's pixels
# (width times height), checked from the image's header before any pixel is decoded, so a
# small file claiming a huge image (a decompression bomb) is refused. 100 million pixels
# take a photo of any phone; a task decodes them (chapters.media.processing), not the
# request. Pillow itself refuses more than about 179 million (twice its MAX_IMAGE_PIXELS).
MEDIA_MAX_SIZE = int(os.environ.get("WIKI_MEDIA_MAX_SIZE") or 20 * 1024 * 1024)
MEDIA_MAX_PIXELS = int(os.environ.get("WIKI_MEDIA_MAX_PIXELS") or 100_000_000)
# The widths, in pixels, of the WebP copies made of each uploaded image wider than them.
MEDIA_VARIANT_WIDTHS = (480, 960, 1920)

FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# Books built by the task workers and sent by the web processes (chapters/books/builds.py),
# one copy for every host in the storage "books": the folder BOOKS_ROOT (which several hosts
# mount), or the bucket WIKI_MEDIA_S3_BUCKET under books/, private. A book is stored whole once
# under a name of its version (file_overwrite: a build run again stores the same bytes); a
# download past max_memory_size is spooled to a temporary file, not held in memory.
BOOKS_ROOT = Path(os.environ.get("WIKI_BOOKS_ROOT") or BASE_DIR / "media" / "books")
STORAGES["books"] = {
    "BACKEND": "django.core.files.storage.FileSystemStorage",
    "OPTIONS": {"location": BOOKS_ROOT},
}
if os.environ.get("WIKI_MEDIA_S3_BUCKET"):
    STORAGES["books"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            **STORAGES["default"]["OPTIONS"],
            "location": "books",
            "file_overwrite": True,
            "max_memory_size": 1024 * 1024,
        },
    }
# A book's PDF is laid out this many nodes at a time (chapters/books/parts.py), up to twice
# as many: the memory a build takes grows with it, not with the book (bench/README.md,
# "Books"). Each layout process holds one part's layout, the building process the book's
# nodes and its contents: 13 keeps the 2,000-node book's process tree under 400 MB.
BOOK_PART_SIZE = 13
# The processes that lay out a book's parts at once (chapters/books/parts.py), each holding
# one part's layout: two, or one on a machine of one core.
BOOK_LAYOUT_PROCESSES = min(2, os.cpu_count() or 1)

# Security headers. Each page may load scripts, styles, images, fonts and fetches from this
# site only, and run no inline script or style: our scripts are files in static/js/; Django's
# admin keeps its data in data- attributes and JSON script elements, which are not run, and
# NodeAdmin indents its tree with classes rather than style attributes. Images in bodies that
# come from other hosts are refused too; data: images are allowed for the small ones that
# stylesheets draw with (bodies cannot hold data: URLs: bleach lets http, https and mailto).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Served over HTTPS only: redirect plain HTTP, keep cookies to HTTPS, and have browsers do the
# same for this host and its subdomains (HSTS; "preload" allows submitting it to browsers'
# preload lists, which only happens by hand).
HTTPS = env_flag("DJANGO_HTTPS")
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS") or 31536000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
# Load balancers check their servers over plain HTTP: the health check (/healthz,
# chapters.health) answers there rather than redirect.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

BEHIND_PROXY = env_flag("DJANGO_BEHIND_PROXY")
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Signing in, on the site (/accounts/login/) and by single sign-on: wiki/signin.py.
from wiki.signin import *  # noqa: E402,F403

# Sign-in, on the site and in the admin: after AXES_FAILURE_LIMIT failed attempts from one
# address, that address is refused (429, templates/axes_lockout.html) for AXES_COOLOFF_TIME;
# a success resets the count.
# Staff can lift a lockout in the admin (Axes > Access attempts) or with manage.py axes_reset.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "axes_lockout.html"
if BEHIND_PROXY:
    AXES_CLIENT_IP_CALLABLE = "wiki.proxy.client_ip"

# Discussion: comments one user may post in a minute (chapters/discussion/threads.py), then 429.
DISCUSSION_COMMENTS_PER_MINUTE = int(os.environ.get("WIKI_DISCUSSION_COMMENTS_PER_MINUTE") or 5)
# The REST API (chapters/api/, docs/operations.md "The API"): tokens or the session, the
# permission rule of chapters.permissions, errors as JSON, and rate limits kept in the cache
# (shared by every app server with Redis). A client is counted by its address: behind one
# reverse proxy the last entry of X-Forwarded-For, as for the sign-in lockout; else the
# connection's own (DRF's NUM_PROXIES).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "chapters.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["chapters.api.authentication.TokenScope"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("WIKI_API_ANON_RATE") or "60/minute",
        "user": os.environ.get("WIKI_API_USER_RATE") or "600/minute",
    },
    "NUM_PROXIES": 1 if BEHIND_PROXY else 0,
    "EXCEPTION_HANDLER": "chapters.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Curriculum Wiki API",
    "DESCRIPTION": "Read the curriculum's tree, its pages, their revisions and search; "
    "edit pages as the site's editor does. Tokens: Authorization: Bearer <token>.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The API's one PATCH (an edit) requires its base revision: not a partial component.
    "COMPONENT_SPLIT_PATCH": False,
}
