"""Webhooks (chapters.webhooks): events derived from writes and reviews, delivered signed to
a real HTTP receiver on the loopback by tasks, retried when it fails, refused for private
addresses, logged in the admin."""

import hashlib
import hmac
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from chapters.models import Node, PendingChange, Webhook, WebhookDelivery
from chapters.webhooks import events
from tests.helpers import edit, form_values, node, role_user, soup

EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
SECRET = "s3cret-for-tests"
ALL_EVENTS = list(Webhook.Event.values)


class Receiver:
    """An HTTP server on 127.0.0.1 that records each POST and answers with the next of
    ``answers`` (the last one ever after), after ``delay`` seconds; with ``drip``, it sends
    a header a byte at a time, ``drip`` seconds apart, for ever."""

    def __init__(self):
        self.received, self.answers, self.delay, self.drip = [], [200], 0.0, 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((self.path, dict(self.headers), body))
                time.sleep(receiver.delay)
                if receiver.drip:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                    while not receiver.closed.is_set():
                        self.wfile.write(b"a")
                        self.wfile.flush()
                        time.sleep(receiver.drip)
                    return
                status = (
                    receiver.answers.pop(0) if len(receiver.answers) > 1 else receiver.answers[0]
                )
                answer = b"ok" if status == 200 else b"boom"
                self.send_response(status)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format, *args):
                pass

        self.closed = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.closed.set()
        self.server.shutdown()
        self.server.server_close()

    def checked(self):
        """Return the payloads received, each after checking its signature and headers."""
        payloads = []
        for path, headers, body in self.received:
            expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
            assert path == "/hook"
            assert hmac.compare_digest(headers["X-Wiki-Signature"], expected)
            assert headers["Content-Type"] == "application/json"
            payload = json.loads(body)
            assert headers["X-Wiki-Event"] == payload["event"]
            delivery = WebhookDelivery.objects.get(pk=headers["X-Wiki-Delivery"])
            assert delivery.payload == payload
            payloads.append(payload)
        return payloads


@pytest.fixture
def receiver(settings):
    """A receiver on the loopback, which ``WIKI_WEBHOOK_ALLOW_PRIVATE`` allows."""
    settings.WIKI_WEBHOOK_ALLOW_PRIVATE = ["127.0.0.0/8"]
    found = Receiver()
    yield found
    found.close()


def hook(url, events=ALL_EVENTS, **fields):
    """Register a webhook as the admin's form would: validated, then saved."""
    webhook = Webhook(name="Receiver", url=url, secret=SECRET, events=events, **fields)
    webhook.full_clean()
    webhook.save()
    return webhook


def revision_of(title):
    """Return the latest revision of the node titled ``title``."""
    return Node.history.filter(title=title).order_by("-history_id").first()


def page(title, path, url=True):
    """Return a payload's ``page`` for a node of the small tree."""
    address = f"http://testserver/{path}/" if url else None
    return {"id": node(title).pk if url else None, "title": title, "path": path, "url": address}


@pytest.mark.django_db
def test_webhook_save_in_the_editor_is_delivered_signed(client, small_tree, receiver, run_tasks):
    hook(receiver.url)
    client.force_login(role_user("bob", "Editor"))
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    client.post(EDIT_ONE, {**form, "body": "Better.", "summary": "Tightened", "save": "1"})
    assert receiver.received == []  # a task sends it once the write committed
    assert run_tasks() == 3  # the watchers', the webhooks' events, the delivery
    revision = revision_of("Chapter One")
    assert receiver.checked() == [
        {
            "event": "page.changed",
            "page": page("Chapter One", "area-a/section-a1/chapter-one"),
            "status": "draft",
            "revision": revision.history_id,
            "author": "bob",
            "summary": "Tightened",
            "timestamp": revision.history_date.isoformat(),
            "added": False,
        }
    ]
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.status_code, delivery.response) == (
        "delivered",
        1,
        200,
        "ok",
    )
    assert (delivery.error, delivery.key) == ("", f"revision:{revision.history_id}")


