"""The API's edit (chapters/api/writes.py): for every role and token, merged and reviewed as
the site's editor merges and reviews."""

import pytest

from chapters.edit.conflicts import FOREIGN_BASE
from chapters.models import ApiToken, Node, PendingChange
from tests.api import ROLES, as_role
from tests.helpers import edit, form_values, node, role_user, soup

pytestmark = pytest.mark.django_db

PAGE = "/api/pages/3/"
EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
SCAFFOLD = "This chapter is currently a scaffold."


def latest(pk=3):
    """Return the latest revision of node ``pk``."""
    return Node.history.filter(id=pk).first()


def patch(client, data, headers=None, url=PAGE):
    """PATCH ``data`` as JSON to ``url``."""
    return client.patch(url, data, content_type="application/json", **(headers or {}))


# What each caller's edit of a draft, then of a published page, answers: saved (200),
# proposed for review (202), refused (401, 403).
OUTCOMES = {
    "anonymous": (401, 401),
    "reader": (403, 403),
    "Editor": (200, 202),
    "Reviewer": (200, 200),
    "Admin": (200, 200),
    "read token": (403, 403),
    "write token": (200, 202),
}
REFUSALS = {
    401: {"detail": "Authentication credentials were not provided.", "code": "not_authenticated"},
    403: {
        "detail": "Only editors who may change pages can edit them.",
        "code": "permission_denied",
    },
}
READ_ONLY = {
    "detail": "This token may only read: make a token with the scope 'write' to change pages.",
    "code": "permission_denied",
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("published", [False, True])
def test_api_edit_for_every_role(client, small_tree, role, published):
    if published:
        edit("Chapter One", status="published")
    base = latest()
    user, headers = as_role(client, role)
    response = patch(
        client,
        {"base_revision": base.history_id, "body": "New *text*.", "summary": "Reworded"},
        headers,
    )
    expected = OUTCOMES[role][published]
    assert response.status_code == expected
    stored = node("Chapter One")
    if expected in (401, 403):
        assert response.json() == (READ_ONLY if role == "read token" else REFUSALS[expected])
        assert (stored.body, latest().history_id) == (SCAFFOLD, base.history_id)
        return
    if expected == 202:
        change = PendingChange.objects.get()
        assert response.json() == {
            "detail": "Your change waits for a reviewer; readers see it once approved.",
            "pending_change": change.pk,
        }
        assert (change.author, change.body, change.summary, change.base_revision) == (
            user,
            "New *text*.",
            "Reworded",
            base.history_id,
        )
        assert (stored.body, latest().history_id) == (SCAFFOLD, base.history_id)
        return
    saved = latest()
    assert (saved.body, saved.history_user, saved.history_change_reason) == (
        "New *text*.",
        user,
        "Reworded",
    )
    data = response.json()
    assert (data["body"], data["body_html"], data["revision"]) == (
        "New *text*.",
        "<p>New <em>text</em>.</p>",
        saved.history_id,
    )
    assert (data["title"], data["status"]) == ("Chapter One", stored.status)


def test_api_revoked_token_cannot_edit(client, small_tree):
    token, secret = ApiToken.issue(role_user("ed", "Editor"), "CI", "write")
    token.revoke()
    response = patch(
        client,
        {"base_revision": latest().history_id, "body": "x"},
        {"HTTP_AUTHORIZATION": f"Bearer {secret}"},
    )
    assert (response.status_code, response.json()["code"]) == (401, "authentication_failed")
    assert node("Chapter One").body == SCAFFOLD


def test_api_edit_is_merged_with_a_newer_revision_as_the_site_merges_it(client, small_tree):
    def theirs_saved_since(title):
        """Return the revision an editor opened; then save another editor's change."""
        edit(title, title="Chapter One", body="One.\n\nTwo.\n\nThree.")
        base = latest().history_id
        edit("Chapter One", body="One, by B.\n\nTwo.\n\nThree.", title="Chapter 1")
        return base

    mine = "One.\n\nTwo.\n\nThree, by A."
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    base = theirs_saved_since("Chapter One")
    client.post(EDIT_ONE, {**form, "base_revision": base, "body": mine, "save": "1"})
    site = node("Chapter 1")
    assert site.body == "One, by B.\n\nTwo.\n\nThree, by A."  # saved at once, merged

    response = patch(client, {"base_revision": theirs_saved_since("Chapter 1"), "body": mine})

    assert response.status_code == 200
    assert (response.json()["title"], response.json()["body"]) == (site.title, site.body)
    assert (node("Chapter 1").body, latest().history_user.username) == (
        "One, by B.\n\nTwo.\n\nThree, by A.",
        "ed",
    )


def test_api_edit_that_conflicts_saves_nothing_and_says_what_conflicts(client, small_tree):
    base = latest().history_id
    edit("Chapter One", body="Their words.", title="Their title")
    theirs = latest()
    client.force_login(role_user("ed", "Editor"))
    mine = {"base_revision": base, "body": "My words.", "title": "My title", "status": "review"}
    response = patch(client, mine)
    assert response.status_code == 409
    assert response.json() == {
        "detail": f"a script saved this page at {theirs.history_date:%Y-%m-%d %H:%M} UTC while "
        "you were editing it, so your changes have not been saved yet. You both changed 1 "
        "place in the text and the field title: choose between your version and theirs "
        "below, then save again. Their other changes have been merged with yours.",
        "code": "conflict",
        "base_revision": theirs.history_id,
        "merged": {
            "title": None,
            "status": "review",
            "parent": 2,
            "body": "<<<<<<< yours\nMy words.\n=======\nTheir words.\n>>>>>>> theirs",
        },
        "conflicts": {"title": {"yours": "My title", "theirs": "Their title"}},
        "body_conflicts": 1,
    }
    assert (node("Their title").body, latest().history_id) == ("Their words.", theirs.history_id)
    resolved = patch(
        client,
        {"base_revision": theirs.history_id, "body": "My words.", "title": "My title"},
    )
    assert resolved.status_code == 200
    assert (node("My title").body, node("My title").status) == ("My words.", "draft")


def test_api_edit_refuses_what_the_site_refuses(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    assert patch(client, {"body": "x"}).json() == {
        "detail": "The input was refused.",
        "code": "invalid",
        "fields": {"base_revision": ["This field is required."]},
    }
    base = latest().history_id
    assert patch(client, {"base_revision": base, "status": "published"}).json()["fields"] == {
        "status": ["Select a valid choice. published is not one of the available choices."]
    }
    other = latest(pk=4).history_id
    assert patch(client, {"base_revision": other, "body": "x"}).json()["fields"] == {
        "non_field_errors": [FOREIGN_BASE]
    }
    assert patch(client, {"base_revision": base, "parent": 3}).json()["fields"] == {
        "parent": ["Select a valid choice. That choice is not one of the available choices."]
    }
    missing = patch(client, {"base_revision": base}, url="/api/pages/999/")
    assert (missing.status_code, missing.json()) == (
        404,
        {"detail": "No page 999.", "code": "not_found"},
    )
    assert (node("Chapter One").body, latest().history_id) == (SCAFFOLD, base)


def test_api_edit_that_changes_nothing_saves_no_revision(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    base = latest().history_id
    response = patch(client, {"base_revision": base, "body": SCAFFOLD})
    assert (response.status_code, response.json()["revision"]) == (200, base)
    assert latest().history_id == base


def test_api_edit_moves_a_chapter_to_another_section(client, small_tree):
    client.force_login(role_user("rev", "Reviewer"))
    response = patch(client, {"base_revision": latest().history_id, "parent": 6})
    assert response.json()["path"] == "area-a/section-a2/chapter-one"
    assert node("Chapter One").parent == node("Section A2")


NEW_OUTCOMES = {
    "anonymous": 401,
    "reader": 403,
    "Editor": 201,
    "Reviewer": 201,
    "Admin": 201,
    "read token": 403,
    "write token": 201,
}


@pytest.mark.parametrize("role", ROLES)
def test_api_new_chapter_for_every_role(client, small_tree, role):
    user, headers = as_role(client, role)
    response = client.post(
        "/api/pages/",
        {"parent": 6, "title": "Chapter Seven", "body": "Fresh.", "summary": "Started it"},
        content_type="application/json",
        **headers,
    )
    assert response.status_code == NEW_OUTCOMES[role]
    if response.status_code != 201:
        refusal = {
            401: REFUSALS[401],
            403: READ_ONLY
            if role == "read token"
            else {
                "detail": "Only editors who may add pages can add them.",
                "code": "permission_denied",
            },
        }
        assert response.json() == refusal[response.status_code]
        assert not Node.objects.filter(title="Chapter Seven").exists()
        return
    page = node("Chapter Seven")
    revision = latest(page.pk)
    assert response["Location"] == f"/api/pages/{page.pk}/"
    assert response.json() == {
        "id": page.pk,
        "title": "Chapter Seven",
        "slug": "chapter-seven",
        "path": "area-a/section-a2/chapter-seven",
        "kind": "chapter",
        "status": "draft",
        "parent": 6,
        "level": 2,
        "breadcrumb": [
            {"id": 1, "title": "Area A", "path": "area-a"},
            {"id": 6, "title": "Section A2", "path": "area-a/section-a2"},
        ],
        "updated": page.updated.isoformat().replace("+00:00", "Z"),
        "revision": revision.history_id,
        "body": "Fresh.",
        "body_html": "<p>Fresh.</p>",
        "requires": [],
        "pending_changes": [],
    }
    assert (revision.history_user, revision.history_change_reason) == (user, "Started it")
    assert [c.title for c in node("Section A2").get_children()] == ["Chapter Four", "Chapter Seven"]


def test_api_new_chapter_refuses_what_the_site_refuses(client, small_tree):
    client.force_login(role_user("ed", "Editor"))

    def refused(data):
        response = client.post("/api/pages/", data, content_type="application/json")
        assert response.status_code == 400
        return response.json()["fields"]

    assert refused({"title": "X"}) == {"parent": ["This field is required."]}
    assert refused({"parent": 3, "title": "X"}) == {"parent": ["No section 3."]}
    assert refused({"parent": 6, "title": "X", "status": "published"}) == {
        "status": ["Select a valid choice. published is not one of the available choices."]
    }
    assert refused({"parent": 6, "title": "X", "body": "x" * 100_001}) == {
        "body": ["Ensure this value has at most 100000 characters (it has 100001)."]
    }
    assert Node.objects.count() == 11


DELETE_OUTCOMES = {
    "anonymous": 401,
    "reader": 403,
    "Editor": 403,
    "Reviewer": 403,
    "Admin": 204,
    "read token": 403,
    "write token": 403,
}


@pytest.mark.parametrize("role", ROLES)
def test_api_delete_for_every_role(client, small_tree, role):
    user, headers = as_role(client, role)
    response = client.delete("/api/pages/2/?summary=Merged+away", **headers)
    assert response.status_code == DELETE_OUTCOMES[role]
    if response.status_code != 204:
        deleting = {
            "detail": "Only admins who may delete pages can delete them.",
            "code": "permission_denied",
        }
        expected = {"anonymous": REFUSALS[401], "read token": READ_ONLY}.get(role, deleting)
        assert response.json() == expected
        assert Node.objects.count() == 11
        return
    assert response.content == b""
    assert [n.title for n in Node.objects.all()] == [
        "Area A",
        "Section A2",
        "Chapter Four",
        "Area B",
        "Section B1",
        "Chapter Five",
        "Chapter Six",
    ]
    deleted = Node.history.filter(id=2).first()
    assert (deleted.history_type, deleted.history_user, deleted.history_change_reason) == (
        "-",
        user,
        "Merged away",
    )
    assert client.delete("/api/pages/2/", **headers).json() == {
        "detail": "No page 2.",
        "code": "not_found",
    }


def test_api_delete_by_an_admin_s_write_token(client, small_tree):
    _, secret = ApiToken.issue(role_user("boss", "Admin"), "CI", "write")
    response = client.delete("/api/pages/3/", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 204
    assert not Node.objects.filter(pk=3).exists()
    assert Node.history.filter(id=3).first().history_change_reason == "Deleted"


def test_api_edit_refuses_what_no_database_stores(client, small_tree):
    client.force_login(role_user("rev", "Reviewer"))
    base = latest().history_id

    def refused(text):
        response = client.patch(PAGE, text % base, content_type="application/json")
        assert response.status_code == 400
        return response.json()["fields"]

    assert refused('{"base_revision": %d, "body": "a\\ud800b"}') == {
        "body": ["Surrogate characters are not allowed: U+D800."]
    }
    assert refused('{"base_revision": %d, "title": "a\\u0000b"}') == {
        "title": ["Null characters are not allowed."]
    }
    assert (node("Chapter One").body, latest().history_id) == (SCAFFOLD, base)


def test_api_edit_answers_its_page_whatever_the_conditional_headers(client, small_tree):
    client.force_login(role_user("rev", "Reviewer"))
    page_etag = client.get(PAGE)["ETag"]
    response = client.patch(
        PAGE,
        {"base_revision": latest().history_id, "body": "Saved."},
        content_type="application/json",
        HTTP_IF_MATCH='"another"',
        HTTP_IF_NONE_MATCH=page_etag,
    )
    assert (response.status_code, response.json()["body"]) == (200, "Saved.")
    assert node("Chapter One").body == "Saved."
