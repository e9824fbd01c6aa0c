"""Discussion (issue 29): a thread per chapter for signed-in readers, comments and replies one
level deep, editing and deleting one's own, moderators hiding, the sanitizer, the rate limit,
the watchers told once, the Atom feed, and chapter pages that stay the same for every
anonymous reader."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client

from chapters.markdown import render_comment
from chapters.models import Comment, Notification, Watch
from tests.helpers import edit, node, role_user, soup

CHAPTER_ONE = "/area-a/section-a1/chapter-one/"
THREAD = "/discuss/area-a/section-a1/chapter-one/"


def reader(name):
    """Create a signed-up reader ``name`` (not staff), with an address."""
    return get_user_model().objects.create_user(name, email=f"{name}@example.com")


def comments(client, url=THREAD):
    """Return the thread as rows ``(depth, author or state, text)``, in reading order."""
    page = soup(client.get(url))
    rows = []
    for item in page.select(".comment"):
        depth = 1 if item.find_parent("ol", class_="replies") else 0
        meta = " ".join(item.select_one(".comment-meta").get_text(" ").split()).split(" · ")[0]
        text = item.select_one(".comment-body, .comment-gone").get_text(" ", strip=True)
        rows.append((depth, meta, text))
    return rows


def post(client, body, parent=None):
    """Post ``body`` on Chapter One's thread as the signed-in user."""
    data = {"body": body} | ({"parent": parent.pk} if parent else {})
    return client.post(THREAD, data)


@pytest.fixture
def people(small_tree):
    """Two readers, a reviewer (a moderator) and an editor (not one)."""
    return {
        "ann": reader("ann"),
        "ben": reader("ben"),
        "rev": role_user("rev", "Reviewer"),
        "ed": role_user("ed", "Editor"),
    }


@pytest.mark.django_db
def test_discussion_post_and_reply_redirect_to_their_place(client, people):
    client.force_login(people["ann"])
    response = post(client, "Why *this* order?")
    first = Comment.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{THREAD}#comment-{first.pk}"
    assert first.body_html == "<p>Why <em>this</em> order?</p>"
    client.force_login(people["ben"])
    post(client, "Because of the proof.", parent=first)
    assert comments(client) == [
        (0, "ann", "Why this order?"),
        (1, "ben", "Because of the proof."),
    ]


@pytest.mark.django_db
def test_discussion_reply_to_a_reply_is_a_reply_to_its_top_comment(client, people):
    client.force_login(people["ann"])
    post(client, "Top.")
    top = Comment.objects.get()
    post(client, "Reply.", parent=top)
    reply = Comment.objects.get(body="Reply.")
    post(client, "Reply to the reply.", parent=reply)
    assert Comment.objects.get(body="Reply to the reply.").parent_id == top.pk
    assert [row[0] for row in comments(client)] == [0, 1, 1]


@pytest.mark.django_db
def test_discussion_anonymous_reader_reads_and_is_sent_to_sign_in_to_post(client, people):
    client.force_login(people["ann"])
    post(client, "Visible to all.")
    client.logout()
    assert comments(client) == [(0, "ann", "Visible to all.")]
    page = soup(client.get(THREAD))
    assert page.select_one(".sign-in-to-post").get_text(" ", strip=True) == (
        "Sign in to join the discussion."
    )
    response = post(client, "Anonymous.")
    assert response["Location"] == f"/accounts/login/?next={THREAD}"
    assert Comment.objects.count() == 1


@pytest.mark.django_db
def test_discussion_sections_have_no_thread(client, people):
    assert client.get("/discuss/area-a/section-a1/").status_code == 404


@pytest.mark.django_db
def test_discussion_reply_to_no_comment_of_the_chapter_is_404(client, people):
    client.force_login(people["ann"])
    assert post(client, "Reply.", parent=Comment(pk=99)).status_code == 404
    assert client.post(THREAD, {"body": "Reply.", "parent": "x"}).status_code == 404
    assert Comment.objects.count() == 0


