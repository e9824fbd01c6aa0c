"""Time an image's upload and its processing, served as in production.

Usage::

    .venv/bin/python bench/media.py                           # on SQLite
    .venv/bin/python bench/media.py --database postgresql     # on a scratch PostgreSQL database

A scratch database (a SQLite file in a temporary directory, or a PostgreSQL database made
and dropped as bench/run.py makes them) is migrated and given an editor and a chapter whose
body places the two images before they exist. gunicorn serves the wiki (2 workers,
``wiki/gunicorn.conf.py``) and one ``manage.py worker`` runs its tasks, as
``bin/serve-production`` starts them. Then, signed in as the editor, the benchmark uploads
through the library's upload form (``/media/upload/``, with its CSRF token) a 40-megapixel
PNG and a 48-megapixel JPEG as a phone takes it (EXIF with a quarter turn and a location),
one after the other, and for each measures:

- the upload's answer: from sending the form to its redirect to the item's page (target
  ≤ 1 s);
- the image shown: from sending the form until the chapter, fetched anonymously every
  quarter second, places the image with its copies (a ``srcset`` naming them) and the image
  and each copy answer 200 (target ≤ 30 s);
- what was served meanwhile (the placeholder, never the upload) and what the stored image
  keeps of the upload's metadata (nothing);

then prints a table, the worker's peak memory and the machine's load before and after. The
results go in bench/README.md.
"""

import argparse
import io
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import machine, scratch_database  # noqa: E402
from bench.serving import free_port, gunicorn_command, wait_until_up  # noqa: E402

CHAPTER = "/photos/camera/uploads/"
TARGET_ANSWER_S = 1.0
TARGET_SHOWN_S = 30.0
POLL_S = 0.25
# What the phone's EXIF says, to be looked for in what is stored.
SECRET = b"bench-location-48.51N"


def photo(width, height, noisy_rows, grain_sigma):
    """Return an RGB image with smooth gradients, and grain of ``grain_sigma`` in its first
    ``noisy_rows`` rows, as a photo's sky and ground compress differently: about 16 MB for
    the PNG of 40 megapixels, as the issue's, and 7 MB for the JPEG of 48, as a phone's."""
    from PIL import Image, ImageChops

    base = Image.linear_gradient("L").resize((width, height))
    other = Image.linear_gradient("L").rotate(90).resize((width, height))
    grain = Image.new("L", (width, height), 128)
    grain.paste(Image.effect_noise((width, noisy_rows), grain_sigma), (0, 0))
    red = ImageChops.add(base, grain, scale=1.0, offset=-128)
    return Image.merge("RGB", (red, other, ImageChops.blend(base, other, 0.5)))


def uploads(scale):
    """Return the uploads, their sides times ``scale``: ``(label, file name, bytes, content
    type)``."""
    from PIL import Image

    def side(pixels):
        return round(pixels * scale)

    png = io.BytesIO()
    photo(side(7746), side(5164), side(3200), 2).save(png, "PNG")
    exif = Image.Exif()
    exif[0x0112] = 6  # a quarter turn, as a phone held upright writes
    exif[0x010E] = SECRET.decode()
    exif[0x8825] = {2: (48.0, 51.0, 0.0)}
    jpeg = io.BytesIO()
    photo(side(8000), side(6000), side(6000), 8).save(
        jpeg, "JPEG", quality=92, exif=exif, comment=SECRET
    )
    return [
        (f"PNG, {side(7746):,} × {side(5164):,}", "scan.png", png.getvalue(), "image/png"),
        (f"JPEG, {side(8000):,} × {side(6000):,}", "photo.jpg", jpeg.getvalue(), "image/jpeg"),
    ]


def prepare(names):
    """Migrate the scratch database, add the editor and the chapter placing ``names``;
    return the editor's session cookie."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections
    from django.test import Client

    from chapters.models import Node

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_superuser(
        "bench-editor", "bench@example.com", secrets.token_urlsafe(16)
    )
    area = Node.objects.create(title="Photos", kind=Node.Kind.SECTION)
    section = Node.objects.create(title="Camera", kind=Node.Kind.SECTION, parent=area)
    body = "\n\n".join(f"![A photo](image:{name})" for name in names)
    Node.objects.create(title="Uploads", parent=section, body=f"Photos:\n\n{body}")
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    connections.close_all()
    return settings.SESSION_COOKIE_NAME, cookie


def multipart(fields, file_field, filename, content, content_type):
    """Return the body and the Content-Type of a multipart form with one file."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
        f'filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n'.encode()
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Keep a redirect as the answer, to time the upload's own."""

    def redirect_request(self, *args, **kwargs):
        return None


