"""Revisions: recorded on every save, listed, shown, compared and reverted."""

import datetime

import pytest
from django.core.management import call_command
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from chapters import history
from chapters.models import Node, tree_write
from tests.helpers import SITE_SCRIPTS, SMALL_TREE, edit, node, page_scripts, soup, tree_table

FIXTURE_DATE = datetime.datetime(2026, 8, 9, 12, 0, tzinfo=datetime.UTC)


def revisions(title):
    """Return the revisions of the node titled ``title``, newest first."""
    return list(Node.history.filter(id=node(title).pk))


@pytest.mark.django_db
def test_history_fixture_load_records_one_revision_dated_as_the_fixture(small_tree):
    [loaded] = revisions("Chapter One")
    assert (loaded.history_type, loaded.history_date, loaded.history_user) == (
        "+",
        FIXTURE_DATE,
        None,
    )
    assert loaded.history_change_reason == "Loaded from a fixture"
    assert Node.history.count() == 11


@pytest.mark.django_db
def test_history_loading_the_same_fixture_again_records_nothing(curriculum):
    call_command("loaddata", "curriculum", verbosity=0)
    assert Node.history.count() == 222


@pytest.mark.django_db
def test_history_loading_a_changed_fixture_records_a_revision(load_outline, small_tree):
    load_outline(SMALL_TREE.replace("Chapter One", "Chapter Uno"))
    assert [r.title for r in Node.history.filter(id=3)] == ["Chapter Uno", "Chapter One"]


@pytest.mark.django_db
def test_history_every_save_records_a_revision_and_moves_updated_to_its_date(
    small_tree, admin_user
):
    edit("Chapter One", user=admin_user, summary="Explain fusion", body="Fusion.")
    latest, first = revisions("Chapter One")
    assert (latest.history_type, latest.body, latest.history_user) == ("~", "Fusion.", admin_user)
    assert latest.history_change_reason == "Explain fusion"
    assert latest.history_date > first.history_date
    assert node("Chapter One").updated == latest.history_date


@pytest.mark.django_db
def test_history_admin_edit_records_author_and_summary(admin_client, admin_user, small_tree):
    chapter = node("Chapter Two")
    data = {
        "title": "Chapter Two",
        "slug": "chapter-two",
        "kind": "chapter",
        "status": "review",
        "parent": chapter.parent_id,
        "body": "Now with content.",
        "summary": "Write a first draft",
        "base_revision": revisions("Chapter Two")[0].history_id,
    }
    response = admin_client.post(reverse("admin:chapters_node_change", args=[chapter.pk]), data)
    assert response.status_code == 302
    latest = revisions("Chapter Two")[0]
    assert (latest.history_user, latest.history_change_reason, latest.status, latest.body) == (
        admin_user,
        "Write a first draft",
        "review",
        "Now with content.",
    )


@pytest.mark.django_db
def test_history_page_lists_revisions_newest_first(client, admin_user, small_tree):
    edit("Chapter One", user=admin_user, summary="Add a line", body="One line.")
    edit("Chapter One", body="One.")
    response = client.get("/history/area-a/section-a1/chapter-one/")
    rows = soup(response).find("table", class_="revisions").tbody.find_all("tr")
    cells = [[" ".join(td.get_text().split()) for td in row.find_all("td")[2:]] for row in rows]
    ids = [r.history_id for r in revisions("Chapter One")]
    today = node("Chapter One").updated.strftime("%b %-d, %Y")
    assert [c[0] for c in cells] == [f"#{i}" for i in ids]
    assert cells[2][1] == "Aug 9, 2026, 12:00"
    assert [c[2:] for c in cells] == [
        ["script", "-5", ""],
        [admin_user.username, "-28", "Add a line"],
        ["script", "+37", "Loaded from a fixture"],
    ]
    assert cells[0][1].startswith(today)


@pytest.mark.django_db
def test_history_page_for_unknown_path_is_404(client, small_tree):
    assert client.get("/history/area-a/nothing/").status_code == 404


@pytest.mark.django_db
def test_old_revision_is_marked_old_and_rendered_through_the_sanitizer(client, small_tree):
    edit("Chapter One", body="**Bold** <script>alert(1)</script>")
    old = revisions("Chapter One")[0]
    edit("Chapter One", body="Newer.")
    page = soup(client.get(reverse("chapters:revision", args=[old.history_id])))
    banner = " ".join(page.find(class_="old-revision").get_text().split())
    assert banner.startswith(
        f"This is an old revision (#{old.history_id}) of “Chapter One”, saved by script"
    )
    assertInHTML('<div class="body"><p><strong>Bold</strong> alert(1)</p></div>', str(page))
    assert page_scripts(page) == SITE_SCRIPTS


