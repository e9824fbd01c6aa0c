"""Static files in production: hashed, compressed names made by collectstatic, served by
WhiteNoise."""

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import brotli
import pytest
from django.conf import settings
from django.core.management import call_command
from django.templatetags.static import static
from django.test import Client, override_settings

from tests.helpers import run_with_environment

# Run in parallel (bin/test -n 2 --dist loadgroup, as .ci/run does), this module's tests all go
# to one worker, so that collectstatic (``collected_root``) runs once, not in each.
pytestmark = pytest.mark.xdist_group("collectstatic")

PRINT_STATIC = (
    "from wiki import settings as s; print(s.STORAGES['staticfiles']['BACKEND'], s.MIDDLEWARE[:2])"
)


def static_settings(**env):
    """Return the static-file settings that ``env`` gives, as printed."""
    return run_with_environment(PRINT_STATIC, **env)


def test_production_settings_store_static_files_under_hashed_compressed_names():
    assert static_settings(DJANGO_SECRET_KEY="k") == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage "
        "['django.middleware.security.SecurityMiddleware', "
        "'whitenoise.middleware.WhiteNoiseMiddleware']"
    )


def test_debug_settings_name_static_files_as_they_are():
    assert static_settings(DJANGO_DEBUG="1").split()[0] == (
        "django.contrib.staticfiles.storage.StaticFilesStorage"
    )


PRODUCTION_STATIC = {
    "STORAGES": {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    },
    "WHITENOISE_AUTOREFRESH": False,
    "WHITENOISE_USE_FINDERS": False,
}


@pytest.fixture(scope="session")
def collected_root(tmp_path_factory):
    """Run collectstatic once with the production storage into a temporary directory.

    Once per session rather than per module: pytest-django runs tests that use the database
    before the others, which splits this module in two, and a module's fixture would be made
    again for the second part. No test writes to the directory.
    """
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root, **PRODUCTION_STATIC):
        call_command("collectstatic", interactive=False, verbosity=0)
    return root


@pytest.fixture
def collected(settings, collected_root):
    """Serve the collected files as production does; return their directory.

    WhiteNoise then scans ``STATIC_ROOT`` once (no autorefresh); a new ``Client`` builds its
    middleware with these settings.
    """
    settings.STATIC_ROOT = collected_root
    for name, value in PRODUCTION_STATIC.items():
        setattr(settings, name, value)
    return collected_root


def hashed_file(root, url):
    """Return the collected file at a static URL."""
    return root / url.removeprefix("/static/")


def test_collectstatic_names_files_by_their_content_hash(collected):
    url = static("css/wiki.css")
    assert re.fullmatch(r"/static/css/wiki\.[0-9a-f]{12}\.css", url)
    assert hashed_file(collected, url).is_file()
    assert hashed_file(collected, url + ".gz").is_file()
    assert hashed_file(collected, url + ".br").is_file()


def test_collectstatic_keeps_only_hashed_names_and_leaves_source_maps_uncompressed(collected):
    assert not (collected / "css" / "wiki.css").exists()
    bundle = static("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")
    # The bundle's last line names its map (the manifest storage rewrote it to the hashed name).
    last_line = hashed_file(collected, bundle).read_text().rstrip().rsplit("\n", 1)[-1]
    map_file = hashed_file(collected, bundle).parent / last_line.removeprefix(
        "//# sourceMappingURL="
    )
    assert re.fullmatch(r"redoc\.standalone\.js\.[0-9a-f]{12}\.map", map_file.name)
    assert map_file.is_file()
    assert not Path(f"{map_file}.gz").exists() and not Path(f"{map_file}.br").exists()
    assert hashed_file(collected, bundle + ".br").is_file()


def test_whitenoise_serves_a_hashed_file_gzipped_and_cacheable_forever(collected):
    url = static("css/wiki.css")
    response = Client().get(url, headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert response["Content-Type"] == 'text/css; charset="utf-8"'
    assert response["Cache-Control"] == "max-age=315360000, public, immutable"
    assert response["Vary"] == "Accept-Encoding"
    body = gzip.decompress(b"".join(response.streaming_content))
    assert body == hashed_file(collected, url).read_bytes()


def test_whitenoise_serves_brotli_when_the_browser_takes_it(collected):
    url = static("js/toc.js")
    response = Client().get(url, headers={"accept-encoding": "gzip, br"})
    assert response["Content-Encoding"] == "br"
    body = brotli.decompress(b"".join(response.streaming_content))
    assert body == (settings.BASE_DIR / "static" / "js" / "toc.js").read_bytes()


def test_whitenoise_serves_plain_bytes_without_accept_encoding(collected):
    url = static("js/toc.js")
    response = Client().get(url)
    assert "Content-Encoding" not in response
    assert (
        b"".join(response.streaming_content)
        == (settings.BASE_DIR / "static" / "js" / "toc.js").read_bytes()
    )


@pytest.mark.django_db
def test_pages_name_the_hashed_files(collected, curriculum):
    page = Client().get("/ml-systems/").content.decode()
    assert re.search(r'<script src="/static/js/toc\.[0-9a-f]{12}\.js" defer></script>', page)
    assert 'href="/static/css/wiki.css"' not in page


def test_urlconf_loads_before_collectstatic_has_run(tmp_path):
    # bin/serve-production runs migrate and collectstatic, whose checks load the URLconf,
    # before there is a manifest of hashed names.
    script = (
        "import django; django.setup(); from django.conf import settings; "
        f"settings.STATIC_ROOT = {str(tmp_path)!r}; "
        "from django.urls import resolve; print(resolve('/favicon.ico').url_name)"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env={**clean, "DJANGO_SECRET_KEY": "k", "DJANGO_SETTINGS_MODULE": "wiki.settings"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")


def test_favicon_redirects_to_the_hashed_file(collected):
    response = Client().get("/favicon.ico")
    assert response.status_code == 301
    assert re.fullmatch(r"/static/favicon\.[0-9a-f]{12}\.svg", response["Location"])