@pytest.mark.django_db
def test_discussion_empty_and_too_long_comments_are_refused_with_the_limit(client, people):
    client.force_login(people["ann"])
    empty = soup(post(client, "   "))
    assert [li.get_text() for li in empty.select(".errors li")] == [
        "Write something before posting."
    ]
    long = soup(post(client, "x" * 5001))
    assert [li.get_text() for li in long.select(".errors li")] == [
        "A comment holds at most 5000 characters (this one has 5001)."
    ]
    assert long.select_one("#body-new").get_text() == "x" * 5001
    assert Comment.objects.count() == 0


@pytest.mark.django_db
def test_discussion_edit_and_delete_one_s_own(client, people):
    client.force_login(people["ann"])
    post(client, "Frist.")
    comment = Comment.objects.get()
    form = soup(client.get(f"/discussion/{comment.pk}/edit/"))
    assert form.select_one("#body-edit").get_text() == "Frist."
    client.post(f"/discussion/{comment.pk}/edit/", {"body": "First."})
    assert comments(client) == [(0, "ann", "First.")]
    meta = soup(client.get(THREAD)).select_one(".comment-meta").get_text(" ")
    assert " ".join(meta.split()).endswith("· edited")
    response = client.post(f"/discussion/{comment.pk}/delete/")
    assert response["Location"] == THREAD
    assert Comment.objects.count() == 0


@pytest.mark.django_db
def test_discussion_deleted_comment_with_replies_keeps_its_place(client, people):
    client.force_login(people["ann"])
    post(client, "Question.")
    top = Comment.objects.get()
    client.force_login(people["ben"])
    post(client, "Answer.", parent=top)
    client.force_login(people["ann"])
    client.post(f"/discussion/{top.pk}/delete/")
    assert comments(client) == [
        (0, "Deleted", "This comment was deleted."),
        (1, "ben", "Answer."),
    ]
    assert Comment.objects.get(pk=top.pk).body == ""
    client.force_login(people["ben"])
    client.post(f"/discussion/{Comment.objects.get(body='Answer.').pk}/delete/")
    assert Comment.objects.count() == 0


@pytest.mark.django_db
def test_discussion_someone_else_s_comment_is_refused(client, people):
    client.force_login(people["ann"])
    post(client, "Mine.")
    comment = Comment.objects.get()
    client.force_login(people["ben"])
    assert client.get(f"/discussion/{comment.pk}/edit/").status_code == 403
    assert client.post(f"/discussion/{comment.pk}/edit/", {"body": "Yours."}).status_code == 403
    assert client.post(f"/discussion/{comment.pk}/delete/").status_code == 403
    assert client.post(f"/discussion/{comment.pk}/hide/").status_code == 403
    client.force_login(people["ed"])
    assert client.post(f"/discussion/{comment.pk}/hide/").status_code == 403
    assert Comment.objects.get().body == "Mine."
    assert Comment.objects.get().hidden_at is None


@pytest.mark.django_db
def test_discussion_moderator_hides_and_shows_again(client, people):
    client.force_login(people["ann"])
    post(client, "Spam, spam.")
    comment = Comment.objects.get()
    client.force_login(people["rev"])
    assert client.post(f"/discussion/{comment.pk}/hide/").status_code == 302
    client.logout()
    assert comments(client) == [(0, "ann", "Hidden by a moderator.")]
    assert client.get(f"/discussion/count/{CHAPTER_ONE.strip('/')}/").json() == {"count": 0}
    assert Comment.objects.get().hidden_by == people["rev"]
    client.force_login(people["ann"])
    assert client.post(f"/discussion/{comment.pk}/edit/", {"body": "Ham."}).status_code == 403
    client.force_login(people["rev"])
    client.post(f"/discussion/{comment.pk}/hide/", {"hidden": "0"})
    assert comments(client) == [(0, "ann", "Spam, spam.")]