@pytest.mark.django_db
def test_latest_revision_is_not_marked_old(client, small_tree):
    latest = revisions("Chapter One")[0]
    page = soup(client.get(reverse("chapters:revision", args=[latest.history_id])))
    assert page.find(class_="old-revision").p.get_text().startswith("This is the latest revision")


@pytest.mark.django_db
def test_unknown_revision_is_404(client, small_tree):
    assert client.get(reverse("chapters:revision", args=[999999])).status_code == 404


@pytest.mark.django_db
def test_diff_shows_changed_fields_and_changed_words(client, small_tree):
    edit("Chapter One", body="Intro.\nKernels fuse here.\nEnd.")
    old = revisions("Chapter One")[0]
    edit(
        "Chapter One",
        title="Chapter 1",
        status="published",
        body="Intro.\nKernels fuse there.\nEnd.\nMore.",
    )
    new = revisions("Chapter 1")[0]
    response = client.get(reverse("chapters:diff"), {"old": old.history_id, "new": new.history_id})
    assert response.status_code == 200
    assertInHTML(
        """
        <table class="diff-fields">
          <thead><tr>
            <th scope="col">Field</th>
            <th scope="col">Before</th>
            <th scope="col">After</th></tr></thead>
          <tbody>
            <tr>
              <th scope="row">Title</th>
              <td><del>Chapter One</del></td>
              <td><ins>Chapter 1</ins></td></tr>
            <tr>
              <th scope="row">Status</th>
              <td><del>Draft</del></td>
              <td><ins>Published</ins></td></tr>
          </tbody>
        </table>
        """,
        response.content.decode(),
    )
    assertInHTML(
        """
        <table class="diff-body"><caption>Body</caption><tbody>
          <tr class="diff-equal">
            <td class="line-number">1</td>
            <td class="line-number">1</td>
            <td class="line">Intro.</td></tr>
          <tr class="diff-delete">
            <td class="line-number">2</td>
            <td class="line-number"></td>
            <td class="line">Kernels fuse <del>here</del>.</td></tr>
          <tr class="diff-insert">
            <td class="line-number"></td>
            <td class="line-number">2</td>
            <td class="line">Kernels fuse <ins>there</ins>.</td></tr>
          <tr class="diff-equal">
            <td class="line-number">3</td>
            <td class="line-number">3</td>
            <td class="line">End.</td></tr>
          <tr class="diff-insert">
            <td class="line-number"></td>
            <td class="line-number">4</td>
            <td class="line">More.</td></tr>
        </tbody></table>
        """,
        response.content.decode(),
    )


@pytest.mark.django_db
def test_diff_escapes_a_hostile_body(client, small_tree):
    edit("Chapter One", body='<img src=x onerror="alert(1)">')
    response = client.get(reverse("chapters:diff"), {"new": revisions("Chapter One")[0].history_id})
    line = soup(response).find("tr", class_="diff-insert").find("td", class_="line")
    assert line.decode_contents() == '<ins>&lt;img src=x onerror="alert(1)"&gt;</ins>'


@pytest.mark.django_db
def test_diff_without_old_compares_with_the_previous_revision(client, small_tree):
    edit("Chapter One", title="Chapter Uno")
    response = client.get(reverse("chapters:diff"), {"new": revisions("Chapter Uno")[0].history_id})
    assert soup(response).find("table", class_="diff-fields").tbody.get_text(" ", strip=True) == (
        "Title Chapter One Chapter Uno"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"old": "same", "new": "same"}, 400, "Choose two different revisions to compare."),
        ({"old": "abc", "new": "1"}, 400, "Enter a whole number."),
        ({"old": "1"}, 400, "This field is required."),
        ({"old": "999999", "new": "latest"}, 404, None),
        ({"old": "other", "new": "latest"}, 404, None),
        ({"new": "first"}, 404, None),
    ],
)
def test_diff_bad_input_gets_a_clear_answer(client, small_tree, params, status, message):
    edit("Chapter One", body="Changed.")
    ids = {
        "same": revisions("Chapter One")[0].history_id,
        "latest": revisions("Chapter One")[0].history_id,
        "first": revisions("Chapter One")[-1].history_id,
        "other": revisions("Chapter Two")[0].history_id,
    }
    query = {key: ids.get(value, value) for key, value in params.items()}
    response = client.get(reverse("chapters:diff"), query)
    assert response.status_code == status
    if message:
        assert message in soup(response).find("ul", class_="errors").get_text()


