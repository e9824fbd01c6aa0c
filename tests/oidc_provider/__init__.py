"""A real OpenID provider for the single sign-on tests, started on localhost.

A Django project of its own (``settings.py``, ``urls.py``): django-oauth-toolkit with
OpenID Connect on, run by Django's ``runserver --noreload`` in a child process on a free
port, its database a SQLite file in a folder of its own and
its RSA signing key generated for the run. It signs in its users with Django's own login
page and asks them to consent, then answers the wiki's token and userinfo requests, with
the user's groups at the provider in the ``groups`` claim (``validator.py``). Nothing of
the protocol is mocked: the wiki's allauth client talks to it over HTTP.

``Provider.start()`` returns a running provider (``stop()`` ends it); ``add_user()`` and
``add_client()`` write its database through ``seed.py``; ``configure_wiki()`` registers the
wiki at a given address as its client and points the wiki's settings at it, as an operator
does with the ``WIKI_OIDC_*`` variables (wiki/signin.py).
"""

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from wiki.signin import openid_connect_apps, role_map

__all__ = ["PROVIDER_ID", "Provider"]

# The wiki's name for the test provider: its URLs are /accounts/oidc/test-idp/...
PROVIDER_ID = "test-idp"
# What the test provider's groups give in the wiki (WIKI_OIDC_GROUPS).
GROUPS = "wiki-editors=Editor,wiki-reviewers=Reviewer,wiki-admins=Admin"

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port():
    """Return a TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Provider:
    """A running test OpenID provider: its issuer URL and how to add users and clients."""

    def __init__(self, folder, process, url):
        self.folder, self.process, self.url = folder, process, url
        self.issuer = f"{url}/o"

    @classmethod
    def start(cls, timeout=60):
        """Make the provider's folder (key, migrated database), start its server, and
        return the provider once its discovery document answers.

        Raises:
            RuntimeError: the server did not answer within ``timeout`` seconds; the message
                holds its output.
        """
        folder = Path(tempfile.mkdtemp(prefix="wiki-oidc-provider-"))
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        (folder / "key.pem").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        cls._run(folder, "-m", "django", "migrate", "--verbosity", "0")
        port = free_port()
        # The server's output goes to a file of the folder; the child keeps its own handle.
        with (folder / "server.log").open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "django", "runserver", "--noreload", f"127.0.0.1:{port}"],
                cwd=ROOT,
                env=cls._environment(folder),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        provider = cls(folder, process, f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{provider.issuer}/.well-known/openid-configuration"):
                    return provider
            except OSError as error:
                if time.monotonic() > deadline or process.poll() is not None:
                    output = (folder / "server.log").read_text(errors="replace")
                    provider.stop()
                    raise RuntimeError(
                        f"the test OpenID provider did not start:\n{output}"
                    ) from error
                time.sleep(0.2)

    @staticmethod
    def _environment(folder):
        """Return the environment of the provider's processes."""
        return {
            **os.environ,
            "OIDC_PROVIDER_DIR": str(folder),
            "DJANGO_SETTINGS_MODULE": "tests.oidc_provider.settings",
        }

    @classmethod
    def _run(cls, folder, *arguments):
        """Run Python with ``arguments`` in the provider's settings; raise on failure."""
        subprocess.run(
            [sys.executable, *arguments], cwd=ROOT, env=cls._environment(folder), check=True
        )

    def add_user(self, username, password, email, *groups):
        """Make a user of the provider in its ``groups``."""
        self._run(self.folder, "-m", "tests.oidc_provider.seed", "user", username, password,
                  email, *groups)  # fmt: skip

    def add_client(self, redirect_uri):
        """Register a client redirecting to ``redirect_uri``; return its ID and secret."""
        client_id, secret = f"wiki-{secrets.token_hex(4)}", secrets.token_urlsafe(24)
        self._run(self.folder, "-m", "tests.oidc_provider.seed", "client", client_id, secret,
                  redirect_uri)  # fmt: skip
        return client_id, secret

    def configure_wiki(self, settings, wiki_url):
        """Register the wiki served at ``wiki_url`` as a client, and point its settings here.

        Args:
            settings: pytest-django's ``settings`` fixture, restored after the test.
            wiki_url: the wiki's address as the browser sees it, ``http://testserver`` for
                Django's test client, the live server's URL for a browser.
        """
        callback = f"{wiki_url}/accounts/oidc/{PROVIDER_ID}/login/callback/"
        client_id, secret = self.add_client(callback)
        environ = {
            "WIKI_OIDC_SERVER_URL": self.issuer,
            "WIKI_OIDC_CLIENT_ID": client_id,
            "WIKI_OIDC_CLIENT_SECRET": secret,
            "WIKI_OIDC_PROVIDER_ID": PROVIDER_ID,
            "WIKI_OIDC_NAME": "Test Provider",
        }
        settings.SOCIALACCOUNT_PROVIDERS = {
            "openid_connect": {"APPS": openid_connect_apps(environ)}
        }
        settings.WIKI_OIDC_GROUPS = role_map(GROUPS)

    def stop(self):
        """End the server and remove the provider's folder."""
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
