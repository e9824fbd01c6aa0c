"""The admin's parent field: an autocomplete of sections by their path of titles
(chapters.parents), which sends the current parent only and keeps the tree's rules."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from chapters.models import Node
from tests.helpers import build_tree, edit, form_values, node, role_user, soup, tree_table

PARENTS = reverse("admin:chapters_node_parents")


def change_url(title):
    """Return the admin change form's URL of the node titled ``title``."""
    return reverse("admin:chapters_node_change", args=[node(title).pk])


def ask(client, term="", edited=None, **extra):
    """Ask the parent's autocomplete as select2 does; return the response.

    Args:
        term: what the editor typed.
        edited: the title of the node the form edits, or None for the add form.
        extra: more of the query (``page``, or ``node`` as given).
    """
    query = {"term": term, "app_label": "chapters", "model_name": "node", "field_name": "parent"}
    if edited is not None:
        query["node"] = node(edited).pk
    return client.get(PARENTS, {**query, **extra})


def labels(response):
    """Return the autocomplete's results as (title, label) pairs, checking each id."""
    found = response.json()["results"]
    titles = dict(Node.objects.values_list("pk", "title"))
    return [(titles[int(result["id"])], result["text"]) for result in found]


@pytest.mark.django_db
def test_admin_change_form_renders_the_current_parent_only(admin_client, small_tree):
    page = soup(admin_client.get(change_url("Chapter One")))
    select = page.find("select", attrs={"name": "parent"})
    options = [(o["value"], o.get_text(), o.has_attr("selected")) for o in select("option")]
    assert options == [
        ("", "", False),
        (str(node("Section A1").pk), "Area A / Section A1", True),
    ]
    assert select["class"] == ["admin-autocomplete"]
    assert select["data-ajax--url"] == f"{PARENTS}?node={node('Chapter One').pk}"
    assert (select["data-app-label"], select["data-model-name"], select["data-field-name"]) == (
        "chapters",
        "node",
        "parent",
    )
    assert len(page("option")) == 2 + len(Node.Kind) + len(Node.Status)


@pytest.mark.django_db
def test_admin_add_form_asks_for_parents_without_a_node(admin_client, small_tree):
    page = soup(admin_client.get(reverse("admin:chapters_node_add")))
    select = page.find("select", attrs={"name": "parent"})
    assert [(o["value"], o.get_text()) for o in select("option")] == [("", "")]
    assert select["data-ajax--url"] == PARENTS


@pytest.mark.django_db
def test_admin_form_of_an_area_renders_an_empty_parent(admin_client, small_tree):
    page = soup(admin_client.get(change_url("Area B")))
    select = page.find("select", attrs={"name": "parent"})
    assert [(o["value"], o.get_text()) for o in select("option")] == [("", "")]


@pytest.mark.django_db
def test_parent_autocomplete_offers_sections_labelled_by_their_path(admin_client, small_tree):
    response = ask(admin_client, edited="Chapter One")
    assert response.status_code == 200
    assert labels(response) == [
        ("Area A", "Area A"),
        ("Section A1", "Area A / Section A1"),
        ("Section A2", "Area A / Section A2"),
        ("Area B", "Area B"),
        ("Section B1", "Area B / Section B1"),
    ]
    assert response.json()["pagination"] == {"more": False}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("edited", "expected"),
    [
        ("Section A1", ["Area A", "Section A2", "Area B", "Section B1"]),
        ("Area A", ["Area B", "Section B1"]),
        ("Section B1", ["Area A", "Section A1", "Section A2", "Area B"]),
        (None, ["Area A", "Section A1", "Section A2", "Area B", "Section B1"]),
    ],
)
def test_parent_autocomplete_leaves_out_the_node_s_own_subtree(
    admin_client, small_tree, edited, expected
):
    assert [title for title, _ in labels(ask(admin_client, edited=edited))] == expected


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("section", ["Area A / Section A1", "Area A / Section A2", "Area B / Section B1"]),
        ("A2 SECTION", ["Area A / Section A2"]),
        ("  b ", ["Area B", "Area B / Section B1"]),
        ("chapter", []),
        ("Area A / Section", []),
    ],
)
def test_parent_autocomplete_finds_sections_by_every_word_of_their_title(
    admin_client, small_tree, term, expected
):
    assert [label for _, label in labels(ask(admin_client, term, edited="Chapter Two"))] == (
        expected
    )


@pytest.mark.django_db
@pytest.mark.parametrize("given", ["", "abc", "-1", "99999999999999999999999", "0"])
def test_parent_autocomplete_ignores_a_node_that_is_no_key(admin_client, small_tree, given):
    response = ask(admin_client, node=given)
    assert response.status_code == 200
    assert len(response.json()["results"]) == 5


