"""The API's reads (chapters/api/reads.py): the tree, pages, revisions, diffs and search, for
every role; ETags, JSON errors and the rate limit."""

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError

from chapters.models import Node, PendingChange
from tests.api import ROLES, as_role
from tests.helpers import edit, node, role_user

pytestmark = pytest.mark.django_db

CHAPTER_ONE = {
    "id": 3,
    "title": "Chapter One",
    "path": "area-a/section-a1/chapter-one",
    "slug": "chapter-one",
    "kind": "chapter",
    "status": "draft",
    "parent": 2,
    "level": 2,
}
BREADCRUMB = [
    {"id": 1, "title": "Area A", "path": "area-a"},
    {"id": 2, "title": "Section A1", "path": "area-a/section-a1"},
]
BODY_HTML = "<p>This chapter is currently a scaffold.</p>"


def latest_revision(title, pk=None):
    """Return the id of the latest revision of the node titled ``title`` (or of id ``pk``)."""
    return Node.history.filter(id=pk or node(title).pk).first().history_id


@pytest.mark.parametrize("role", ROLES)
def test_api_tree_lists_every_node_in_reading_order_for_every_role(client, small_tree, role):
    _, headers = as_role(client, role)
    response = client.get("/api/tree/", **headers)
    assert response.status_code == 200
    data = response.json()
    assert (data["count"], data["next"], data["previous"]) == (11, None, None)
    assert [(n["title"], n["level"]) for n in data["results"]] == [
        ("Area A", 0),
        ("Section A1", 1),
        ("Chapter One", 2),
        ("Chapter Two", 2),
        ("Chapter Three", 2),
        ("Section A2", 1),
        ("Chapter Four", 2),
        ("Area B", 0),
        ("Section B1", 1),
        ("Chapter Five", 2),
        ("Chapter Six", 2),
    ]
    assert data["results"][2] == CHAPTER_ONE


def test_api_tree_is_paginated_by_100(client, small_tree, monkeypatch):
    monkeypatch.setattr("chapters.api.reads.TreePages.page_size", 4)
    data = client.get("/api/tree/?page=2").json()
    assert data["count"] == 11
    assert data["next"] == "http://testserver/api/tree/?page=3"
    assert data["previous"] == "http://testserver/api/tree/"
    assert [n["title"] for n in data["results"]] == [
        "Chapter Three",
        "Section A2",
        "Chapter Four",
        "Area B",
    ]
    assert client.get("/api/tree/?page=9").json() == {
        "detail": "Invalid page.",
        "code": "not_found",
    }


@pytest.mark.parametrize("role", ROLES)
def test_api_page_by_id_and_by_path_for_every_role(client, small_tree, role):
    _, headers = as_role(client, role)
    by_id = client.get("/api/pages/3/", **headers)
    by_path = client.get("/api/pages/by-path/area-a/section-a1/chapter-one/", **headers)
    assert by_id.status_code == by_path.status_code == 200
    expected = {
        **CHAPTER_ONE,
        "breadcrumb": BREADCRUMB,
        "updated": "2026-08-09T12:00:00Z",
        "revision": latest_revision("Chapter One"),
        "body": "This chapter is currently a scaffold.",
        "body_html": BODY_HTML,
        "requires": [],
    }
    if role not in ("anonymous", "reader"):
        expected["pending_changes"] = []
    assert by_id.json() == by_path.json() == expected
    assert by_id["ETag"] == by_path["ETag"]
    assert by_id["Cache-Control"] == "private, no-cache"


