"""Who may edit, publish, review, revert, preview and watch: one rule (chapters.permissions),
in views, templates and the admin; the roles migration 0013_roles makes."""

import pytest
from django.contrib.auth.models import AnonymousUser, Group, Permission
from django.urls import reverse

from chapters.models import Node
from chapters.permissions import (
    can_add,
    can_delete,
    can_edit,
    can_preview,
    can_publish,
    can_revert,
    can_review,
    can_watch,
    statuses_for,
)
from tests.helpers import node, role_user, soup

PREVIEW = reverse("admin:chapters_node_preview")
HISTORY = "/history/area-a/section-a1/chapter-one/"


def user_with(django_user_model, name, *codenames, is_staff=True, is_active=True):
    """Create a user with the chapters permissions named by ``codenames``."""
    user = django_user_model.objects.create_user(name, is_staff=is_staff, is_active=is_active)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return django_user_model.objects.get(pk=user.pk)  # without a stale permission cache


def changed_chapter_one():
    """Save a new body for Chapter One; return its first revision, now an old one."""
    chapter = node("Chapter One")
    chapter.body = "Changed."
    chapter.save()
    return Node.history.filter(id=chapter.pk).order_by("history_id").first()


@pytest.mark.django_db
def test_permissions_one_rule_for_edit_revert_and_preview(django_user_model, admin_user):
    users = {
        "anonymous": AnonymousUser(),
        "non-staff editor": user_with(django_user_model, "a", "change_node", is_staff=False),
        "staff": user_with(django_user_model, "b"),
        "view-only staff": user_with(django_user_model, "c", "view_node"),
        "staff who may add": user_with(django_user_model, "d", "add_node"),
        "editor": user_with(django_user_model, "e", "change_node"),
        "inactive editor": user_with(django_user_model, "f", "change_node", is_active=False),
        "superuser": admin_user,
    }
    rows = {
        name: (can_edit(u), can_revert(u), can_preview(u), can_preview(u, adding=True))
        for name, u in users.items()
    }
    assert rows == {
        "anonymous": (False, False, False, False),
        "non-staff editor": (False, False, False, False),
        "staff": (False, False, False, False),
        "view-only staff": (False, False, False, False),
        "staff who may add": (False, False, False, True),
        "editor": (True, True, True, True),
        "inactive editor": (False, False, False, False),
        "superuser": (True, True, True, True),
    }


@pytest.mark.django_db
def test_permissions_non_staff_user_with_change_permission_cannot_revert(
    client, django_user_model, small_tree
):
    old = changed_chapter_one()
    client.force_login(user_with(django_user_model, "writer", "change_node", is_staff=False))
    assert client.post(reverse("chapters:revert", args=[old.history_id])).status_code == 403
    assert node("Chapter One").body == "Changed."
    assert soup(client.get(HISTORY)).find("button", string="Revert to this") is None
    revision = soup(client.get(reverse("chapters:revision", args=[old.history_id])))
    assert revision.find("button", string="Revert to this revision") is None


@pytest.mark.django_db
def test_permissions_view_only_staff_may_not_preview(client, django_user_model, small_tree):
    client.force_login(user_with(django_user_model, "viewer", "view_node"))
    response = client.post(PREVIEW, {"body": "x", "node": str(node("Chapter One").pk)})
    assert (response.status_code, response.json()) == (
        403,
        {"error": "You may not preview chapters."},
    )
    assert client.post(PREVIEW, {"body": "x"}).status_code == 403
    change_form = soup(
        client.get(reverse("admin:chapters_node_change", args=[node("Chapter One").pk]))
    )
    assert change_form.find(id="body-preview") is None


@pytest.mark.django_db
def test_permissions_staff_who_may_add_preview_on_the_add_form_only(
    client, django_user_model, small_tree
):
    client.force_login(user_with(django_user_model, "adder", "add_node"))
    assert client.post(PREVIEW, {"body": "x"}).json() == {"html": "<p>x</p>", "broken": []}
    chapter = str(node("Chapter One").pk)
    assert client.post(PREVIEW, {"body": "x", "node": chapter}).status_code == 403
    add_form = soup(client.get(reverse("admin:chapters_node_add")))
    assert add_form.find(id="body-preview") is not None