@pytest.mark.django_db
def test_parent_autocomplete_pages_by_twenty_in_tree_order(admin_client, db):
    build_tree("Area\n" + "".join(f"  Part {number:02}\n" for number in range(1, 26)))
    first = ask(admin_client, "part").json()
    second = ask(admin_client, "part", page=2).json()
    assert [r["text"] for r in first["results"]] == [f"Area / Part {n:02}" for n in range(1, 21)]
    assert first["pagination"] == {"more": True}
    assert [r["text"] for r in second["results"]] == [f"Area / Part {n:02}" for n in range(21, 26)]
    assert second["pagination"] == {"more": False}


@pytest.mark.django_db
def test_parent_autocomplete_costs_the_same_queries_for_any_number_of_results(
    admin_client, db, django_assert_num_queries
):
    build_tree(
        "Area\n" + "".join(f"  Part {number:02}\n    Deep {number}\n" for number in range(30))
    )
    query = {"app_label": "chapters", "model_name": "node", "field_name": "parent"}
    query["node"] = node("Deep 3").pk
    admin_client.get(PARENTS, query)  # the session and the user's first read
    # The session, the user, the edited node, the count, the page, the page's ancestors.
    with django_assert_num_queries(6):
        many = admin_client.get(PARENTS, {**query, "term": "part"}).json()["results"]
    with django_assert_num_queries(6):
        one = admin_client.get(PARENTS, {**query, "term": "part 07"}).json()["results"]
    assert (len(many), one) == (20, [{"id": str(node("Part 07").pk), "text": "Area / Part 07"}])


@pytest.mark.django_db
def test_parent_autocomplete_needs_the_view_permission(client, small_tree):
    assert ask(client).status_code == 302  # to sign in
    user = role_user("nobody", "Editor")
    user.groups.clear()
    client.force_login(user)
    assert ask(client).status_code == 403
    user.user_permissions.add(Permission.objects.get(codename="view_node"))
    client.force_login(user)
    assert labels(ask(client, "b")) == [("Area B", "Area B"), ("Section B1", "Area B / Section B1")]


@pytest.mark.django_db
def test_editor_role_uses_the_parent_autocomplete(client, small_tree):
    client.force_login(role_user("ed", "Editor"))
    assert labels(ask(client, "a2", edited="Chapter Four")) == [
        ("Section A2", "Area A / Section A2")
    ]


@pytest.mark.django_db
def test_admin_moves_a_chapter_to_a_parent_the_autocomplete_offers(admin_client, small_tree):
    data = form_values(soup(admin_client.get(change_url("Chapter Two"))), "node_form")
    offered = ask(admin_client, "b1", edited="Chapter Two").json()["results"]
    data["parent"] = offered[0]["id"]

    response = admin_client.post(change_url("Chapter Two"), data)

    assert response.status_code == 302
    assert node("Chapter Two").path == "area-b/section-b1/chapter-two"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("edited", "parent", "expected"),
    [
        (
            "Chapter Five",
            "Chapter One",
            "“Chapter One” is a chapter; chapters cannot have children.",
        ),
        (
            "Area A",
            "Section A2",
            "Select a valid choice. That choice is not one of the available choices.",
        ),
    ],
)
def test_admin_refuses_a_parent_the_autocomplete_never_offers(
    admin_client, small_tree, edited, parent, expected
):
    assert parent not in [title for title, _ in labels(ask(admin_client, edited=edited))]
    data = form_values(soup(admin_client.get(change_url(edited))), "node_form")
    data["parent"] = node(parent).pk
    before = tree_table()

    response = admin_client.post(change_url(edited), data)

    assert response.context["adminform"].form.errors == {"parent": [expected]}
    assert tree_table() == before


@pytest.mark.django_db
def test_admin_change_form_reads_no_more_of_a_larger_tree(
    admin_client, db, django_assert_num_queries
):
    build_tree("Area\n" + "".join(f"  Part {number}\n    Deep {number}\n" for number in range(150)))
    url = change_url("Deep 75")
    admin_client.get(url)  # the session and the user's first read
    # The session, the user, the node, its latest revision, the chosen parent, its ancestors.
    with django_assert_num_queries(6):
        page = admin_client.get(url).content.decode()
    assert page.count("<option") == 2 + len(Node.Kind) + len(Node.Status)
    assert page.count("Part 7") == 1  # "Area / Part 75", the parent


@pytest.mark.django_db
def test_admin_parent_conflict_offers_both_sections_by_their_paths(admin_client, small_tree):
    url = change_url("Chapter Two")
    data = form_values(soup(admin_client.get(url)), "node_form")
    edit("Chapter Two", parent=node("Section A2"))
    data["parent"] = node("Section B1").pk

    page = soup(admin_client.post(url, data))

    choices = page.find_all("input", attrs={"name": "parent"})
    assert [(c["value"], c.parent.get_text(strip=True)) for c in choices] == [
        (str(node("Section B1").pk), "Yours: Area B / Section B1"),
        (str(node("Section A2").pk), "Theirs: Area A / Section A2"),
    ]