@pytest.mark.parametrize(
    ("role", "sees"),
    [
        ("anonymous", False),
        ("reader", False),
        ("Editor", True),
        ("Reviewer", True),
        ("Admin", True),
        ("read token", True),
    ],
)
def test_api_page_shows_pending_changes_to_editors_only(client, small_tree, role, sees):
    edit("Chapter One", status="published")
    author = role_user("proposer", "Editor")
    change = PendingChange.objects.create(
        node=node("Chapter One"),
        author=author,
        base_revision=latest_revision("Chapter One"),
        title="Chapter One",
        status="published",
        parent=node("Section A1"),
        body="A secret draft.",
        summary="Rewrite",
    )
    _, headers = as_role(client, role)
    data = client.get("/api/pages/3/", **headers).json()
    assert data["body"] == "This chapter is currently a scaffold."
    assert "A secret draft." not in str(data)
    if not sees:
        assert "pending_changes" not in data
        return
    created = change.created.isoformat().replace("+00:00", "Z")
    updated = change.updated.isoformat().replace("+00:00", "Z")
    assert data["pending_changes"] == [
        {
            "id": change.pk,
            "author": "proposer",
            "created": created,
            "updated": updated,
            "summary": "Rewrite",
        }
    ]


def test_api_page_answers_304_to_its_etag_and_a_new_etag_after_an_edit(client, small_tree):
    first = client.get("/api/pages/3/")
    again = client.get("/api/pages/3/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", first["ETag"])
    edit("Chapter One", body="Changed.")
    changed = client.get("/api/pages/3/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    assert changed.json()["body_html"] == "<p>Changed.</p>"


def test_api_page_etag_differs_for_an_editor_who_sees_pending_changes(client, small_tree):
    anonymous = client.get("/api/pages/3/")["ETag"]
    client.force_login(role_user("ed", "Editor"))
    assert client.get("/api/pages/3/")["ETag"] != anonymous


def test_api_page_errors_are_json_that_say_what_was_wrong(client, small_tree):
    assert client.get("/api/pages/999/").json() == {
        "detail": "No Node matches the given query.",
        "code": "not_found",
    }
    missing = client.get("/api/pages/by-path/area-a/nowhere/")
    assert (missing.status_code, missing.json()) == (
        404,
        {"detail": "No page at “area-a/nowhere”.", "code": "not_found"},
    )
    unknown = client.get("/api/no-such-thing/")
    assert (unknown.status_code, unknown.json()) == (
        404,
        {"detail": "No API endpoint at /api/no-such-thing/; see /api/docs/.", "code": "not_found"},
    )


def test_api_page_by_an_old_path_redirects_to_its_path_now(client, small_tree):
    edit("Chapter One", slug="first")
    response = client.get("/api/pages/by-path/area-a/section-a1/chapter-one/")
    assert (response.status_code, response["Location"]) == (
        301,
        "/api/pages/by-path/area-a/section-a1/first/",
    )


@pytest.mark.parametrize("role", ROLES)
def test_api_revisions_and_one_revision_for_every_role(client, small_tree, role):
    first = latest_revision("Chapter One")
    edit("Chapter One", body="Second text.", summary="Rewrote it")
    second = latest_revision("Chapter One")
    _, headers = as_role(client, role)
    data = client.get("/api/pages/3/revisions/", **headers).json()
    assert (data["count"], data["next"], data["previous"]) == (2, None, None)
    rows = [{k: v for k, v in r.items() if k != "date"} for r in data["results"]]
    assert rows == [
        {
            "id": second,
            "page": 3,
            "type": "changed",
            "author": None,
            "summary": "Rewrote it",
            "title": "Chapter One",
            "status": "draft",
            "size": 12,
        },
        {
            "id": first,
            "page": 3,
            "type": "created",
            "author": None,
            "summary": "Loaded from a fixture",
            "title": "Chapter One",
            "status": "draft",
            "size": 37,
        },
    ]
    old = client.get(f"/api/revisions/{first}/", **headers)
    assert old.status_code == 200
    assert (old.json()["body"], old.json()["body_html"], old.json()["parent"]) == (
        "This chapter is currently a scaffold.",
        BODY_HTML,
        2,
    )
    assert old["ETag"]


@pytest.mark.parametrize("role", ROLES)
def test_api_diff_of_two_revisions_for_every_role(client, small_tree, role):
    first = latest_revision("Chapter One")
    edit("Chapter One", title="Chapter 1", body="This chapter is done.\nWith two lines.")
    second = latest_revision(None, pk=3)
    _, headers = as_role(client, role)
    data = client.get(f"/api/diff/?old={first}&new={second}", **headers).json()
    assert (data["old"]["id"], data["new"]["id"]) == (first, second)
    assert data["fields"] == [{"field": "Title", "old": "Chapter One", "new": "Chapter 1"}]
    assert data["body_diff"] == (
        f"--- revision {first}\n"
        f"+++ revision {second}\n"
        "@@ -1 +1,2 @@\n"
        "-This chapter is currently a scaffold.\n"
        "+This chapter is done.\n"
        "+With two lines."
    )
    assert client.get(f"/api/diff/?new={second}", **headers).json() == data


def test_api_diff_refuses_bad_input_saying_why(client, small_tree):
    first = latest_revision("Chapter One")
    assert client.get(f"/api/diff/?old={first}&new={first}").json() == {
        "detail": "The input was refused.",
        "code": "invalid",
        "fields": {"non_field_errors": ["Choose two different revisions to compare."]},
    }
    assert client.get("/api/diff/?new=x").json()["fields"] == {"new": ["Enter a whole number."]}
    assert client.get(f"/api/diff/?new={first}").json() == {
        "detail": f"Revision {first} is the first of its page.",
        "code": "not_found",
    }


@pytest.mark.parametrize("role", ROLES)
def test_api_search_finds_pages_for_every_role(client, small_tree, role):
    edit("Chapter Five", body="Kernels fuse here.")
    _, headers = as_role(client, role)
    data = client.get("/api/search/?q=kernels", **headers).json()
    assert data == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [
            {
                "id": 10,
                "path": "area-b/section-b1/chapter-five",
                "kind": "chapter",
                "status": "draft",
                "title": "Chapter Five",
                "title_html": "Chapter Five",
                "url": "/area-b/section-b1/chapter-five/",
                "heading": "",
                "heading_html": "",
                "snippet_html": "<mark>Kernels</mark> fuse here.",
                "breadcrumb": [
                    {"id": 8, "title": "Area B", "path": "area-b"},
                    {"id": 9, "title": "Section B1", "path": "area-b/section-b1"},
                ],
            }
        ],
        "corrected": "",
    }


