"""The site's editor (chapters.edit.views): who may open it, what it saves, its preview
without JavaScript, new chapters, merges, drafts, the titles for completion."""

import json

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from chapters.edit.conflicts import FOREIGN_BASE
from chapters.models import RESERVED_ROOT_SLUGS, EditDraft, Node
from tests.helpers import edit, form_values, node, role_user, soup

EDIT_ONE = "/edit/area-a/section-a1/chapter-one/"
NEW_IN_A1 = "/new/area-a/section-a1/"
DRAFT_ONE = "/drafts/edit/area-a/section-a1/chapter-one/"


def opened(client, url=EDIT_ONE):
    """Open the editor at ``url``; return its form's POST data as shown."""
    response = client.get(url)
    assert response.status_code == 200
    return form_values(soup(response), "editor")


@pytest.mark.django_db
def test_editor_urls_are_reserved_and_come_before_pages():
    assert {"edit", "new", "review", "drafts", "watch", "preview"} <= RESERVED_ROOT_SLUGS
    assert reverse("chapters:edit", args=["a/b"]) == "/edit/a/b/"
    assert reverse("chapters:new", args=["a"]) == "/new/a/"
    assert reverse("chapters:titles") == "/edit/titles.json"
    assert reverse("chapters:review") == "/review/"
    assert reverse("chapters:change", args=[3]) == "/review/3/"
    assert reverse("chapters:draft", args=["a/b"]) == DRAFT_ONE.replace(
        "area-a/section-a1/chapter-one", "a/b"
    )


@pytest.mark.django_db
def test_editor_is_for_editors(client, django_user_model, small_tree):
    response = client.get(EDIT_ONE)
    assert (response.status_code, response["Location"]) == (
        302,
        f"/accounts/login/?next={EDIT_ONE}",
    )
    client.force_login(django_user_model.objects.create_user("staff", is_staff=True))
    assert client.get(EDIT_ONE).status_code == 403
    assert client.get(NEW_IN_A1).status_code == 403
    assert client.post(EDIT_ONE, {"title": "X"}).status_code == 403
    assert node("Chapter One").title == "Chapter One"


@pytest.mark.django_db
def test_editor_shows_the_page_s_fields_and_its_preview(client, small_tree):
    edit("Chapter One", body="## Fusion\n\nSee [[Chapter Five]].")
    client.force_login(role_user("ed", "Editor"))
    page = soup(client.get(EDIT_ONE))
    form = form_values(page, "editor")
    assert {key: form[key] for key in ("title", "status", "body", "summary")} == {
        "title": "Chapter One",
        "status": "draft",
        "body": "## Fusion\n\nSee [[Chapter Five]].",
        "summary": "",
    }
    assert form["base_revision"] == str(
        Node.history.filter(id=node("Chapter One").pk)[0].history_id
    )
    saved = BeautifulSoup(node("Chapter One").body_html, "html.parser")
    assert page.find(id="preview").decode_contents() == saved.decode()
    statuses = [
        o["value"] for o in page.find("select", attrs={"name": "status"}).find_all("option")
    ]
    assert statuses == ["draft", "review"]
    sections = [
        o.get_text() for o in page.find("select", attrs={"name": "parent"}).find_all("option")
    ]
    assert sections == [
        "(top level)",
        "Area A",
        "Area A / Section A1",
        "Area A / Section A2",
        "Area B",
        "Area B / Section B1",
    ]


@pytest.mark.django_db
def test_editor_saves_a_revision_with_its_author_and_summary(client, small_tree):
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    form = opened(client)
    form.update(
        title="Chapter One, revised", body="New *text*.", summary="Reworded", status="review"
    )
    response = client.post(EDIT_ONE, {**form, "save": "1"})
    assert (response.status_code, response["Location"]) == (302, "/area-a/section-a1/chapter-one/")
    saved = node("Chapter One, revised")
    assert (saved.body_html, saved.status) == ("<p>New <em>text</em>.</p>", "review")
    latest = Node.history.filter(id=saved.pk).first()
    assert (latest.history_user, latest.history_change_reason) == (editor, "Reworded")


@pytest.mark.django_db
def test_editor_preview_button_shows_the_form_again_with_the_preview_and_saves_nothing(
    client, small_tree
):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    form["body"] = "!!! tip\n    Profile first.\n\n$x^2$"
    response = client.post(EDIT_ONE, {**form, "preview": "1"})
    page = soup(response)
    assert page.find(id="preview").find(class_="admonition")["class"] == ["admonition", "tip"]
    assert page.find(id="preview").find("math") is not None
    assert form_values(page, "editor")["body"] == form["body"]
    assert node("Chapter One").body == "This chapter is currently a scaffold."


