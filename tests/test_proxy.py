"""The shipped reverse proxies (deploy/), run as they are in front of gunicorn: what they keep.

nginx (deploy/nginx/wiki.conf) and Varnish (deploy/varnish/wiki.vcl), started by
bench/proxy.py with only their addresses and nginx's cache folder replaced, keep a reader's
page (a gzipped copy and a plain one), send every request with the session or messages
cookie to the wiki, never keep a signed-in user's page, and after an edit serve the new page
once the kept one is past its s-maxage. No assertion here is about how fast: the waits are
longer than the times they wait out, and bench/proxy.py measures the speed.
"""

import gzip
import sqlite3
import subprocess
import time
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from bench import proxy
from chapters.models import Node
from tests.test_gunicorn import gunicorn

pytestmark = [pytest.mark.proxy, pytest.mark.django_db(transaction=True)]

CHAPTER_FIVE = "/area-b/section-b1/chapter-five/"
# nginx counts a page's seconds from the whole second it was fetched in, so a page kept
# for 1 s may be kept until the clock's next second: 1 s more than each time waited out.
PAST_ONE_SECOND, PAST_TWO_SECONDS = 2.5, 3.5
# Debian's packages; .ci/run installs them.
NEEDED = {"nginx": proxy.NGINX, "varnish": proxy.VARNISHD}


def needs(package):
    """Fail, saying what to install, when ``package``'s binary is missing."""
    if not Path(NEEDED[package]).exists():
        pytest.fail(f"{NEEDED[package]} is missing: install Debian's package (apt-get install "
                    f"{package})")  # fmt: skip


@contextmanager
def behind(kind, folder):
    """Serve the test database with gunicorn behind the shipped ``kind`` ("nginx" or
    "varnish"); yield the proxy's port and the header that says what its cache did."""
    needs(kind)
    (folder / kind).mkdir()
    with gunicorn(folder) as upstream:
        if kind == "nginx":
            with proxy.nginx(folder / kind, upstream) as port:
                yield port, "X-Cache-Status"
        else:
            with proxy.varnish(folder / kind, upstream) as port:
                yield port, "X-Cache"


def get(port, path=CHAPTER_FIVE, **headers):
    """Return the status, headers and body of a GET of ``path`` through the proxy."""
    return proxy.fetch(port, path, {"Host": "localhost", **headers})


def rename(folder, title, new_title):
    """Rename the node ``title`` in the database gunicorn serves, committed at once.

    On SQLite, gunicorn serves a copy of the test database (tests/test_gunicorn.py), written
    here; on PostgreSQL, the test database itself. The database's triggers bump the wiki's
    version either way.
    """
    if connection.vendor == "postgresql":
        Node.objects.filter(title=title).update(title=new_title)
        return
    with closing(sqlite3.connect(folder / "db.sqlite3")) as served, served:
        served.execute("UPDATE chapters_node SET title = ? WHERE title = ?", (new_title, title))


