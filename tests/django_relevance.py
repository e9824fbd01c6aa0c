"""The relevance set on a corpus nobody in the project wrote: Django's own documentation.

The corpus is Django 5.2.19's documentation (BSD-3-Clause, ``tests/data/django-docs/LICENSE``),
made into a folder of Markdown pages by ``bench/django_docs.py`` and kept in
``tests/data/django-docs/``; it is imported with ``import_markdown`` beside the curriculum
fixture. The queries were written as learners ask, before the search was run on them, and
never changed to suit its answers: plain questions, typos, British spellings, identifiers as
they appear in code, prefixes as typed so far, phrases, and the curriculum's own chapters as
a learner would name them. Each gives the pages that answer it (any of them counts as a hit);
a page is named by its path.

Used by ``tests/test_search_relevance.py`` (both databases, with a floor) and by
``bench/search.py`` (hit@1, hit@3 and MRR per category, beside tantivy).
"""

from collections import defaultdict
from pathlib import Path

__all__ = [
    "AGREEMENT",
    "CORPUS",
    "FIRST_RESULTS",
    "QUERIES",
    "first_results",
    "scores",
    "wiki_answers",
]

CORPUS = Path(__file__).resolve().parent / "data" / "django-docs"
# Each database's first result per query, as bench/relevance.py --first-results last wrote it.
FIRST_RESULTS = Path(__file__).resolve().parent / "data" / "django-first-results.json"
AGREEMENT = 0.95  # the share of queries with the same first result on both (issue 26)


def _docs(*paths):
    """Return the paths of pages of the Django documentation's area."""
    return tuple(f"django-docs/{path}" for path in paths)


ML = "machine-learning"