@pytest.mark.django_db
def test_revert_restores_content_and_records_a_revision(admin_client, admin_user, small_tree):
    edit("Chapter One", body="Good text.", status="published")
    good = revisions("Chapter One")[0]
    edit("Chapter One", title="Vandalized", body="Bad text.", status="draft")
    before_tree = [(n.pk, n.lft, n.rght, n.tree_id, n.level) for n in Node.objects.all()]
    response = admin_client.post(reverse("chapters:revert", args=[good.history_id]))
    assert (response.status_code, response["Location"]) == (302, "/area-a/section-a1/chapter-one/")
    reverted = Node.objects.get(pk=good.id)
    assert (reverted.title, reverted.body, reverted.status) == (
        "Chapter One",
        "Good text.",
        "published",
    )
    latest = Node.history.filter(id=good.id).first()
    assert (latest.history_change_reason, latest.history_user) == (
        f"Reverted to revision {good.history_id}",
        admin_user,
    )
    assert [(n.pk, n.lft, n.rght, n.tree_id, n.level) for n in Node.objects.all()] == before_tree


@pytest.mark.django_db
def test_revert_moves_the_node_back_to_its_old_parent(admin_client, small_tree):
    before = tree_table()
    original = revisions("Chapter Four")[0]
    chapter = node("Chapter Four")
    chapter.move_to(node("Section B1"), "last-child")
    admin_client.post(reverse("chapters:revert", args=[original.history_id]))
    assert tree_table() == before
    Node.objects.rebuild()
    assert tree_table() == before


@pytest.mark.django_db
def test_revert_keeps_the_node_where_it_is_when_its_old_parent_is_gone(admin_client, small_tree):
    original = revisions("Chapter Four")[0]
    node("Chapter Four").move_to(node("Section B1"), "last-child")
    node("Section A2").delete()
    edit("Chapter Four", body="Changed, to be reverted.")
    response = admin_client.post(
        reverse("chapters:revert", args=[original.history_id]), follow=True
    )
    assert node("Chapter Four").path == "area-b/section-b1/chapter-four"
    assert [str(m) for m in response.context["messages"]] == [
        f"“Chapter Four” was reverted to revision {original.history_id}.",
        "The section it was in no longer exists, so it stays where it is.",
    ]


@pytest.mark.django_db
def test_revert_keeps_the_current_slug_when_a_sibling_took_the_old_one(admin_client, small_tree):
    original = revisions("Chapter One")[0]
    edit("Chapter One", slug="first")
    edit("Chapter Two", slug="chapter-one")
    admin_client.post(reverse("chapters:revert", args=[original.history_id]))
    assert node("Chapter One").slug == "first"


@pytest.mark.django_db
def test_revert_is_for_staff_with_a_post_only_and_asks_anonymous_users_to_sign_in(
    client, django_user_model, small_tree
):
    revision = revisions("Chapter One")[0]
    edit("Chapter One", body="Changed.")
    url = reverse("chapters:revert", args=[revision.history_id])
    assert client.post(url)["Location"] == f"/accounts/login/?next={url}"
    reader = django_user_model.objects.create_user("reader", password="pw")
    client.force_login(reader)
    assert client.post(url).status_code == 403
    assert client.get(url).status_code == 403  # editors get the confirmation
    assert node("Chapter One").body == "Changed."


@pytest.mark.django_db
def test_revert_requires_a_csrf_token(admin_user, small_tree):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    revision = revisions("Chapter One")[0]
    assert browser.post(reverse("chapters:revert", args=[revision.history_id])).status_code == 403


@pytest.mark.django_db
def test_revert_of_unknown_or_deleted_revision_is_404(admin_client, small_tree):
    revision = revisions("Chapter Six")[0]
    node("Chapter Six").delete()
    assert (
        admin_client.post(reverse("chapters:revert", args=[revision.history_id])).status_code == 404
    )
    assert admin_client.post(reverse("chapters:revert", args=[999999])).status_code == 404


@pytest.mark.django_db
def test_admin_history_lists_revisions_with_revert_buttons(admin_client, small_tree):
    edit("Chapter One", body="Changed.")
    page = soup(
        admin_client.get(reverse("admin:chapters_node_history", args=[node("Chapter One").pk]))
    )
    rows = page.find(id="revision-list").tbody.find_all("tr")
    ids = [r.history_id for r in revisions("Chapter One")]
    assert [row.a.get_text() for row in rows] == [f"#{i}" for i in ids]
    assert [row.form["action"] if row.form else None for row in rows] == [
        None,
        reverse("chapters:revert", args=[ids[1]]),
    ]


@pytest.mark.django_db
def test_history_page_offers_staff_a_revert_button_per_older_revision(
    client, admin_client, small_tree
):
    edit("Chapter One", body="Changed.")
    url = "/history/area-a/section-a1/chapter-one/"
    assert soup(client.get(url)).find("button", string="Revert to this") is None
    page = soup(admin_client.get(url))
    buttons = page.find_all("button", string="Revert to this")
    older = revisions("Chapter One")[1].history_id
    assert [b["form"] for b in buttons] == [f"revert-{older}"]
    form = page.find("form", id=f"revert-{older}")
    assert (form["method"], form["action"]) == ("get", reverse("chapters:revert", args=[older]))
    response = admin_client.post(form["action"], {"next": url})
    assert (response.status_code, response["Location"]) == (302, url)
    assert node("Chapter One").body == "This chapter is currently a scaffold."