@pytest.mark.django_db
def test_editor_refuses_what_the_tree_or_the_workflow_refuses(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    response = client.post(EDIT_ONE, {**form, "title": " ", "status": "published"})
    errors = response.context["form"].errors
    assert errors == {
        "title": ["This field is required."],
        "status": ["Select a valid choice. published is not one of the available choices."],
    }
    edit("Chapter Two", slug="taken")
    response = client.post(EDIT_ONE, {**form, "parent": node("Area B").pk})
    assert response.status_code == 302  # a chapter may move to another section
    assert node("Chapter One").path == "area-b/chapter-one"


@pytest.mark.django_db
def test_new_chapter_goes_into_its_section_as_a_draft(client, small_tree):
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    form = opened(client, NEW_IN_A1)
    assert (form["title"], form["status"], form["parent"]) == (
        "",
        "draft",
        str(node("Section A1").pk),
    )
    form.update(title="Kernel Fusion", body="Fuse them.")
    response = client.post(NEW_IN_A1, {**form, "save": "1"})
    assert response["Location"] == "/area-a/section-a1/kernel-fusion/"
    chapter = node("Kernel Fusion")
    assert (chapter.kind, chapter.status, chapter.parent.title) == (
        "chapter",
        "draft",
        "Section A1",
    )
    assert [c.title for c in node("Section A1").get_children()][-1] == "Kernel Fusion"
    assert soup(client.get("/area-a/section-a1/")).find("a", class_="new-link")["href"] == NEW_IN_A1
    assert soup(client.get("/area-a/section-a1/chapter-one/")).find("a", class_="new-link") is None


@pytest.mark.django_db
def test_editor_merges_two_editors_changes_that_do_not_overlap(client, small_tree):
    edit("Chapter One", body="One.\n\nTwo.\n\nThree.")
    client.force_login(role_user("ed", "Editor"))
    mine = opened(client)
    edit("Chapter One", body="One, by B.\n\nTwo.\n\nThree.", title="Chapter 1")
    mine["body"] = "One.\n\nTwo.\n\nThree, by A."

    response = client.post(EDIT_ONE, {**mine, "save": "1"}, follow=True)

    assert response.redirect_chain == [("/area-a/section-a1/chapter-one/", 302)]  # same slug
    saved = node("Chapter 1")
    assert (saved.title, saved.body) == ("Chapter 1", "One, by B.\n\nTwo.\n\nThree, by A.")
    theirs = Node.history.filter(id=saved.pk)[1]
    told = [li.get_text(" ", strip=True) for li in soup(response).select(".messages li")]
    assert told == [
        f"a script saved this page at {theirs.history_date:%Y-%m-%d %H:%M} UTC while you were "
        "editing it: their change was merged with yours.",
        "“Chapter 1” was saved.",
    ]


@pytest.mark.django_db
def test_editor_resolves_a_conflict_with_the_buttons_without_javascript(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    mine = opened(client)
    edit("Chapter One", body="Their words.")
    mine["body"] = "My words."
    marked = form_values(soup(client.post(EDIT_ONE, {**mine, "save": "1"})), "editor")
    assert marked["body"] == "<<<<<<< yours\nMy words.\n=======\nTheir words.\n>>>>>>> theirs"
    assert client.post(EDIT_ONE, {**marked, "save": "1"}).status_code == 200  # refused

    page = soup(client.post(EDIT_ONE, {**marked, "resolve": "0:both"}))
    assert page.find(class_="conflicts") is None
    both = form_values(page, "editor")
    assert both["body"] == "My words.\nTheir words."
    assert client.post(EDIT_ONE, {**both, "save": "1"}).status_code == 302
    assert node("Chapter One").body == "My words.\nTheir words."


@pytest.mark.django_db
def test_draft_is_kept_offered_restored_and_deleted_on_save(client, small_tree):
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    form = opened(client)
    form.update(title="Chapter One (draft)", body="Half a thought")
    response = client.post(DRAFT_ONE, {**form, "body": "Half a thought"})
    assert response.status_code == 200
    assert response.json()["message"].startswith("Draft saved at ")
    draft = EditDraft.objects.get(user=editor)
    assert (draft.node.title, draft.adding, draft.body, draft.base_revision) == (
        "Chapter One",
        False,
        "Half a thought",
        int(form["base_revision"]),
    )

    offer = soup(client.get(EDIT_ONE)).find(class_="draft-offer")
    assert " ".join(offer.p.get_text().split()).startswith("You have an unsaved draft from ")
    assert offer.find("a", class_="draft-restore")["href"] == "?restore=draft"
    restored = opened(client, EDIT_ONE + "?restore=draft")
    assert (restored["title"], restored["body"]) == ("Chapter One (draft)", "Half a thought")

    assert client.post(EDIT_ONE, {**restored, "save": "1"}).status_code == 302
    assert EditDraft.objects.count() == 0


@pytest.mark.django_db
def test_draft_discard_and_drafts_of_new_chapters(client, small_tree):
    editor = role_user("ed", "Editor")
    client.force_login(editor)
    client.post("/drafts/new/area-a/section-a1/", {"title": "Soon", "body": "x"})
    assert soup(client.get(NEW_IN_A1)).find(class_="draft-offer") is not None
    assert soup(client.get(EDIT_ONE)).find(class_="draft-offer") is None
    response = client.post("/drafts/new/area-a/section-a1/", {"discard": "1"})
    assert (response.status_code, response["Location"]) == (302, NEW_IN_A1)
    assert EditDraft.objects.count() == 0
    client.logout()
    assert client.post(DRAFT_ONE, {"body": "x"}).status_code == 403


@pytest.mark.django_db
def test_preview_endpoint_renders_with_the_site_s_pipeline(client, small_tree):
    assert client.post("/preview/", {"body": "x"}).status_code == 403
    client.force_login(role_user("ed", "Editor"))
    response = client.post(
        "/preview/",
        {"body": "See [[Chapter Six]] and [[Nowhere]].", "node": node("Chapter One").pk},
    )
    assert response.json() == {
        "html": '<p>See <a class="wikilink" href="/area-b/section-b1/chapter-six/">Chapter Six</a>'
        ' and <span class="wikilink-broken" title="There is no page “Nowhere”.">Nowhere</span>'
        ".</p>",
        "broken": [{"text": "Nowhere", "problem": "There is no page “Nowhere”."}],
    }


@pytest.mark.django_db
def test_titles_tell_pages_of_the_same_title_apart_and_are_kept_per_version(
    client, curriculum, django_assert_num_queries
):
    client.force_login(role_user("ed", "Editor"))
    titles = client.get("/edit/titles.json").json()
    fundamentals = [t for t in titles if t["title"] == "Fundamentals"]
    assert len(fundamentals) > 1
    assert all(t["link"].endswith("/Fundamentals") for t in fundamentals)
    assert len({t["link"] for t in fundamentals}) == len(fundamentals)
    unique = next(t for t in titles if t["title"] == "Graph Optimization and Kernel Fusion")
    assert unique == {
        "title": "Graph Optimization and Kernel Fusion",
        "link": "Graph Optimization and Kernel Fusion",
        "label": "ML Systems / ML Compilers / Graph Optimization and Kernel Fusion",
        "path": "/ml-systems/ml-compilers/graph-optimization-and-kernel-fusion/",
    }
    with django_assert_num_queries(5):  # the session, the user, their permissions, the version
        assert json.loads(client.get("/edit/titles.json").content) == titles


@pytest.mark.django_db
def test_an_edit_opened_before_a_section_above_the_page_moved_is_saved_to_the_page(
    client, small_tree
):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    Node.objects.move_node(node("Section A1"), node("Area B"), "last-child")

    draft = client.post(DRAFT_ONE, {**form, "body": "Kept as a draft."})
    response = client.post(EDIT_ONE, {**form, "body": "An hour of work.", "save": "1"})

    moved = node("Chapter One")
    assert (draft.status_code, response.status_code) == (200, 302)
    assert (response.url, moved.body) == ("/area-b/section-a1/chapter-one/", "An hour of work.")
    assert not EditDraft.objects.exists()


@pytest.mark.django_db
def test_the_editor_at_a_page_s_old_path_redirects_to_its_new_one(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    Node.objects.move_node(node("Section A1"), node("Area B"), "last-child")

    response = client.get(f"{EDIT_ONE}?restore=draft")

    assert (response.status_code, response.url) == (
        302,
        "/edit/area-b/section-a1/chapter-one/?restore=draft",
    )
    assert client.get("/edit/area-a/no-such-page/").status_code == 404


@pytest.mark.django_db
def test_a_draft_with_a_base_revision_out_of_range_keeps_no_base(client, small_tree):
    client.force_login(role_user("ed", "Editor"))

    response = client.post(DRAFT_ONE, {"body": "x", "base_revision": "9" * 30})

    assert response.status_code == 200
    assert EditDraft.objects.get().base_revision is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    "conflicts",
    ['{"status": [["a"], "b"]}', '{"status": "ab"}', '["status"]', '{"status": [1, 2, 3]}', "{"],
)
def test_forged_field_conflicts_are_ignored(client, small_tree, conflicts):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)

    response = client.post(EDIT_ONE, {**form, "body": "Mine.", "conflicts": conflicts, "save": "1"})

    assert (response.status_code, node("Chapter One").body) == (302, "Mine.")


@pytest.mark.django_db
def test_a_form_without_its_base_revision_is_refused_not_saved_over_a_newer_save(
    client, small_tree
):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    edit("Chapter One", body="Someone else's newer text.")
    del form["base_revision"]

    response = client.post(EDIT_ONE, {**form, "title": "Mine", "save": "1"})

    assert response.status_code == 200
    assert node("Chapter One").body == "Someone else's newer text."
    assert "The form came without the revision it was opened at" in response.content.decode()


@pytest.mark.django_db
def test_an_edit_posted_to_a_path_another_page_took_since_is_saved_to_the_page_opened(
    client, small_tree
):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    Node.objects.move_node(node("Chapter One"), node("Section B1"), "last-child")
    Node.objects.create(title="Chapter One", parent=node("Section A1"), kind="chapter")

    client.post(DRAFT_ONE, {**form, "body": "Kept as a draft."})
    # The move merges with the edit without a conflict: one Save keeps both.
    response = client.post(EDIT_ONE, {**form, "body": "Mine.", "save": "1"})

    moved, newcomer = Node.objects.filter(title="Chapter One").order_by("pk")
    assert (response.status_code, response.url) == (302, "/area-b/section-b1/chapter-one/")
    assert (moved.body, newcomer.body) == ("Mine.", "")
    assert list(EditDraft.objects.values_list("node", flat=True)) == []


@pytest.mark.django_db
def test_a_save_that_changes_nothing_writes_no_revision(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    revisions = Node.history.filter(id=node("Chapter One").pk).count()

    response = client.post(
        EDIT_ONE, {**form, "summary": "Looked it over", "save": "1"}, follow=True
    )

    assert response.redirect_chain == [("/area-a/section-a1/chapter-one/", 302)]
    assert Node.history.filter(id=node("Chapter One").pk).count() == revisions
    assert [str(m) for m in response.context["messages"]] == [
        "Nothing was changed, so no revision was saved."
    ]


@pytest.mark.django_db
def test_a_draft_with_a_section_id_out_of_range_keeps_no_section(client, small_tree):
    client.force_login(role_user("ed", "Editor"))

    response = client.post(DRAFT_ONE, {"body": "x", "parent": "9" * 30})

    assert response.status_code == 200
    assert EditDraft.objects.get().parent is None


@pytest.mark.django_db
def test_a_base_revision_of_another_page_is_refused_not_saved_to_that_page(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)
    other = Node.history.filter(id=node("Chapter Five").pk).first().history_id

    response = client.post(
        EDIT_ONE, {**form, "base_revision": str(other), "body": "Forged.", "save": "1"}
    )

    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [FOREIGN_BASE]
    assert [(n.title, n.path, n.body) for n in Node.objects.filter(kind="chapter")[::4]] == [
        ("Chapter One", "area-a/section-a1/chapter-one", "This chapter is currently a scaffold."),
        ("Chapter Five", "area-b/section-b1/chapter-five", "This chapter is currently a scaffold."),
    ]


@pytest.mark.django_db
def test_an_edit_summary_is_stored_on_one_line(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    form = opened(client)

    client.post(DRAFT_ONE, {**form, "summary": "Draft\r\nsummary"})
    kept = EditDraft.objects.get().summary
    response = client.post(
        EDIT_ONE, {**form, "body": "New.", "summary": "Fix\r\nBcc: x\n\n  typo", "save": "1"}
    )

    assert (kept, response.status_code) == ("Draft summary", 302)
    latest = Node.history.filter(id=node("Chapter One").pk).first()
    assert latest.history_change_reason == "Fix Bcc: x typo"