# (category, query, pages that answer it)
QUERIES = [
    # Questions, as a learner types them into a search box.
    ("question", "how do I send an email", _docs("topics/email")),
    ("question", "how to upload a file", _docs("topics/http/file-uploads")),
    ("question", "how do I make a custom user model", _docs("topics/auth/customizing")),
    (
        "question",
        "how do i paginate a list of objects",
        _docs("topics/pagination", "ref/paginator"),
    ),
    ("question", "how can I run raw sql", _docs("topics/db/sql")),
    (
        "question",
        "how do I write my own management command",
        _docs("howto/custom-management-commands"),
    ),
    ("question", "how to create a custom template filter", _docs("howto/custom-template-tags")),
    (
        "question",
        "how do I serve static files in production",
        _docs("howto/static-files/deployment", "howto/static-files"),
    ),
    ("question", "how to deploy with gunicorn", _docs("howto/deployment/wsgi/gunicorn")),
    ("question", "how to translate my site into other languages", _docs("topics/i18n/translation")),
    ("question", "how should I store dates with time zones", _docs("topics/i18n/timezones")),
    ("question", "what is middleware", _docs("topics/http/middleware", "ref/middleware")),
    ("question", "how do I use sessions", _docs("topics/http/sessions")),
    ("question", "how to log errors to a file", _docs("topics/logging", "howto/logging")),
    (
        "question",
        "how do I test my views",
        _docs("topics/testing/tools", "topics/testing/overview"),
    ),
    ("question", "how to make a model field optional", _docs("ref/models/fields")),
    (
        "question",
        "how do I add a many to many relationship",
        _docs("topics/db/examples/many_to_many", "topics/db/models", "ref/models/fields"),
    ),
    ("question", "how to protect a form against csrf", _docs("howto/csrf", "ref/csrf")),
    ("question", "how do I cache a view", _docs("topics/cache")),
    ("question", "difference between null and blank", _docs("ref/models/fields")),
    ("question", "how do I run database migrations", _docs("topics/migrations")),
    (
        "question",
        "how to write a data migration",
        _docs("topics/migrations", "howto/writing-migrations"),
    ),
    ("question", "how to make my database queries faster", _docs("topics/db/optimization")),
    (
        "question",
        "avoid too many queries when accessing related objects",
        _docs("topics/db/optimization", "ref/models/querysets/queryset-api"),
    ),
    ("question", "can I use more than one database", _docs("topics/db/multi-db")),
    (
        "question",
        "run some code every time a model is saved",
        _docs("topics/signals", "ref/signals"),
    ),
    ("question", "how do database transactions work", _docs("topics/db/transactions")),
    ("question", "only let logged in users see a page", _docs("topics/auth/default")),
    ("question", "check a user's permissions in a template", _docs("topics/auth/default")),
    (
        "question",
        "change which columns the admin shows in the list",
        _docs("ref/contrib/admin/modeladmin-objects"),
    ),
    ("question", "add a search box to the admin", _docs("ref/contrib/admin/modeladmin-objects")),
    ("question", "how to generate a csv file", _docs("howto/outputting-csv")),
    ("question", "how to generate a pdf", _docs("howto/outputting-pdf")),
    ("question", "how do I make a sitemap", _docs("ref/contrib/sitemaps")),
    ("question", "how to publish an rss feed", _docs("ref/contrib/syndication")),
    ("question", "how do I install django", _docs("topics/install", "intro/install")),
    ("question", "installing django on windows", _docs("howto/windows")),
    ("question", "how to upgrade to a newer django version", _docs("howto/upgrade-version")),
    ("question", "can views be async", _docs("topics/async")),
    ("question", "run django with uvicorn", _docs("howto/deployment/asgi/uvicorn")),
    ("question", "what to check before going to production", _docs("howto/deployment/checklist")),
    ("question", "sign a value so nobody can tamper with it", _docs("topics/signing")),
    ("question", "how are passwords hashed", _docs("topics/auth/passwords")),
    (
        "question",
        "full text search with postgres",
        _docs("ref/contrib/postgres/search", "topics/db/search"),
    ),
    (
        "question",
        "how to override an admin template",
        _docs("ref/contrib/admin/overriding-admin-templates", "howto/overriding-templates"),
    ),
    (
        "question",
        "load initial data into the database",
        _docs("howto/initial-data", "topics/db/fixtures"),
    ),
    ("question", "use django with an existing database", _docs("howto/legacy-databases")),
    ("question", "write a custom storage backend", _docs("howto/custom-file-storage")),
    ("question", "how do I validate a form field", _docs("ref/forms/validation")),
    ("question", "show a message to the user after a redirect", _docs("ref/contrib/messages")),
    ("question", "how to edit several objects in one form", _docs("topics/forms/formsets")),
    ("question", "create a form from a model", _docs("topics/forms/modelforms")),
    ("question", "how do I report a security vulnerability", _docs("internals/security")),
    (
        "question",
        "how do I submit a patch to django",
        _docs("internals/contributing/writing-code/submitting-patches", "intro/contributing"),
    ),
    ("question", "return json from a view", _docs("ref/request-response")),
    (
        "question",
        "redirect to another page after a form is posted",
        _docs("topics/http/shortcuts", "topics/forms"),
    ),
    (
        "question",
        "show a 404 page when an object does not exist",
        _docs("topics/http/shortcuts", "topics/http/views"),
    ),
    ("question", "primary key made of two columns", _docs("topics/composite-primary-key")),
    ("question", "write my own lookup for filter", _docs("howto/custom-lookups")),
    ("question", "capture a value from the url", _docs("topics/http/urls")),
    ("question", "write a custom model field", _docs("howto/custom-model-fields")),
    ("question", "add an index to a model", _docs("ref/models/indexes", "ref/models/options")),
    (
        "question",
        "unique constraint on two fields together",
        _docs("ref/models/constraints", "ref/models/options"),
    ),
    ("question", "if else inside a database query", _docs("ref/models/conditional-expressions")),
    ("question", "count the number of related objects", _docs("topics/db/aggregation")),
    (
        "question",
        "how to write tests that use the database",
        _docs("topics/testing/overview", "topics/testing/tools"),
    ),
    # Typos, one or two letters off.
    ("typo", "pagnation", _docs("topics/pagination", "ref/paginator")),
    ("typo", "midleware", _docs("topics/http/middleware", "ref/middleware")),
    ("typo", "transations", _docs("topics/db/transactions")),
    ("typo", "serializaton", _docs("topics/serialization")),
    ("typo", "formsts", _docs("topics/forms/formsets", "ref/forms/formsets")),
    ("typo", "authentcation backend", _docs("topics/auth/customizing")),
    ("typo", "migratons", _docs("topics/migrations")),
    ("typo", "signls", _docs("topics/signals", "ref/signals")),
    ("typo", "sesions", _docs("topics/http/sessions")),
    ("typo", "pasword reset", _docs("topics/auth/default")),
    ("typo", "cach framework", _docs("topics/cache")),
    ("typo", "custom tempalte tags", _docs("howto/custom-template-tags")),
    ("typo", "syndicaton feed framework", _docs("ref/contrib/syndication")),
    ("typo", "contenttype framework", _docs("ref/contrib/contenttypes")),
    ("typo", "geodjango tutorail", _docs("ref/contrib/gis/tutorial")),
    ("typo", "clickjaking", _docs("ref/clickjacking")),
    ("typo", "agregation", _docs("topics/db/aggregation")),
    ("typo", "deploymnet checklist", _docs("howto/deployment/checklist")),
    ("typo", "querysets evaulated", _docs("ref/models/querysets/when-querysets-are-evaluated")),
    (
        "typo",
        "principle component analysis",
        (f"{ML}/classical-machine-learning/principal-component-analysis",),
    ),
    ("typo", "knowledge distilation", ("ml-systems/efficiency/knowledge-distillation",)),
    (
        "typo",
        "dynamic programing",
        ("computer-science/algorithms-and-data-structures/dynamic-programming",),
    ),
    # British spellings of what the pages spell the American way.
    ("british", "customising authentication", _docs("topics/auth/customizing")),
    ("british", "serialising django objects", _docs("topics/serialization")),
    ("british", "internationalisation", _docs("topics/i18n")),
    ("british", "localisation of formats", _docs("topics/i18n/formatting")),
    ("british", "optimising database access", _docs("topics/db/optimization")),
    ("british", "organisation of the django project", _docs("internals/organization")),
    ("british", "colour theory", ("digital-illustration/fundamentals/color-theory",)),
    ("british", "quantisation", ("ml-systems/efficiency/quantization",)),
    ("british", "tokenisation", (f"{ML}/transformers-and-language-models/tokenization",)),
    (
        "british",
        "convex optimisation",
        ("mathematics/optimization/optimization-convex-optimization",),
    ),
    ("british", "sql normalisation", ("systems/databases/sql-normalization",)),
    # Identifiers, as they are written in code.
    ("identifier", "select_related", _docs("ref/models/querysets/queryset-api")),
    ("identifier", "get_object_or_404", _docs("topics/http/shortcuts")),
    ("identifier", "JsonResponse", _docs("ref/request-response")),
    ("identifier", "HttpResponseRedirect", _docs("ref/request-response")),
    ("identifier", "list_display", _docs("ref/contrib/admin/modeladmin-objects")),
    ("identifier", "DEFAULT_AUTO_FIELD", _docs("ref/settings/core-settings")),
    ("identifier", "AUTH_USER_MODEL", _docs("topics/auth/customizing", "ref/settings/auth")),
    ("identifier", "reverse_lazy", _docs("ref/urlresolvers")),
    ("identifier", "F() expressions", _docs("ref/models/expressions")),
    ("identifier", "Q objects", _docs("topics/db/queries")),
    ("identifier", "on_delete CASCADE", _docs("ref/models/fields")),
    ("identifier", "bulk_create", _docs("ref/models/querysets/queryset-api")),
    ("identifier", "prefetch_related", _docs("ref/models/querysets/queryset-api")),
    ("identifier", "LoginRequiredMixin", _docs("topics/auth/default")),
    ("identifier", "TemplateView", _docs("ref/class-based-views/base")),
    ("identifier", "ListView", _docs("ref/class-based-views/generic-display")),
    ("identifier", "csrf_exempt", _docs("ref/csrf")),
    ("identifier", "STATIC_ROOT", _docs("ref/settings/static-files")),
    ("identifier", "makemigrations", _docs("ref/django-admin", "topics/migrations")),
    ("identifier", "collectstatic", _docs("ref/contrib/staticfiles")),
    ("identifier", "override_settings", _docs("topics/testing/tools")),
    ("identifier", "get_absolute_url", _docs("ref/models/instances")),
    ("identifier", "unique_together", _docs("ref/models/options")),
    ("identifier", "django.contrib.humanize", _docs("ref/contrib/humanize")),
    ("identifier", "pre_save", _docs("ref/signals")),
    ("identifier", "ArrayField", _docs("ref/contrib/postgres/fields")),
    ("identifier", "SearchVector", _docs("ref/contrib/postgres/search")),
    ("identifier", "transaction.atomic", _docs("topics/db/transactions")),
    ("identifier", "send_mail", _docs("topics/email")),
    ("identifier", "ModelForm", _docs("topics/forms/modelforms")),
    # Prefixes: a word as far as it has been typed.
    ("prefix", "pagin", _docs("topics/pagination", "ref/paginator")),
    ("prefix", "middlew", _docs("topics/http/middleware", "ref/middleware")),
    ("prefix", "syndic", _docs("ref/contrib/syndication")),
    ("prefix", "clickj", _docs("ref/clickjacking")),
    ("prefix", "contentty", _docs("ref/contrib/contenttypes")),
    ("prefix", "flatpa", _docs("ref/contrib/flatpages")),
    ("prefix", "humaniz", _docs("ref/contrib/humanize")),
    ("prefix", "tablesp", _docs("topics/db/tablespaces")),
    ("prefix", "geoip", _docs("ref/contrib/gis/geoip2")),
    ("prefix", "uvico", _docs("howto/deployment/asgi/uvicorn")),
    ("prefix", "hypercor", _docs("howto/deployment/asgi/hypercorn")),
    ("prefix", "spatiali", _docs("ref/contrib/gis/install/spatialite")),
    ("prefix", "backprop", (f"{ML}/neural-networks/backpropagation",)),
    # Phrases: several words, the way a page names its subject.
    ("phrase", "class-based views mixins", _docs("topics/class-based-views/mixins")),
    ("phrase", "model meta options", _docs("ref/models/options")),
    ("phrase", "template response", _docs("ref/template-response")),
    ("phrase", "database functions", _docs("ref/models/database-functions")),
    ("phrase", "query expressions", _docs("ref/models/expressions")),
    ("phrase", "file storage api", _docs("ref/files/storage")),
    ("phrase", "form rendering api", _docs("ref/forms/renderers")),
    ("phrase", "system check framework", _docs("topics/checks", "ref/checks")),
    ("phrase", "cryptographic signing", _docs("topics/signing")),
    ("phrase", "design philosophies", _docs("misc/design-philosophies")),
    ("phrase", "api stability", _docs("misc/api-stability")),
    ("phrase", "release process", _docs("internals/release-process")),
    ("phrase", "deprecation timeline", _docs("internals/deprecation")),
    (
        "phrase",
        "working with git and github",
        _docs("internals/contributing/writing-code/working-with-git"),
    ),
    ("phrase", "many-to-one relationships", _docs("topics/db/examples/many_to_one")),
    ("phrase", "conditional view processing", _docs("topics/conditional-view-processing")),
    ("phrase", "password management", _docs("topics/auth/passwords")),
    # The curriculum's chapters, as a learner names them.
    (
        "curriculum",
        "threads synchronization",
        ("systems/concurrency/synchronization", "systems/operating-systems/processes-and-threads"),
    ),
    ("curriculum", "q learning", (f"{ML}/reinforcement-learning/q-learning",)),
    (
        "curriculum",
        "support vector machines",
        (f"{ML}/classical-machine-learning/kernel-methods-and-support-vector-machines",),
    ),
    (
        "curriculum",
        "eigenvalues",
        ("mathematics/linear-algebra/linear-algebra-eigenvalues-and-decompositions",),
    ),
    ("curriculum", "lock free algorithms", ("systems/concurrency/lock-free-algorithms",)),
    ("curriculum", "memory ordering", ("systems/concurrency/atomics-and-memory-ordering",)),
    (
        "curriculum",
        "isolation levels of transactions",
        ("systems/databases/transactions-and-isolation", *_docs("topics/db/transactions")),
    ),
    ("curriculum", "policy gradient", (f"{ML}/reinforcement-learning/policy-gradients",)),
    ("curriculum", "three point lighting", ("3d-animation/lighting/three-point-lighting",)),
    (
        "curriculum",
        "twelve principles of animation",
        ("3d-animation/animation/the-twelve-principles",),
    ),
    (
        "curriculum",
        "kernel fusion",
        ("ml-systems/ml-compilers/graph-optimization-and-kernel-fusion",),
    ),
    ("curriculum", "uv layout", ("3d-animation/texturing/uv-layout",)),
    ("curriculum", "virtual memory", ("systems/operating-systems/virtual-memory",)),
]