def upload_and_wait(base, opener, session, label, filename, content, content_type):
    """Upload one image through the library's form and wait until its chapter shows it.

    Returns:
        A dict: ``label``, ``megabytes``, ``answer_s``, ``shown_s``, ``copies``,
        ``placeholder``
        (what the image's URL answered before it was ready), ``metadata_left``.

    Raises:
        RuntimeError: the upload was refused, or the image was not shown within a minute.
    """
    library = opener.open(urllib.request.Request(f"{base}/media/", headers={"Cookie": session}))
    page = library.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    csrf = re.search(r"csrftoken=([^;]+)", library.headers["Set-Cookie"]).group(1)
    body, form_type = multipart(
        {"csrfmiddlewaretoken": token, "title": label, "alt": "A photo"},
        "file",
        filename,
        content,
        content_type,
    )
    headers = {"Content-Type": form_type, "Cookie": f"{session}; csrftoken={csrf}"}
    request = urllib.request.Request(f"{base}/media/upload/", data=body, headers=headers)
    started = time.perf_counter()
    try:
        opener.open(request, timeout=120)
        raise RuntimeError(f"the upload of {filename} was not redirected: refused?")
    except urllib.error.HTTPError as answer:
        if answer.code != 302:
            raise RuntimeError(f"the upload of {filename} answered {answer.code}") from None
        answered = time.perf_counter() - started
    placeholder = None
    while True:
        if placeholder is None:
            with urllib.request.urlopen(f"{base}/media/{filename}?v=1") as response:
                placeholder = response.headers["Content-Type"]
        chapter = urllib.request.urlopen(f"{base}{CHAPTER}").read().decode()
        sources = re.search(rf'srcset="([^"]*/media/{re.escape(filename)}/[^"]*)"', chapter)
        if sources:
            urls = [candidate.split()[0] for candidate in sources.group(1).split(", ")]
            if all(urllib.request.urlopen(f"{base}{url}").status == 200 for url in urls):
                break
        if time.perf_counter() - started > 60:
            raise RuntimeError(f"{filename} was not shown within a minute")
        time.sleep(POLL_S)
    shown = time.perf_counter() - started
    stored = urllib.request.urlopen(f"{base}/media/{filename}?v=1").read()
    return {
        "label": label,
        "megabytes": len(content) / 1e6,
        "answer_s": answered,
        "shown_s": shown,
        "copies": len(urls) - 1,
        "placeholder": placeholder,
        "metadata_left": SECRET in stored,
    }


def peak_memory_mb(pid):
    """Return a process's peak resident memory (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(url, scratch, scale):
    """Serve the wiki on the database at ``url`` and time both uploads (their sides times
    ``scale``); return the results and the worker's peak memory in MB."""
    images = uploads(scale)
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="bench.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_MEDIA_ROOT=str(Path(scratch) / "media"),
    )
    os.environ.update(env)
    cookie_name, cookie = prepare([filename for _, filename, _, _ in images])
    port = free_port()
    log = open(Path(scratch) / "servers.log", "wb")  # noqa: SIM115
    server = subprocess.Popen(
        gunicorn_command(port, 2), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker", "--no-reload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{base}{CHAPTER}")
        opener = urllib.request.build_opener(NoRedirect)
        session = f"{cookie_name}={cookie}"
        results = [upload_and_wait(base, opener, session, *image) for image in images]
        return results, peak_memory_mb(worker.pid)
    except Exception:
        log.flush()
        sys.stderr.write((Path(scratch) / "servers.log").read_text()[-3000:])
        raise
    finally:
        for process in (server, worker):
            process.terminate()
            process.wait(30)
        log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument(
        "--postgres-url",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="a database to connect to while creating and dropping the scratch one",
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="the images' sides times this, for a quick look"
    )
    arguments = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-media-") as scratch:
        url, drop = scratch_database(arguments.database, "media", scratch, arguments.postgres_url)
        try:
            results, worker_mb = run(url, scratch, arguments.scale)
        finally:
            drop()
    load_after = os.getloadavg()
    print(f"{machine()}; {arguments.database}; gunicorn 2 workers, 1 task worker")
    print(
        "load average (1, 5, 15 min): before "
        + ", ".join(f"{value:.2f}" for value in load_before)
        + "; after "
        + ", ".join(f"{value:.2f}" for value in load_after)
    )
    print()
    # The targets are for the full size (--scale 1).
    print("| upload | file | answer (target ≤ 1 s) | shown with its copies (target ≤ 30 s) |")
    print("| --- | ---: | ---: | ---: |")
    for row in results:
        print(
            f"| {row['label']} | {row['megabytes']:.1f} MB | {row['answer_s']:.2f} s | "
            f"{row['shown_s']:.1f} s ({row['copies']} copies) |"
        )
    print()
    served = {row["placeholder"] for row in results}
    left = any(row["metadata_left"] for row in results)
    print(f"served before processing ended: {', '.join(sorted(served))}; metadata left: {left}")
    print(f"the task worker's peak memory: {worker_mb:.0f} MB")
    missed = [
        row["label"]
        for row in results
        if row["answer_s"] > TARGET_ANSWER_S or row["shown_s"] > TARGET_SHOWN_S
    ]
    if missed or left:
        print(f"missed: {', '.join(missed) or 'metadata left'}")
        sys.exit(1)


if __name__ == "__main__":
    main()
