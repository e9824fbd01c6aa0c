"""Uploads through the API (chapters/api/media.py): for every role and token, refused with
the site's reasons."""

import pytest

from chapters.models import MediaItem
from tests.api import ROLES, as_role
from tests.images import SVG_WITH_SCRIPT, png_upload, upload

pytestmark = pytest.mark.django_db

OUTCOMES = {
    "anonymous": 401,
    "reader": 403,
    "Editor": 201,
    "Reviewer": 201,
    "Admin": 201,
    "read token": 403,
    "write token": 201,
}


@pytest.mark.parametrize("role", ROLES)
def test_api_upload_for_every_role(client, role):
    user, headers = as_role(client, role)
    response = client.post(
        "/api/media/", {"file": png_upload("Kernel Map.png", 300, 200), "alt": "A map"}, **headers
    )
    assert response.status_code == OUTCOMES[role]
    if response.status_code != 201:
        assert response.json()["code"] == (
            "not_authenticated" if role == "anonymous" else "permission_denied"
        )
        assert MediaItem.objects.count() == 0
        return
    assert response.json() == {
        "name": "kernel-map.png",
        "title": "Kernel Map.png",
        "alt": "A map",
        "kind": "image",
        "state": "processing",
        "url": "/media/kernel-map.png",
        "thumbnail": "/media/kernel-map.png?v=1",
        "markdown": "![A map](image:kernel-map.png)",
    }
    assert MediaItem.objects.get().uploader == user


def test_api_upload_refusals_say_why(client):
    as_role(client, "Editor")
    svg = client.post("/api/media/", {"file": upload("drawing.svg", SVG_WITH_SCRIPT), "alt": "x"})
    assert (svg.status_code, svg.json()) == (
        400,
        {
            "detail": "The input was refused.",
            "code": "invalid",
            "fields": {
                "file": [
                    "“drawing.svg” is an SVG image, which can hold scripts: SVG is not accepted. "
                    "Export the drawing as PNG or WebP and upload that."
                ]
            },
        },
    )
    no_alt = client.post("/api/media/", {"file": png_upload()})
    assert no_alt.json()["fields"] == {
        "file": ["Describe the image for readers who cannot see it."]
    }
    no_file = client.post("/api/media/", {"alt": "x"})
    assert no_file.json()["fields"] == {"file": ["This field is required."]}
    as_json = client.post("/api/media/", {"alt": "x"}, content_type="application/json")
    assert (as_json.status_code, as_json.json()) == (
        415,
        {
            "detail": 'Unsupported media type "application/json" in request.',
            "code": "unsupported_media_type",
        },
    )
    assert MediaItem.objects.count() == 0