def scores(ranked, queries):
    """Return ``{category: (n, hit@1, hit@3, MRR)}`` and ``"all"``, for each query's ranked
    paths (``ranked``, in the order of ``queries``)."""
    totals = defaultdict(lambda: [0, 0, 0, 0.0])
    for (category, _query, expected), found in zip(queries, ranked, strict=True):
        rank = next((i for i, path in enumerate(found[:10]) if path in expected), None)
        for key in (category, "all"):
            row = totals[key]
            row[0] += 1
            row[1] += rank == 0
            row[2] += rank is not None and rank < 3
            row[3] += 0 if rank is None else 1 / (rank + 1)
    return {key: (n, h1 / n, h3 / n, mrr / n) for key, (n, h1, h3, mrr) in totals.items()}


def first_results(ranked, queries=None):
    """Return ``{query: its first path, or None}`` for each query's ranked paths (``ranked``,
    in the order of ``queries``, by default :data:`QUERIES`)."""
    queries = QUERIES if queries is None else queries
    return {
        query: (found[:1] or [None])[0]
        for (_, query, _), found in zip(queries, ranked, strict=True)
    }


def wiki_answers(queries):
    """Return the first ten paths the wiki's search gives each query (the search page's
    answer, corrections included: ``chapters.search.answer``)."""
    from chapters.search import answer  # Django is set up by now

    answers = []
    for _category, query, _expected in queries:
        _parsed, found, _corrected = answer(query)
        answers.append(list(found.values_list("path", flat=True)[:10]))
    return answers
