"""Settings of the honest floor: the least Django needs to answer a request.

No apps, no database, no templates, debug off, and only the two middleware every Django
project keeps (``SecurityMiddleware`` and ``CommonMiddleware``, at their defaults). The one
view (``bench/floor/urls.py``) answers with the bytes of the chapter page being measured,
read once from ``BENCH_FLOOR_FILE``. gunicorn serves it with the product's settings
(``wiki/gunicorn.conf.py``, the same workers) and no access log: the cheapest answer a
Django project can give with these bytes, the bar the wiki's page is measured against.
"""

import os

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = []
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]
ROOT_URLCONF = "bench.floor.urls"
DATABASES = {}
USE_TZ = True