@pytest.mark.django_db
def test_webhook_publish_is_a_change_and_a_publication(small_tree, receiver, run_tasks):
    hook(receiver.url)
    edit("Chapter Two", status="published", summary="Ready")
    run_tasks()
    assert [(p["event"], p["status"], p["summary"]) for p in receiver.checked()] == [
        ("page.changed", "published", "Ready"),
        ("page.published", "published", "Ready"),
    ]
    edit("Chapter Two", body="Again.")
    run_tasks()
    # Published already: a change, not a publication.
    assert [p["event"] for p in receiver.checked()] == [
        "page.changed",
        "page.published",
        "page.changed",
    ]


@pytest.mark.django_db
def test_webhook_move_by_drag_in_the_admin(admin_client, small_tree, receiver, run_tasks):
    hook(receiver.url)
    response = admin_client.post(
        reverse("admin:chapters_node_changelist"),
        {
            "cmd": "move_node",
            "cut_item": node("Chapter One").pk,
            "pasted_on": node("Section B1").pk,
            "position": "last-child",
        },
    )
    assert response.content == b"OK, moved."
    run_tasks()
    revision = revision_of("Chapter One")
    assert receiver.checked() == [
        {
            "event": "page.moved",
            "page": page("Chapter One", "area-b/section-b1/chapter-one"),
            "status": "draft",
            "revision": revision.history_id,
            "author": "admin",
            "summary": "",
            "timestamp": revision.history_date.isoformat(),
            "previous_path": "area-a/section-a1/chapter-one",
        }
    ]


@pytest.mark.django_db
def test_webhook_delete_of_a_section_is_one_event(admin_client, small_tree, receiver, run_tasks):
    hook(receiver.url)
    section = node("Section A1").pk
    url = reverse("admin:chapters_node_delete", args=[section])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    run_tasks()
    revision = Node.history.get(id=section, history_type="-")
    assert receiver.checked() == [
        {
            "event": "page.deleted",
            "page": {
                "id": section,
                "title": "Section A1",
                "path": "area-a/section-a1",
                "url": None,
            },
            "status": "draft",
            "revision": revision.history_id,
            "author": "admin",
            "summary": "Deleted",
            "timestamp": revision.history_date.isoformat(),
            "pages_deleted_with_it": 3,
        }
    ]


@pytest.mark.django_db
def test_webhook_proposal_and_its_approval(client, small_tree, receiver, run_tasks):
    hook(receiver.url, events=["review.requested", "review.decided"])
    edit("Chapter One", status="published")
    run_tasks()
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    client.post(EDIT_ONE, {**form, "title": "Unapproved", "summary": "Clearer", "save": "1"})
    run_tasks()
    change = PendingChange.objects.get()
    base = {
        "page": page("Chapter One", "area-a/section-a1/chapter-one"),
        "author": "ed",
        "summary": "Clearer",
    }
    proposed = {
        "id": change.pk,
        "url": f"http://testserver/review/{change.pk}/",
        "version": change.version,
        "base_revision": change.base_revision,
    }
    assert receiver.checked() == [
        {
            **base,
            "event": "review.requested",
            "change": proposed,
            "revision": change.base_revision,
            "timestamp": change.updated.isoformat(),
        }
    ]
    client.force_login(role_user("rev", "Reviewer"))
    client.post(change.get_absolute_url(), {"decision": "approve", "version": change.version})
    run_tasks()
    change = PendingChange.objects.get()
    approved = revision_of("Unapproved")
    assert receiver.checked()[1] == {
        **base,
        "page": page("Unapproved", "area-a/section-a1/chapter-one"),
        "event": "review.decided",
        "change": {**proposed, "version": change.version},
        "revision": approved.history_id,
        "timestamp": change.decided.isoformat(),
        "decision": "approved",
        "reviewer": "rev",
        "comment": "",
    }
    assert len(receiver.received) == 2


