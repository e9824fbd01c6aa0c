"""gunicorn's settings for serving the wiki in production (``bin/serve-production``).

Read by ``gunicorn -c wiki/gunicorn.conf.py``; each name is one of gunicorn's settings
(https://docs.gunicorn.org/en/stable/settings.html). From the environment:

- ``GUNICORN_BIND``: the address to listen on. Default: ``127.0.0.1:8000``; behind a load
  balancer on another host, ``0.0.0.0:8000``.
- ``WEB_CONCURRENCY``: the number of worker processes (gunicorn's own variable). Default:
  two per CPU core plus one, gunicorn's advice for synchronous workers.
"""

import multiprocessing
import os

wsgi_app = "wiki.wsgi:application"
bind = [os.environ.get("GUNICORN_BIND") or "127.0.0.1:8000"]
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count() + 1)

# A request that takes longer than this is stuck: its worker is killed and replaced. On a
# restart (SIGHUP, SIGTERM), workers get as long to finish the requests they have.
timeout = 30
graceful_timeout = 30
# Keep idle connections from a load balancer open a little, so it can reuse them.
keepalive = 5

# One line per request on standard output, one per problem on standard error, for the
# process manager's log.
accesslog = "-"
errorlog = "-"