@pytest.mark.django_db
def test_permissions_editor_sees_edit_and_revert_and_may_revert(
    client, django_user_model, small_tree
):
    old = changed_chapter_one()
    client.force_login(user_with(django_user_model, "editor", "change_node", "view_node"))
    page = soup(client.get(node("Chapter One").get_absolute_url()))
    assert page.find("a", class_="edit-link")["href"] == reverse(
        "chapters:edit", args=[node("Chapter One").path]
    )
    buttons = soup(client.get(HISTORY)).find_all("button", string="Revert to this")
    assert [button["form"] for button in buttons] == [f"revert-{old.history_id}"]
    revision = soup(client.get(reverse("chapters:revision", args=[old.history_id])))
    assert revision.find("button", string="Revert to this revision") is not None
    admin_history = soup(
        client.get(reverse("admin:chapters_node_history", args=[node("Chapter One").pk]))
    )
    assert [form["action"] for form in admin_history.find(id="revision-list").find_all("form")] == [
        reverse("chapters:revert", args=[old.history_id])
    ]
    response = client.post(reverse("chapters:revert", args=[old.history_id]))
    assert response.status_code == 302
    assert node("Chapter One").body == "This chapter is currently a scaffold."


@pytest.mark.django_db
def test_permissions_view_only_staff_sees_the_admin_history_without_revert_buttons(
    client, django_user_model, small_tree
):
    changed_chapter_one()
    client.force_login(user_with(django_user_model, "viewer", "view_node"))
    response = client.get(reverse("admin:chapters_node_history", args=[node("Chapter One").pk]))
    rows = soup(response).find(id="revision-list").tbody.find_all("tr")
    assert (response.status_code, len(rows), [row.form for row in rows]) == (200, 2, [None, None])


@pytest.mark.django_db
def test_permissions_roles_table_of_the_workflow(django_user_model, admin_user):
    users = {
        "anonymous": AnonymousUser(),
        "signed-in reader": django_user_model.objects.create_user("reader"),
        "editor": role_user("editor", "Editor"),
        "editor, not staff": role_user("outsider", "Editor", is_staff=False),
        "reviewer": role_user("reviewer", "Reviewer"),
        "admin": role_user("boss", "Admin"),
        "superuser": admin_user,
    }
    rows = {
        name: (
            can_edit(u),
            can_add(u),
            can_publish(u),
            can_review(u),
            can_revert(u),
            can_watch(u),
            sorted(statuses_for(u, "draft")),
            sorted(statuses_for(u, "published")),
        )
        for name, u in users.items()
    }
    assert rows == {
        "anonymous": (False,) * 6 + (["draft", "review"], ["published"]),
        "signed-in reader": (False,) * 5 + (True, ["draft", "review"], ["published"]),
        "editor": (True, True, False, False, True, True, ["draft", "review"], ["published"]),
        "editor, not staff": (False,) * 5 + (True, ["draft", "review"], ["published"]),
        "reviewer": (True,) * 6 + (["draft", "published", "review"],) * 2,
        "admin": (True,) * 6 + (["draft", "published", "review"],) * 2,
        "superuser": (True,) * 6 + (["draft", "published", "review"],) * 2,
    }


@pytest.mark.django_db
def test_permissions_roles_groups_hold_the_migration_s_permissions():
    role_user("someone", "Editor")
    held = {
        group.name: sorted(group.permissions.values_list("codename", flat=True))
        for group in Group.objects.filter(name__in=["Editor", "Reviewer"])
    }
    assert held == {
        "Editor": ["add_node", "change_node", "view_node"],
        "Reviewer": ["add_node", "change_node", "publish_node", "view_node"],
    }
    admin = set(Group.objects.get(name="Admin").permissions.values_list("codename", flat=True))
    assert {"delete_node", "publish_node", "add_node", "change_pendingchange"} <= admin


@pytest.mark.django_db
def test_permissions_only_admins_may_delete(django_user_model, admin_user):
    users = {
        "anonymous": AnonymousUser(),
        "signed-in reader": django_user_model.objects.create_user("reader"),
        "editor": role_user("editor", "Editor"),
        "reviewer": role_user("reviewer", "Reviewer"),
        "admin": role_user("boss", "Admin"),
        "admin, not staff": role_user("gone", "Admin", is_staff=False),
        "superuser": admin_user,
    }
    assert {name: can_delete(u) for name, u in users.items()} == {
        "anonymous": False,
        "signed-in reader": False,
        "editor": False,
        "reviewer": False,
        "admin": True,
        "admin, not staff": False,
        "superuser": True,
    }