def test_discussion_hostile_comment_is_sanitized_exactly():
    hostile = (
        "# Title\n\n"
        "<script>alert(1)</script>\n\n"
        '[click](javascript:alert(1)) <a href="/a/" onclick="steal()" rel="me">in</a> '
        '<img src="/media/x.png" onerror="steal()"> ![pixel](https://tracker.example/p.png) '
        '<span style="color:red" onmouseover="x()">s</span>'
    )
    assert render_comment(hostile) == (
        "<p>Title</p>\n"
        "alert(1)\n\n"
        '<p><a rel="nofollow ugc">click</a> <a href="/a/" rel="nofollow ugc">in</a> '
        '<img src="/media/x.png"> <img alt="pixel"> s</p>'
    )


@pytest.mark.django_db
def test_discussion_rate_limit_answers_429_with_a_clear_message(client, people, settings):
    settings.DISCUSSION_COMMENTS_PER_MINUTE = 2
    client.force_login(people["ann"])
    assert [post(client, f"Comment {n}.").status_code for n in range(2)] == [302, 302]
    response = post(client, "One too many.")
    assert response.status_code == 429
    assert [li.get_text() for li in soup(response).select(".messages li")] == [
        "You have posted 2 comments in the last minute, as many as one may: "
        "wait a minute, then post again."
    ]
    assert soup(response).select_one("#body-new").get_text() == "One too many."
    assert Comment.objects.count() == 2


@pytest.mark.django_db
def test_discussion_watchers_and_participants_are_told_once_not_the_author(
    client, people, run_tasks
):
    Watch.objects.create(user=people["ben"], node=node("Section A1"))
    Watch.objects.create(user=people["ann"], node=node("Chapter One"))
    client.force_login(people["ben"])
    post(client, "First.")
    client.force_login(people["rev"])
    post(client, "Second.")
    run_tasks()
    reply = Comment.objects.get(body="Second.")
    assert sorted((m.to[0], m.subject) for m in mail.outbox) == [
        ("ann@example.com", "[Curriculum Wiki] ben commented on “Chapter One”"),
        ("ann@example.com", "[Curriculum Wiki] rev commented on “Chapter One”"),
        ("ben@example.com", "[Curriculum Wiki] rev commented on “Chapter One”"),
    ]
    note = Notification.objects.get(recipient=people["ben"])
    assert note.body == (
        "rev commented on “Chapter One”:\n"
        "Second.\n"
        f"The discussion: http://testserver{THREAD}#comment-{reply.pk}\n"
    )
    assert note.url == f"{THREAD}#comment-{reply.pk}"


@pytest.mark.django_db
def test_discussion_feed_lists_the_comments_readers_see(client, people):
    client.force_login(people["ann"])
    post(client, "Hello <b>there</b> & **all**.")
    post(client, "Hidden later.")
    hidden = Comment.objects.get(body="Hidden later.")
    client.force_login(people["rev"])
    client.post(f"/discussion/{hidden.pk}/hide/")
    client.logout()
    response = client.get("/discussion/feed/area-a/section-a1/chapter-one/")
    feed = response.content.decode()
    first = Comment.objects.get(body__startswith="Hello")
    url, date = f"http://testserver{THREAD}#comment-{first.pk}", first.created.isoformat()
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    assert "<title>Curriculum Wiki: discussion of Chapter One</title>" in feed
    assert re.findall("<entry>.*?</entry>", feed) == [
        f'<entry><title>Comment by ann</title><link href="{url}" rel="alternate"/>'
        f"<published>{date}</published><updated>{date}</updated>"
        f"<author><name>ann</name></author><id>{url}</id>"
        '<summary type="html">&lt;p&gt;Hello there &amp;amp; '
        "&lt;strong&gt;all&lt;/strong&gt;.&lt;/p&gt;</summary></entry>"
    ]