@pytest.mark.django_db
def test_webhook_send_back_is_a_decision(client, small_tree, receiver, run_tasks):
    hook(receiver.url, events=["review.decided"])
    edit("Chapter One", status="published")
    client.force_login(role_user("ed", "Editor"))
    form = form_values(soup(client.get(EDIT_ONE)), "editor")
    client.post(EDIT_ONE, {**form, "body": "Proposed.", "save": "1"})
    change = PendingChange.objects.get()
    client.force_login(role_user("rev", "Reviewer"))
    client.post(
        change.get_absolute_url(),
        {"decision": "send_back", "comment": "Cite a source.", "version": change.version},
    )
    run_tasks()
    ((decision, comment),) = [(p["decision"], p["comment"]) for p in receiver.checked()]
    assert (decision, comment) == ("sent_back", "Cite a source.")


@pytest.mark.django_db
def test_webhook_receiver_failing_is_retried_and_logged(small_tree, receiver, run_tasks):
    receiver.answers = [500, 200]
    hook(receiver.url, events=["page.changed"])
    edit("Chapter One", body="Once.")
    run_tasks()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("failed", 1, 500)
    assert (delivery.error, delivery.response) == ("The receiver answered 500.", "boom")
    (waiting,) = DBTaskResult.objects.filter(status="READY")
    assert waiting.task_path == "chapters.tasks.deliver_webhook"
    assert 55 < (waiting.run_after - timezone.now()).total_seconds() <= 60  # RETRY_DELAYS[0]
    assert run_tasks() == 0  # not before its delay

    DBTaskResult.objects.filter(pk=waiting.pk).update(run_after=timezone.now())
    assert run_tasks() == 1
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts, delivery.status_code, delivery.error) == (
        "delivered",
        2,
        200,
        "",
    )
    first, second = receiver.received
    assert first[1]["X-Wiki-Delivery"] == second[1]["X-Wiki-Delivery"] == str(delivery.pk)
    assert first[2] == second[2]


@pytest.mark.django_db
def test_webhook_receiver_too_slow_times_out_and_is_retried(
    small_tree, receiver, run_tasks, settings
):
    settings.WIKI_WEBHOOK_TIMEOUT = 0.3
    receiver.delay = 3.0
    hook(receiver.url, events=["page.changed"])
    edit("Chapter One", body="Slowly.")
    started = time.monotonic()
    run_tasks()
    assert time.monotonic() - started < 2.5  # gave up long before the receiver answered
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("failed", 1, None)
    assert delivery.error == "TimeoutError: timed out"
    (waiting,) = DBTaskResult.objects.filter(status="READY")
    assert waiting.task_path == "chapters.tasks.deliver_webhook"


@pytest.mark.django_db
def test_webhook_receiver_dripping_its_answer_times_out_in_all(
    small_tree, receiver, run_tasks, settings
):
    settings.WIKI_WEBHOOK_TIMEOUT = 0.4
    receiver.drip = 0.05  # never 0.4 s without a byte
    hook(receiver.url, events=["page.changed"])
    edit("Chapter One", body="Drip.")
    started = time.monotonic()
    run_tasks()
    assert time.monotonic() - started < 3.0  # 1.2 s in all, then given up
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("failed", 1, None)
    assert delivery.error == "TimeoutError: the delivery took more than 1.2 s in all"
    (waiting,) = DBTaskResult.objects.filter(status="READY")
    assert waiting.task_path == "chapters.tasks.deliver_webhook"


@pytest.mark.django_db
def test_webhook_dns_rebinding_is_refused_at_send_time(
    small_tree, receiver, run_tasks, monkeypatch, settings
):
    webhook = hook(receiver.url, events=["page.changed"])
    Webhook.objects.filter(pk=webhook.pk).update(url="http://rebound.example/hook")
    # The name passed the check when registered; now it resolves to the loopback, which is
    # no longer allowed.
    settings.WIKI_WEBHOOK_ALLOW_PRIVATE = ["10.9.0.0/16"]
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, port, **kw: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))],
    )
    edit("Chapter One", body="Rebound.")
    run_tasks()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.error) == (
        "failed",
        1,
        "Refused: The host rebound.example resolves to 127.0.0.1, a private, loopback, "
        "link-local or reserved address: webhooks are not sent there unless "
        "WIKI_WEBHOOK_ALLOW_PRIVATE allows its network.",
    )
    assert receiver.received == []
    assert not DBTaskResult.objects.filter(status="READY").exists()  # not tried again


