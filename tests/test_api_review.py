"""The review through the API (chapters/api/review.py): the queue, a change and a decision,
for every role and token, by the site's workflow."""

import pytest

from chapters.edit.workflow import DECIDED_ALREADY, EDITED_SINCE
from chapters.models import ApiToken, Node, PendingChange
from tests.api import ROLES, as_role
from tests.helpers import edit, node, role_user

pytestmark = pytest.mark.django_db

SCAFFOLD = "This chapter is currently a scaffold."


@pytest.fixture
def proposed(client, small_tree):
    """Publish Chapter One and have an Editor propose a change to it through the API."""
    edit("Chapter One", status="published")
    base = Node.history.filter(id=3).first().history_id
    proposer = role_user("proposer", "Editor")
    client.force_login(proposer)
    response = client.patch(
        "/api/pages/3/",
        {"base_revision": base, "body": "Better text.", "summary": "Improved"},
        content_type="application/json",
    )
    assert response.status_code == 202
    client.logout()
    return PendingChange.objects.get()


def expected(change, **fields):
    """Return the API's answer for ``change`` as stored now, with ``fields`` checked too."""
    change.refresh_from_db()
    stamp = {
        name: getattr(change, name).isoformat().replace("+00:00", "Z")
        for name in ("created", "updated")
    }
    answer = {
        "id": change.pk,
        "page": 3,
        "path": "area-a/section-a1/chapter-one",
        "author": "proposer",
        **stamp,
        "version": change.version,
        "base_revision": change.base_revision,
        "state": change.state,
        "summary": "Improved",
        "title": "Chapter One",
        "status": "published",
        "parent": 2,
        "body": "Better text.",
        "slug": "",
        "target": None,
        "position": "",
        "comment": change.comment,
    }
    assert {name: answer[name] for name in fields} == fields
    return answer


QUEUE = {
    "anonymous": 401,
    "reader": 403,
    "Editor": 403,
    "Reviewer": 200,
    "Admin": 200,
    "read token": 403,
    "write token": 403,
}


@pytest.mark.parametrize("role", ROLES)
def test_api_review_queue_for_every_role(client, proposed, role):
    _, headers = as_role(client, role)
    response = client.get("/api/changes/", **headers)
    assert response.status_code == QUEUE[role]
    if response.status_code == 200:
        assert response.json() == [expected(proposed, state="pending")]
    elif response.status_code == 403:
        assert response.json() == {
            "detail": "Only reviewers see the review queue and decide on changes.",
            "code": "permission_denied",
        }


@pytest.mark.parametrize("role", ROLES)
def test_api_change_is_for_editors_only(client, proposed, role):
    _, headers = as_role(client, role)
    response = client.get(f"/api/changes/{proposed.pk}/", **headers)
    if role in ("anonymous", "reader"):
        assert response.status_code == (401 if role == "anonymous" else 403)
        assert "Better text." not in response.content.decode()
        return
    assert (response.status_code, response.json()) == (200, expected(proposed))


@pytest.mark.parametrize("role", ROLES)
def test_api_decision_for_every_role(client, proposed, role):
    _, headers = as_role(client, role)
    response = client.post(
        f"/api/changes/{proposed.pk}/decision/",
        {"decision": "approve", "version": proposed.version, "comment": "Well put."},
        content_type="application/json",
        **headers,
    )
    if role not in ("Reviewer", "Admin"):
        assert response.status_code == (401 if role == "anonymous" else 403)
        assert node("Chapter One").body == SCAFFOLD
        return
    assert (response.status_code, response.json()) == (
        200,
        expected(proposed, state="approved", comment="Well put."),
    )
    revision = Node.history.filter(id=3).first()
    assert (revision.body, revision.history_user.username) == ("Better text.", "proposer")
    assert revision.history_change_reason == f"Approved by {role.lower()}: Improved"


def test_api_decision_by_a_reviewer_s_tokens(client, proposed):
    reviewer = role_user("rev", "Reviewer")
    _, read = ApiToken.issue(reviewer, "read", "read")
    _, write = ApiToken.issue(reviewer, "write", "write")
    decision = {"decision": "send_back", "version": proposed.version, "comment": "Cite it."}
    url = f"/api/changes/{proposed.pk}/decision/"
    assert client.get("/api/changes/", HTTP_AUTHORIZATION=f"Bearer {read}").status_code == 200
    refused = client.post(
        url, decision, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {read}"
    )
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    sent = client.post(
        url, decision, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {write}"
    )
    assert sent.json() == expected(proposed, state="sent_back", comment="Cite it.")
    assert node("Chapter One").body == SCAFFOLD


def test_api_decision_refused_as_the_site_refuses_it(client, proposed):
    client.force_login(role_user("rev", "Reviewer"))
    url = f"/api/changes/{proposed.pk}/decision/"

    def decide(data):
        return client.post(url, data, content_type="application/json")

    no_reason = decide({"decision": "send_back", "version": proposed.version})
    assert (no_reason.status_code, no_reason.json()["fields"]) == (
        400,
        {"comment": ["Say why the change goes back to its author."]},
    )
    stale = decide({"decision": "approve", "version": "20200101000000000000"})
    assert (stale.status_code, stale.json()) == (409, {"detail": EDITED_SINCE, "code": "conflict"})
    assert decide({"decision": "approve", "version": proposed.version}).status_code == 200
    again = decide({"decision": "approve", "version": proposed.version})
    assert (again.status_code, again.json()) == (
        409,
        {"detail": DECIDED_ALREADY, "code": "conflict"},
    )
    assert client.get("/api/changes/999/").json() == {
        "detail": "No PendingChange matches the given query.",
        "code": "not_found",
    }
