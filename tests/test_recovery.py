"""Deleting and restoring: the admin's confirmation lists what goes, each delete is one
deletion in the revisions, and staff restore a deleted node with its subtree."""

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from chapters.models import Link, Node, PathRedirect
from tests.helpers import SMALL_TREE, node, soup, toc_outline, tree_table

CHANGELIST = reverse("admin:chapters_node_changelist")
DELETED = reverse("admin:chapters_node_deleted")

SMALL_TREE_TABLE = """\
Area A [section] area-a
  Section A1 [section] area-a/section-a1
    Chapter One [chapter] area-a/section-a1/chapter-one
    Chapter Two [chapter] area-a/section-a1/chapter-two
    Chapter Three [chapter] area-a/section-a1/chapter-three
  Section A2 [section] area-a/section-a2
    Chapter Four [chapter] area-a/section-a2/chapter-four
Area B [section] area-b
  Section B1 [section] area-b/section-b1
    Chapter Five [chapter] area-b/section-b1/chapter-five
    Chapter Six [chapter] area-b/section-b1/chapter-six"""


def outline(items, depth=0):
    """Return a parsed ``<ul>``'s items as lines of text, indented two spaces per level."""
    lines = []
    for item in items.find_all("li", recursive=False):
        nested = item.find("ul", recursive=False)
        if nested is not None:
            nested.extract()
        lines.append("  " * depth + " ".join(item.get_text().split()))
        if nested is not None:
            lines.extend(outline(nested, depth + 1))
    return lines


def deletion_of(title):
    """Return the "-" revision of the latest deletion asked for the node titled ``title``."""
    return Node.history.filter(title=title, history_type="-").exclude(deletion=None).first()


def restore_url(title):
    """Return the admin URL that restores the latest deletion of the node titled ``title``."""
    return reverse("admin:chapters_node_restore", args=[deletion_of(title).history_id])


def shown_messages(response):
    """Return the texts of the admin's messages on a page."""
    return [li.get_text() for li in soup(response).select("ul.messagelist li")]


def restore(admin_client, title):
    """Restore the deletion of ``title`` as an admin; return the messages shown after it."""
    response = admin_client.post(restore_url(title), follow=True)
    assert response.redirect_chain == [(DELETED, 302)]
    return shown_messages(response)


@pytest.fixture
def editor(db, django_user_model):
    """Return a signed-in client of a staff member who may add, but not delete, nodes."""
    user = django_user_model.objects.create_user("editor", is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="add_node"), Permission.objects.get(codename="view_node")
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_delete_confirmation_lists_every_node_under_it_with_its_path(admin_client, small_tree):
    two = node("Chapter Two")
    two.body = "See [[Chapter Four]]."
    two.save()
    three = node("Chapter Three")
    three.slug = "third"
    three.save()
    url = reverse("admin:chapters_node_delete", args=[node("Section A1").pk])
    page = soup(admin_client.get(url))
    links = [a["href"] for a in page.find(id="deleted-objects").find_all("a")]
    assert outline(page.find(id="deleted-objects")) == [
        "Section: Section A1 at /area-a/section-a1/",
        "  Chapter: Chapter One at /area-a/section-a1/chapter-one/",
        "  Chapter: Chapter Two at /area-a/section-a1/chapter-two/",
        "    Link: Chapter Two → Chapter Four",
        "  Chapter: Chapter Three at /area-a/section-a1/third/",
        "    Path redirect: area-a/section-a1/chapter-three → area-a/section-a1/third",
    ]
    assert links == [
        reverse("admin:chapters_node_change", args=[node(title).pk])
        for title in ["Section A1", "Chapter One", "Chapter Two", "Chapter Three"]
    ]
    summary = page.find("h2", string="Summary").find_next("ul")
    assert [li.get_text() for li in summary.find_all("li")] == [
        "Nodes: 4",
        "Path redirects: 1",
        "Links: 1",
    ]


@pytest.mark.django_db
def test_bulk_delete_confirmation_lists_every_node_once_with_its_path(admin_client, small_tree):
    selected = [node(title).pk for title in ["Section A1", "Chapter One", "Chapter Five"]]
    response = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": selected}
    )
    objects = soup(response).find("h2", string="Objects").find_next("ul")
    assert outline(objects) == [
        "Section: Section A1 at /area-a/section-a1/",
        "  Chapter: Chapter One at /area-a/section-a1/chapter-one/",
        "  Chapter: Chapter Two at /area-a/section-a1/chapter-two/",
        "  Chapter: Chapter Three at /area-a/section-a1/chapter-three/",
        "Chapter: Chapter Five at /area-b/section-b1/chapter-five/",
    ]