@pytest.mark.django_db
def test_webhook_writes_enqueue_nothing_without_an_active_webhook(small_tree, run_tasks):
    Webhook.objects.create(name="Off", url="http://93.184.215.14/", events=ALL_EVENTS, active=False)
    edit("Chapter One", body="Quiet.")
    paths = set(DBTaskResult.objects.values_list("task_path", flat=True))
    assert paths == {"chapters.tasks.tell_watchers"}


@pytest.mark.django_db
def test_webhook_event_delivered_once_however_often_announced(small_tree, receiver, run_tasks):
    hook(receiver.url, events=["page.changed"])
    first = Node.history.order_by("-history_id").values_list("history_id", flat=True)[0]
    edit("Chapter One", body="Once.")
    last = first + 1
    assert events.announce_revisions(first, last, "http://testserver/") == 1
    assert events.announce_revisions(first, last, "http://testserver/") == 0
    run_tasks()
    assert len(receiver.received) == 1
    assert WebhookDelivery.objects.count() == 1


@pytest.mark.django_db
def test_webhook_admin_registers_and_logs_read_only(admin_client, small_tree, receiver, run_tasks):
    add = reverse("admin:chapters_webhook_add")
    response = admin_client.post(
        add,
        {
            "name": "Chat",
            "url": "http://10.0.0.8/hook",
            "secret": SECRET,
            "events": ["page.changed"],
            "active": "on",
        },
    )
    assert [str(e) for e in soup(response).select(".errorlist li")] == [
        "<li>The host 10.0.0.8 resolves to 10.0.0.8, a private, loopback, link-local or "
        "reserved address: webhooks are not sent there unless WIKI_WEBHOOK_ALLOW_PRIVATE "
        "allows its network.</li>"
    ]
    data = {"name": "Chat", "url": receiver.url, "secret": SECRET, "events": ["page.changed"]}
    assert admin_client.post(add, {**data, "active": "on"}).status_code == 302
    webhook = Webhook.objects.get()
    assert webhook.events == ["page.changed"]
    form = soup(admin_client.get(reverse("admin:chapters_webhook_change", args=[webhook.pk])))
    assert [box["value"] for box in form.select("input[name=events][checked]")] == ["page.changed"]
    edit("Chapter One", body="Logged.")
    run_tasks()
    delivery = WebhookDelivery.objects.get()
    log = admin_client.get(reverse("admin:chapters_webhookdelivery_changelist"))
    cells = [td.get_text() for td in soup(log).select("#result_list tbody tr td")]
    assert cells[:6] == ["", "Chat", "Page changed", "delivered", "1", "200"]
    change = admin_client.get(reverse("admin:chapters_webhookdelivery_change", args=[delivery.pk]))
    assert change.status_code == 200
    (shown,) = soup(change).select(".field-payload_json pre")
    assert json.loads(shown.get_text()) == delivery.payload
    assert admin_client.get(reverse("admin:chapters_webhookdelivery_add")).status_code == 403


@pytest.mark.django_db
def test_webhook_https_to_a_server_without_tls_fails_and_is_retried(
    small_tree, receiver, run_tasks
):
    hook(receiver.url.replace("http://", "https://"), events=["page.changed"])
    edit("Chapter One", body="Over TLS.")
    run_tasks()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.status_code) == ("failed", 1, None)
    assert delivery.error.startswith("SSLError: ")
    (waiting,) = DBTaskResult.objects.filter(status="READY")
    assert waiting.task_path == "chapters.tasks.deliver_webhook"


@pytest.mark.django_db
def test_webhook_made_inactive_before_its_delivery_is_not_sent(receiver, run_tasks):
    webhook = hook(receiver.url, events=["page.changed"])
    assert events.announce("page.changed", "test:1", {"event": "page.changed"}) == 1
    Webhook.objects.filter(pk=webhook.pk).update(active=False)
    run_tasks()
    assert receiver.received == []
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.error) == (
        "waiting",
        0,
        "Not sent: the webhook was made inactive.",
    )