@pytest.mark.django_db
def test_discussion_chapter_page_is_the_same_for_two_anonymous_readers(client, people):
    before = client.get(CHAPTER_ONE)
    other = Client()
    again = other.get(CHAPTER_ONE)
    assert before.content == again.content
    headers = ["Cache-Control", "ETag", "Last-Modified", "Vary"]
    assert [before.get(h) for h in headers] == [again.get(h) for h in headers]
    link = soup(before).select_one("a.discussion-link")
    assert str(link) == (
        f'<a class="discussion-link" data-count-url="/discussion/count{CHAPTER_ONE}" '
        f'href="{THREAD}">Discussion<span class="discussion-count"></span></a>'
    )
    writer = Client()
    writer.force_login(people["ann"])
    post(writer, "A comment changes no page kept for readers.")
    after = Client().get(CHAPTER_ONE)
    assert after.content == before.content
    assert after["ETag"] == before["ETag"]
    count = client.get(f"/discussion/count{CHAPTER_ONE}")
    assert count.json() == {"count": 1}
    assert count["Cache-Control"] == "public, no-cache"


@pytest.mark.django_db
def test_discussion_is_kept_out_of_curriculum_exports_and_backed_up_on_its_own(
    client, people, tmp_path
):
    client.force_login(people["ann"])
    post(client, "A learner's **question**.")
    curriculum = tmp_path / "curriculum.json"
    call_command("export_curriculum", "-o", str(curriculum), verbosity=0)
    call_command("export_markdown", str(tmp_path / "md"), verbosity=0)
    exported = [curriculum, *(tmp_path / "md").rglob("*.md")]
    assert [path.name for path in exported if "learner" in path.read_text()] == []
    backup = tmp_path / "discussion.json"
    call_command("dumpdata", "chapters.comment", output=str(backup), verbosity=0)
    rows = list(Comment.objects.values_list("node__path", "author__username", "body_html"))
    Comment.objects.all().delete()
    call_command("loaddata", str(backup), verbosity=0)
    assert list(Comment.objects.values_list("node__path", "author__username", "body_html")) == (
        rows
    )
    assert rows == [
        ("area-a/section-a1/chapter-one", "ann", "<p>A learner's <strong>question</strong>.</p>")
    ]


@pytest.mark.django_db
def test_discussion_thread_reads_in_two_queries(client, people, django_assert_num_queries):
    client.force_login(people["ann"])
    post(client, "One.")
    post(client, "Two.", parent=Comment.objects.get())
    client.logout()
    with django_assert_num_queries(2):
        assert client.get(THREAD).status_code == 200


@pytest.mark.django_db
def test_discussion_thread_follows_its_chapter_when_it_moves(client, people):
    edit("Chapter One", slug="first-chapter")
    response = client.get(THREAD)
    assert response.status_code == 301
    assert response["Location"] == "/discuss/area-a/section-a1/first-chapter/"


@pytest.mark.django_db
def test_discussion_admin_lists_and_hides_comments(admin_client, client, people):
    client.force_login(people["ann"])
    post(client, "Off topic.")
    comment = Comment.objects.get()
    changelist = "/admin/chapters/comment/"
    page = soup(admin_client.get(changelist))
    assert [a.get_text() for a in page.select("#result_list tbody th a")] == [str(comment)]
    admin_client.post(changelist, {"action": "hide", "_selected_action": [comment.pk]})
    assert Comment.objects.get().hidden_by.username == "admin"


@pytest.mark.django_db
def test_discussion_goes_with_its_chapter_when_the_section_is_deleted(admin_client, client, people):
    client.force_login(people["ann"])
    post(client, "On a chapter about to go.")
    url = f"/admin/chapters/node/{node('Section A1').pk}/delete/"
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert Comment.objects.count() == 0
    assert client.get(THREAD).status_code == 404