@pytest.mark.django_db
def test_revert_needs_the_change_permission_not_only_staff(client, django_user_model, small_tree):
    revision = revisions("Chapter One")[0]
    edit("Chapter One", body="Changed.")
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    client.force_login(viewer)
    assert client.post(reverse("chapters:revert", args=[revision.history_id])).status_code == 403
    history = reverse("admin:chapters_node_history", args=[node("Chapter One").pk])
    assert client.get(history).status_code == 403
    assert node("Chapter One").body == "Changed."


@pytest.mark.django_db
def test_admin_history_of_a_bad_id_is_404(admin_client, small_tree):
    assert admin_client.get("/admin/chapters/node/abc/history/").status_code == 404
    assert admin_client.post(
        "/admin/chapters/node/preview/", {"node": "²", "body": "x"}
    ).json() == {
        "html": "<p>x</p>",
        "broken": [],
    }


@pytest.mark.django_db
def test_old_revision_resolves_its_wiki_links(client, small_tree):
    edit("Chapter One", body="See [[Chapter Two]].")
    old = revisions("Chapter One")[0]
    edit("Chapter One", body="Newer.")
    page = soup(client.get(reverse("chapters:revision", args=[old.history_id])))
    assertInHTML(
        '<div class="body"><p>See <a class="wikilink" href="/area-a/section-a1/chapter-two/">'
        "Chapter Two</a>.</p></div>",
        str(page),
    )


@pytest.mark.django_db
def test_revert_asks_for_confirmation_showing_what_will_change(admin_client, small_tree):
    original = revisions("Chapter One")[0]
    edit("Chapter One", title="Chapter 1", body="Changed.")
    url = reverse("chapters:revert", args=[original.history_id])
    page = soup(admin_client.get(url, {"next": "/history/area-a/section-a1/chapter-one/"}))
    fields = page.find(class_="diff-fields").tbody.find_all("tr")
    assert [[cell.get_text() for cell in row.find_all(["th", "td"])] for row in fields] == [
        ["Title", "Chapter 1", "Chapter One"]
    ]
    assert [row.get_text() for row in page.find(class_="diff-body").find_all("tr")] == [
        "1Changed.",
        "1This chapter is currently a scaffold.",
    ]
    form = page.find("form", class_="revert-confirm")
    assert (
        form["method"],
        form["action"],
        form.find("input", attrs={"name": "next"})["value"],
    ) == (
        "post",
        url,
        "/history/area-a/section-a1/chapter-one/",
    )
    assert node("Chapter 1").body == "Changed."


@pytest.mark.django_db
def test_revert_to_an_identical_state_writes_no_revision(admin_client, small_tree):
    edit("Chapter One", body="Changed.")
    latest = revisions("Chapter One")[0]
    url = reverse("chapters:revert", args=[latest.history_id])
    page = soup(admin_client.get(url))
    assert page.find(class_="nothing-to-revert").get_text() == (
        "Nothing: the page is already as that revision left it."
    )
    assert page.find("form", class_="revert-confirm").button.has_attr("disabled")
    response = admin_client.post(url, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "Nothing to revert: the page is already as that revision left it."
    ]
    assert [r.history_id for r in revisions("Chapter One")][0] == latest.history_id
    assert history.revert(node("Chapter One"), latest) == [history.NOTHING_TO_REVERT]
    assert len(revisions("Chapter One")) == 2


@pytest.mark.django_db
def test_an_admin_edit_summary_is_stored_on_one_line(admin_client, small_tree):
    chapter = node("Chapter Two")
    data = {
        "title": "Chapter Two",
        "slug": "chapter-two",
        "kind": "chapter",
        "status": "review",
        "parent": chapter.parent_id,
        "body": "Now with content.",
        "summary": "Write a first draft\r\nTo: everyone\n\n  and more",
        "base_revision": revisions("Chapter Two")[0].history_id,
    }
    response = admin_client.post(reverse("admin:chapters_node_change", args=[chapter.pk]), data)
    assert response.status_code == 302
    assert revisions("Chapter Two")[0].history_change_reason == (
        "Write a first draft To: everyone and more"
    )


@pytest.mark.django_db
def test_a_script_s_summaries_are_stored_on_one_line(small_tree):
    edit("Chapter One", summary="Fix\nthe\ttypo", body="Fixed.")
    with tree_write(summary="Clean up\r\nSubject: spam"):
        node("Chapter Two").delete()

    assert revisions("Chapter One")[0].history_change_reason == "Fix the typo"
    assert [r.history_change_reason for r in Node.history.filter(history_type="-")] == [
        "Clean up Subject: spam"
    ]