@pytest.mark.django_db
def test_bulk_delete_of_a_section_and_its_chapter_records_each_deletion_once(
    admin_client, small_tree
):
    selected = [node(title).pk for title in ["Section A1", "Chapter One", "Chapter Five"]]
    admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": selected, "post": "yes"}
    )
    deleted = Node.history.filter(history_type="-").order_by("history_id")
    assert [(r.title, r.history_change_reason) for r in deleted] == [
        ("Chapter Three", "Deleted with “Section A1”"),
        ("Chapter Two", "Deleted with “Section A1”"),
        ("Chapter One", "Deleted with “Section A1”"),
        ("Section A1", "Deleted"),
        ("Chapter Five", "Deleted"),
    ]
    assert tree_table() == (
        "Area A [section] area-a\n"
        "  Section A2 [section] area-a/section-a2\n"
        "    Chapter Four [chapter] area-a/section-a2/chapter-four\n"
        "Area B [section] area-b\n"
        "  Section B1 [section] area-b/section-b1\n"
        "    Chapter Six [chapter] area-b/section-b1/chapter-six"
    )
    assert Node.objects.check_tree() == []


@pytest.mark.django_db
def test_delete_records_one_deletion_with_the_places_of_the_nodes(admin_user, small_tree):
    ids = {n.title: n.pk for n in Node.objects.all()}
    section = node("Section A1")
    section._history_user = admin_user
    section.delete()
    root = deletion_of("Section A1")
    deleted = Node.history.filter(deletion=root.history_id).order_by("history_id")
    assert [(r.id, r.deleted_after, r.history_user, r.history_date) for r in deleted] == [
        (ids["Chapter Three"], ids["Chapter Two"], admin_user, root.history_date),
        (ids["Chapter Two"], ids["Chapter One"], admin_user, root.history_date),
        (ids["Chapter One"], None, admin_user, root.history_date),
        (ids["Section A1"], None, admin_user, root.history_date),
    ]
    node("Chapter Four").delete()
    four = deletion_of("Chapter Four")
    assert (four.deletion, four.deleted_after, four.history_user) == (four.history_id, None, None)
    node("Area B").delete()
    assert deletion_of("Area B").deleted_after == ids["Area A"]