def session_cookie(user):
    """Return a ``Cookie`` header with a session of ``user`` signed in."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


@pytest.mark.parametrize(("kind", "bypassed"), [("nginx", "BYPASS"), ("varnish", "PASS")])
def test_proxy_keeps_readers_pages_and_sends_signed_in_users_to_the_wiki(
    small_tree, admin_user, tmp_path, monkeypatch, kind, bypassed
):
    monkeypatch.setenv("WIKI_SHARED_CACHE_SECONDS", "300")
    monkeypatch.setenv("WIKI_SHARED_CACHE_STALE_SECONDS", "60")
    staff = session_cookie(admin_user)
    with behind(kind, tmp_path) as (port, said):
        first, again = get(port), get(port)
        head = proxy.fetch(port, CHAPTER_FIVE, {"Host": "localhost"}, method="HEAD")
        signed_in = [get(port, Cookie=staff) for _ in range(2)]
        with_messages = get(port, Cookie="messages=waiting")
        with_other_cookie = get(port, Cookie="csrftoken=abc; theme=dark")
        reader_after = get(port)
        gzipped = [get(port, **{"Accept-Encoding": each}) for each in ["gzip, deflate, br", "gzip"]]
        search = [get(port, "/search/?q=chapter") for _ in range(2)]
    assert [first[0], first[1][said], again[0], again[1][said]] == [200, "MISS", 200, "HIT"]
    assert again[2] == first[2]
    assert again[1]["ETag"] == first[1]["ETag"]
    assert first[1]["Cache-Control"] == (
        "public, max-age=0, s-maxage=300, stale-while-revalidate=60"
    )
    assert (head[0], head[1][said], head[2]) == (200, "HIT", b"")
    assert [(r[0], r[1][said], r[1]["Cache-Control"]) for r in signed_in] == [
        (200, bypassed, "no-cache, private")
    ] * 2
    assert all(b'class="edit-link"' in r[2] for r in signed_in)
    assert with_messages[1][said] == bypassed
    assert (with_other_cookie[1][said], with_other_cookie[2]) == ("HIT", first[2])
    assert (reader_after[1][said], reader_after[2]) == ("HIT", first[2])
    # A gzipped copy is kept beside the plain one.
    assert [(r[1][said], r[1]["Content-Encoding"]) for r in gzipped] == [
        ("MISS", "gzip"),
        ("HIT", "gzip"),
    ]
    assert gzip.decompress(gzipped[1][2]) == first[2]
    assert {r[1]["Vary"] for r in [first, *gzipped]} == {"Accept-Encoding"}
    assert b'class="edit-link"' not in first[2]
    assert [r[0] for r in search] == [200, 200]
    assert [r[1][said] for r in search] == ["MISS", "MISS"]  # says nothing a cache keeps


def varnish_counter(folder, name):
    """Return one of the counters of the varnishd that ``behind()`` runs in ``folder``."""
    command = [proxy.VARNISHSTAT, "-n", str(folder / "varnish" / "varnish"), "-1"]
    printed = subprocess.run([*command, "-f", f"MAIN.{name}"], capture_output=True, text=True)
    return int(printed.stdout.split()[1])


def test_varnish_keeps_a_plain_copy_for_clients_that_do_not_take_gzip(
    small_tree, tmp_path, monkeypatch
):
    monkeypatch.setenv("WIKI_SHARED_CACHE_SECONDS", "300")
    monkeypatch.setenv("WIKI_SHARED_CACHE_STALE_SECONDS", "60")
    with behind("varnish", tmp_path) as (port, said):
        zipped = [get(port, **{"Accept-Encoding": "gzip, deflate, br"}) for _ in range(2)]
        plain = [get(port), get(port, **{"Accept-Encoding": "identity"})]
        plain.append(get(port, **{"Accept-Encoding": "deflate, br"}))
        gunzipped = varnish_counter(tmp_path, "n_gunzip")
    assert [(r[1][said], r[1]["Content-Encoding"]) for r in zipped] == [
        ("MISS", "gzip"),
        ("HIT", "gzip"),
    ]
    # Not unzipped from the gzipped copy on each hit: a copy of its own, fetched plain.
    assert [(r[1][said], r[1]["Content-Encoding"]) for r in plain] == [
        ("MISS", None),
        ("HIT", None),
        ("HIT", None),
    ]
    assert gunzipped == 0
    assert [r[2] for r in plain] == [gzip.decompress(zipped[0][2])] * 3


@pytest.mark.parametrize("kind", ["nginx", "varnish"])
def test_proxy_serves_the_kept_page_while_it_fetches_the_edited_one(
    small_tree, tmp_path, monkeypatch, kind
):
    monkeypatch.setenv("WIKI_SHARED_CACHE_SECONDS", "1")
    monkeypatch.setenv("WIKI_SHARED_CACHE_STALE_SECONDS", "120")
    with behind(kind, tmp_path) as (port, said):
        first = get(port)
        rename(tmp_path, "Chapter Five", "Chapter 5")
        time.sleep(PAST_ONE_SECOND)  # past s-maxage, well within stale-while-revalidate
        stale = get(port)
        answers = []
        deadline = time.monotonic() + 60
        while b"<h1>Chapter 5</h1>" not in stale[2] + b"".join(a[2] for a in answers):
            assert time.monotonic() < deadline
            time.sleep(0.1)
            answers.append(get(port))
    assert b"<h1>Chapter Five</h1>" in first[2]
    assert (stale[1][said], stale[2]) == ("STALE", first[2])
    assert all(a[2] == first[2] for a in answers[:-1])
    assert answers[-1][1][said] == "HIT"


@pytest.mark.parametrize("kind", ["nginx", "varnish"])
def test_proxy_asks_the_wiki_again_past_s_maxage_and_stale_while_revalidate(
    small_tree, tmp_path, monkeypatch, kind
):
    monkeypatch.setenv("WIKI_SHARED_CACHE_SECONDS", "1")
    monkeypatch.setenv("WIKI_SHARED_CACHE_STALE_SECONDS", "1")
    with behind(kind, tmp_path) as (port, said):
        first = get(port)
        time.sleep(PAST_TWO_SECONDS)  # past both: not served, but revalidated (a 304)
        revalidated = get(port)
        rename(tmp_path, "Chapter Five", "Chapter 5")
        time.sleep(PAST_TWO_SECONDS)
        edited = get(port)
    expired = {"nginx": ["REVALIDATED", "EXPIRED"], "varnish": ["MISS", "MISS"]}[kind]
    assert [revalidated[1][said], edited[1][said]] == expired
    assert revalidated[2] == first[2]
    assert b"<h1>Chapter 5</h1>" in edited[2]


def test_nginx_sends_the_wikis_answers_without_tcp_nopush():
    """The shipped configuration turns Debian's ``tcp_nopush on`` off for the wiki's answers.

    With it on, every answer from the cache longer than about 64 KB (a page past 1,000 nodes
    is 82 KB) stalled 40 ms for the client's delayed ACK: bench/run.py measured 189 answers a
    second through the cache against 9,432 for the same bytes as a static file, at 20,000
    nodes. How fast is the benchmark's to say; this keeps the directive from being lost.
    """
    conf = proxy.NGINX_CONF.read_text(encoding="utf-8")
    wiki = conf[conf.index("    location / {") :]
    directives = [line.split("#", 1)[0].strip() for line in wiki.splitlines()]
    assert "tcp_nopush off;" in directives
