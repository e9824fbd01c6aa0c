"""The benchmark: trees of the curriculum's shape at several sizes, measured in-process and
served by gunicorn under wrk (``bench/run.py``; see bench/README.md)."""