def test_api_search_result_opens_at_its_heading_and_names_it(client, small_tree):
    edit("Chapter Five", body="Intro.\n\n## Kernel fusion\n\nFusion merges kernels.")
    (result,) = client.get("/api/search/?q=fusion").json()["results"]
    assert {key: result[key] for key in ("url", "heading", "heading_html", "snippet_html")} == {
        "url": "/area-b/section-b1/chapter-five/#kernel-fusion",
        "heading": "Kernel fusion",
        "heading_html": "Kernel <mark>fusion</mark>",
        "snippet_html": "<mark>Fusion</mark> merges kernels.",
    }


def test_api_search_refuses_an_empty_query_and_an_unknown_area(client, small_tree):
    assert client.get("/api/search/").json()["fields"] == {"q": ["Say what to search for."]}
    assert client.get("/api/search/?q=x&area=nowhere").json()["fields"] == {
        "area": ["There is no area “nowhere”."]
    }


def test_api_anonymous_callers_are_rate_limited(client, small_tree, monkeypatch):
    # DRF reads the rates once, into the class (rest_framework.throttling).
    rates = {"anon": "2/minute", "user": "600/minute"}
    monkeypatch.setattr("rest_framework.throttling.SimpleRateThrottle.THROTTLE_RATES", rates)
    cache.clear()
    assert [client.get("/api/tree/").status_code for _ in range(3)] == [200, 200, 429]
    refused = client.get("/api/tree/")
    assert refused.json() == {
        "detail": "Request was throttled. Expected available in 60 seconds.",
        "code": "throttled",
    }
    assert refused["Retry-After"] == "60"
    client.force_login(role_user("ed", "Editor"))
    assert client.get("/api/tree/").status_code == 200


def test_api_is_a_reserved_top_level_slug(small_tree):
    area = Node(title="API", slug="api", kind="section")
    with pytest.raises(ValidationError) as refused:
        area.clean()
    assert refused.value.message_dict == {"slug": ["“api” is reserved for the site's own URLs."]}