@pytest.mark.django_db
def test_deleted_pages_lists_deletions_newest_first(admin_client, small_tree):
    url = reverse("admin:chapters_node_delete", args=[node("Section A1").pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    node("Chapter Six").delete()
    page = soup(admin_client.get(DELETED))
    rows = [
        [" ".join(td.get_text().split()) for td in tr.find_all("td")[:5] if td.get_text()]
        for tr in page.find(id="deletion-list").tbody.find_all("tr")
    ]
    today = deletion_of("Chapter Six").history_date.strftime("%b %-d, %Y")
    assert [row[:3] + row[4:] for row in rows] == [
        ["Chapter Six", "/area-b/section-b1/chapter-six/", "1", "script"],
        ["Section A1", "/area-a/section-a1/", "4", "admin"],
    ]
    assert all(row[3].startswith(today) for row in rows)
    forms = [form["action"] for form in page.find(id="deletion-list").find_all("form")]
    assert forms == [restore_url("Chapter Six"), restore_url("Section A1")]
    revision = admin_client.get(
        page.find(id="deletion-list").find("a", string="Section A1")["href"]
    )
    assert revision.status_code == 200
    assert soup(revision).h1.get_text() == "Section A1"
    changelist = soup(admin_client.get(CHANGELIST))
    assert changelist.find("a", string="Deleted pages")["href"] == DELETED


@pytest.mark.django_db
def test_deleted_pages_is_empty_at_first_and_after_a_restore(admin_client, small_tree):
    empty = ["No deleted pages."]
    page = soup(admin_client.get(DELETED))
    assert [td.get_text() for td in page.find(id="deletion-list").find_all("td")] == empty
    node("Chapter One").delete()
    restore(admin_client, "Chapter One")
    page = soup(admin_client.get(DELETED))
    assert [td.get_text() for td in page.find(id="deletion-list").find_all("td")] == empty


@pytest.mark.django_db
def test_restore_puts_back_the_subtree_in_tree_order(admin_client, client, small_tree):
    node("Section A1").delete()
    assert restore(admin_client, "Section A1") == [
        "“Section A1” was restored at /area-a/section-a1/ with 3 pages under it."
    ]
    assert tree_table() == SMALL_TREE_TABLE
    assert Node.objects.check_tree() == []
    logged = LogEntry.objects.get(action_flag=ADDITION)
    assert (logged.object_id, logged.get_change_message()) == (
        str(node("Section A1").pk),
        "Restored",
    )
    assert toc_outline(soup(client.get("/area-b/"))) == SMALL_TREE
    assert client.get("/area-a/section-a1/chapter-two/").status_code == 200
    assert client.get("/area-a/section-a1/").status_code == 200


@pytest.mark.django_db
def test_restore_brings_back_the_last_revision_and_records_a_revision(
    admin_client, admin_user, small_tree
):
    two = node("Chapter Two")
    two.title, two.slug, two.status, two.body = "Kernels", "kernels", "published", "# Fusion"
    two.save()
    node("Section A1").delete()
    restore(admin_client, "Section A1")
    kernels = node("Kernels")
    assert (kernels.path, kernels.status, kernels.body, kernels.body_html) == (
        "area-a/section-a1/kernels",
        "published",
        "# Fusion",
        '<h1 id="fusion">Fusion<a class="headerlink" href="#fusion" title="Link to this heading">'
        "&para;</a></h1>",
    )
    latest = Node.history.filter(id=kernels.pk).first()
    assert (latest.history_type, latest.history_change_reason, latest.history_user) == (
        "+",
        "Restored",
        admin_user,
    )


@pytest.mark.django_db
def test_restored_page_history_shows_the_deletion_then_the_restore(
    admin_client, client, admin_user, small_tree
):
    section = node("Section A1")
    section._history_user = admin_user
    section.delete()
    restore(admin_client, "Section A1")
    for path, deleted in [
        ("area-a/section-a1", "Deleted"),
        ("area-a/section-a1/chapter-one", "Deleted with “Section A1”"),
    ]:
        table = soup(client.get(f"/history/{path}/")).find("table", class_="revisions")
        rows = table.tbody.find_all("tr")
        cells = [[" ".join(td.get_text().split()) for td in tr.find_all("td")[4:]] for tr in rows]
        assert cells[:2] == [
            ["admin", "0", "Restored"],
            ["admin", "0", deleted],
        ]


@pytest.mark.django_db
def test_restore_puts_a_node_back_in_its_place_among_siblings(admin_client, small_tree):
    node("Chapter Two").delete()
    restore(admin_client, "Chapter Two")
    assert tree_table() == SMALL_TREE_TABLE
    node("Area A").delete()
    restore(admin_client, "Area A")
    assert tree_table() == SMALL_TREE_TABLE
    node("Chapter Two").delete()
    node("Chapter One").delete()
    restore(admin_client, "Chapter Two")
    restore(admin_client, "Chapter One")
    assert tree_table().splitlines()[1:5] == [
        "  Section A1 [section] area-a/section-a1",
        "    Chapter One [chapter] area-a/section-a1/chapter-one",
        "    Chapter Three [chapter] area-a/section-a1/chapter-three",
        "    Chapter Two [chapter] area-a/section-a1/chapter-two",
    ]


@pytest.mark.django_db
def test_restore_under_a_moved_section_redirects_from_the_old_path(
    admin_client, client, small_tree
):
    node("Chapter One").delete()
    Node.objects.move_node(node("Section A1"), node("Area B"))
    assert restore(admin_client, "Chapter One") == [
        "“Chapter One” was restored at /area-b/section-a1/chapter-one/."
    ]
    assert tree_table().splitlines()[7:11] == [
        "  Section A1 [section] area-b/section-a1",
        "    Chapter One [chapter] area-b/section-a1/chapter-one",
        "    Chapter Two [chapter] area-b/section-a1/chapter-two",
        "    Chapter Three [chapter] area-b/section-a1/chapter-three",
    ]
    response = client.get("/area-a/section-a1/chapter-one/")
    assert (response.status_code, response["Location"]) == (
        301,
        "/area-b/section-a1/chapter-one/",
    )


@pytest.mark.django_db
def test_restore_mends_links_to_the_restored_pages(admin_client, small_tree, run_tasks):
    five = node("Chapter Five")
    five.body = "[[Chapter One]] [two](/area-a/section-a1/chapter-two/)"
    five.save()
    node("Section A1").delete()
    run_tasks()
    assert node("Chapter Five").body_html == (
        '<p><span class="wikilink-broken" title="There is no page “Chapter One”.">Chapter One'
        '</span> <a href="/area-a/section-a1/chapter-two/">two</a></p>'
    )
    restore(admin_client, "Section A1")
    run_tasks()  # links mend after the commit
    assert node("Chapter Five").body_html == (
        '<p><a class="wikilink" href="/area-a/section-a1/chapter-one/">Chapter One</a> '
        '<a href="/area-a/section-a1/chapter-two/">two</a></p>'
    )
    targets = [(link.text, link.target.title) for link in Link.objects.order_by("pk")]
    assert targets == [
        ("Chapter One", "Chapter One"),
        ("/area-a/section-a1/chapter-two/", "Chapter Two"),
    ]


@pytest.mark.django_db
def test_restore_brings_back_redirects_from_the_old_paths(admin_client, client, small_tree):
    one = node("Chapter One")
    one.slug = "first"
    one.save()
    two = node("Chapter Two")
    two.slug = "second"
    two.save()
    node("Section A1").delete()
    assert PathRedirect.objects.count() == 0
    Node.objects.create(title="Taken", parent=node("Section A2"))
    moved = node("Taken")
    moved.slug = "taken-later"
    moved.save()
    PathRedirect.objects.filter(node=moved).update(old_path="area-a/section-a1/chapter-two")
    restore(admin_client, "Section A1")
    redirects = dict(PathRedirect.objects.values_list("old_path", "node__title"))
    assert redirects == {
        "area-a/section-a1/chapter-one": "Chapter One",
        "area-a/section-a1/chapter-two": "Taken",
    }
    response = client.get("/area-a/section-a1/chapter-one/")
    assert (response.status_code, response["Location"]) == (301, "/area-a/section-a1/first/")


@pytest.mark.django_db
def test_restore_is_post_only_and_needs_a_csrf_token(admin_user, small_tree):
    node("Chapter One").delete()
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    assert client.get(restore_url("Chapter One")).status_code == 405
    assert client.post(restore_url("Chapter One")).status_code == 403
    assert not Node.objects.filter(title="Chapter One").exists()
    form = soup(client.get(DELETED)).find(id="deletion-list").find("form")
    token = form.find("input", attrs={"name": "csrfmiddlewaretoken"})["value"]
    response = client.post(form["action"], {"csrfmiddlewaretoken": token})
    assert (response.status_code, response["Location"]) == (302, DELETED)
    assert node("Chapter One").path == "area-a/section-a1/chapter-one"


@pytest.mark.django_db
def test_deleted_pages_and_restore_need_signing_in(client, small_tree):
    node("Chapter One").delete()
    for response in [client.get(DELETED), client.post(restore_url("Chapter One"))]:
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/?next=")
    assert not Node.objects.filter(title="Chapter One").exists()


@pytest.mark.django_db
def test_deleted_pages_and_restore_need_the_add_permission(
    client, django_user_model, editor, small_tree
):
    node("Chapter One").delete()
    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.add(
        Permission.objects.get(codename="change_node"),
        Permission.objects.get(codename="delete_node"),
    )
    client.force_login(viewer)
    assert client.get(DELETED).status_code == 403
    assert client.post(restore_url("Chapter One")).status_code == 403
    assert "Deleted pages" not in client.get(CHANGELIST).content.decode()
    assert not Node.objects.filter(title="Chapter One").exists()
    assert editor.get(DELETED).status_code == 200
    editor.post(restore_url("Chapter One"))
    assert node("Chapter One").path == "area-a/section-a1/chapter-one"


@pytest.mark.django_db
def test_restore_of_a_revision_that_is_no_deletion_is_404(admin_client, small_tree):
    node("Section A1").delete()
    inner = Node.history.get(title="Chapter One", history_type="-")
    created = Node.history.filter(history_type="+").first()
    for revision_id in [inner.history_id, created.history_id, 10**6]:
        url = reverse("admin:chapters_node_restore", args=[revision_id])
        assert admin_client.post(url).status_code == 404
