"""The honest floor: a minimal Django project that answers with a page's bytes (bench/README.md)."""
