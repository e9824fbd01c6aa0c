"""Property-based tests: random sequences of edits keep the tree, its pages and its URLs right.

Hypothesis's stateful testing draws sequences of adds, renames, moves, reorders, deletes and
reverts, through the model API and through the admin's forms, from the small tree; after
every step the stored tree must be the one ``tests.tree_model.ExpectedTree`` predicts, and
after the sequence the tree must be valid and every page, breadcrumb, pager and old URL
right (see ``check_database`` and ``check_tree_and_pages``). How many sequences and steps:
the Hypothesis profile (tests/conftest.py; docs/testing.md).
"""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule, run_state_machine_as_test
from mptt.exceptions import InvalidMove

from chapters.history import revert
from chapters.models import Node
from chapters.models.rules import title_character_problem
from tests.tree_model import POSITIONS, TreeMachine

# Titles that collide (so slugs need "-2"), in other scripts, of punctuation only, reserved
# at the top level, and any other text without control characters.
TITLES = st.one_of(
    st.sampled_from(
        [
            "Intro",
            "intro",
            "Intro!",
            "Area A",
            "Section A1",
            "Chapter One",
            "Линейная алгебра",
            "线性代数",
            "हिन्दी",
            "Café ∑",
            "?!",
            "Admin",
            "search",
        ]
    ),
    # Any title save() takes: not blank, nothing a title may not hold.
    st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=30).filter(
        lambda title: title.strip() and title_character_problem(title) is None
    ),
)

# Bodies with wiki links to titles of the small tree and of added nodes.
BODIES = st.sampled_from(
    [
        "",
        "Plain text.",
        "See [[Intro]].",
        "See [[Chapter One]] and [[Section A1]].",
        "Back to [[Area A/Section A1/Chapter Two|two]].",
    ]
)


def fresh(pk):
    """Return node ``pk`` read from the database (or None), as django-mptt needs for moves."""
    return Node.objects.filter(pk=pk).first()


class ModelEditing(TreeMachine):
    """Edits through the model API: ``full_clean()`` and ``save()``, ``move_node()``,
    ``delete()`` and ``chapters.history.revert()``."""

    def pick(self, data, label, pks=None):
        """Draw the primary key of a node (of ``pks``, by default any node)."""
        return data.draw(st.sampled_from(sorted(self.tree.nodes if pks is None else pks)), label)

    @rule(data=st.data(), title=TITLES, kind=st.sampled_from(Node.Kind.values), body=BODIES)
    def add(self, data, title, kind, body):
        parent = data.draw(st.sampled_from([None, *sorted(self.tree.nodes)]), "parent")
        slug = self.tree.new_slug(title, kind, parent)
        problem = self.tree.placement_problem(None, parent, slug, kind)
        node = Node(title=title, kind=kind, body=body, parent=fresh(parent))
        if problem:
            with pytest.raises(ValidationError):
                node.full_clean()
            return
        node.full_clean()
        node.save()
        assert node.slug == slug
        self.tree.add(node.pk, title, kind, parent)

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data(), title=TITLES, new_slug=st.booleans())
    def rename(self, data, title, new_slug):
        pk = self.pick(data, "node")
        node = fresh(pk)
        expected = self.tree.nodes[pk]
        slug = self.tree.new_slug(title, expected.kind, expected.parent, pk)
        node.title = title
        if new_slug:
            node.slug = ""
            if self.tree.placement_problem(pk, expected.parent, slug):
                with pytest.raises(ValidationError):
                    node.full_clean()
                return
        node.full_clean()
        node.save()
        assert fresh(pk).slug == (slug if new_slug else self.tree.slug[pk])
        expected.title = title

    def try_move(self, pk, target, position):
        """Move node ``pk`` to ``position`` of ``target``; expect InvalidMove when the model
        says the move breaks a rule, and then no change."""
        if target == pk and position in ("left", "right"):
            problem = "sibling of itself"
        else:
            parent = self.tree.new_parent(target, position)
            problem = self.tree.placement_problem(pk, parent, self.tree.slug[pk])
        if problem:
            with pytest.raises(InvalidMove):
                Node.objects.move_node(fresh(pk), fresh(target), position)
            return
        Node.objects.move_node(fresh(pk), fresh(target), position)
        self.tree.move(pk, target, position)

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data(), position=st.sampled_from(POSITIONS))
    def move(self, data, position):
        pk = self.pick(data, "node")
        target = data.draw(st.sampled_from([None, *sorted(self.tree.nodes)]), "target")
        self.try_move(pk, target, position)

    @precondition(lambda self: any(len(c) > 1 for c in self.tree.children.values()))
    @rule(data=st.data(), position=st.sampled_from(["left", "right"]))
    def reorder(self, data, position):
        parents = [parent for parent, c in self.tree.children.items() if len(c) > 1]
        siblings = self.tree.children[data.draw(st.sampled_from(sorted(parents, key=str)))]
        pk = self.pick(data, "node", siblings)
        self.try_move(pk, self.pick(data, "target", set(siblings) - {pk}), position)

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data())
    def delete(self, data):
        pk = self.pick(data, "node")
        fresh(pk).delete()
        self.tree.remove(pk)

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data())
    def revert(self, data):
        pk = self.pick(data, "node")
        revision = data.draw(st.sampled_from(list(Node.history.filter(id=pk))), "revision")
        before = fresh(pk)
        notes = revert(fresh(pk), revision)
        after = fresh(pk)
        assert (after.title, after.status, after.body) == (
            revision.title,
            revision.status,
            revision.body,
        )
        restored = (after.slug, after.kind, after.parent_id)
        assert after.slug in {revision.slug, before.slug}
        assert after.kind in {revision.kind, before.kind}
        assert after.parent_id in {revision.parent_id, before.parent_id}
        if not notes:
            assert restored == (revision.slug, revision.kind, revision.parent_id)
        expected = self.tree.nodes[pk]
        expected.title, expected.kind = after.title, after.kind
        if after.parent_id != before.parent_id:
            self.tree.move(pk, after.parent_id, "last-child")


class AdminEditing(TreeMachine):
    """Edits through the admin, signed in as a superuser: the add and change forms, the
    delete confirmation and drag-and-drop."""

    def pick(self, data, label):
        """Draw the primary key of a node."""
        return data.draw(st.sampled_from(sorted(self.tree.nodes)), label)

    def post_form(self, url, pk, title, slug, kind, parent):
        """Post the add or change form; return the response."""
        latest = Node.history.filter(id=pk).values_list("history_id", flat=True).first()
        data = {
            "title": title,
            "slug": slug,
            "kind": kind,
            "status": "draft",
            "parent": parent or "",
            "body": "",
            "summary": "",
            "base_revision": latest or "",
        }
        return self.client.post(url, data)

    @rule(data=st.data(), title=TITLES, kind=st.sampled_from(Node.Kind.values))
    def add(self, data, title, kind):
        parent = data.draw(st.sampled_from([None, *sorted(self.tree.nodes)]), "parent")
        title = title.strip()
        slug = self.tree.new_slug(title, kind, parent)
        problem = self.tree.placement_problem(None, parent, slug, kind)
        before = set(self.tree.nodes)
        response = self.post_form(reverse("admin:chapters_node_add"), None, title, "", kind, parent)
        if problem:
            assert response.status_code == 200
            assert response.context["adminform"].form.errors
            return
        assert response.status_code == 302
        (pk,) = set(Node.objects.values_list("pk", flat=True)) - before
        assert fresh(pk).slug == slug
        self.tree.add(pk, title, kind, parent)

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data(), title=TITLES, new_slug=st.booleans())
    def change(self, data, title, new_slug):
        pk = self.pick(data, "node")
        parent = data.draw(st.sampled_from([None, *sorted(self.tree.nodes)]), "parent")
        title = title.strip()
        expected = self.tree.nodes[pk]
        slug = self.tree.new_slug(title, expected.kind, parent, pk) if new_slug else None
        problem = self.tree.placement_problem(pk, parent, slug or self.tree.slug[pk])
        url = reverse("admin:chapters_node_change", args=[pk])
        posted_slug = "" if new_slug else self.tree.slug[pk]
        response = self.post_form(url, pk, title, posted_slug, expected.kind, parent)
        if problem:
            assert response.status_code == 200
            assert response.context["adminform"].form.errors
            return
        assert response.status_code == 302
        assert fresh(pk).slug == (slug or self.tree.slug[pk])
        expected.title = title
        if parent != expected.parent:
            self.tree.move(pk, parent, "last-child")

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data())
    def delete(self, data):
        pk = self.pick(data, "node")
        url = reverse("admin:chapters_node_delete", args=[pk])
        assert self.client.post(url, {"post": "yes"}).status_code == 302
        self.tree.remove(pk)

    @precondition(lambda self: self.tree.nodes)
    @rule(data=st.data(), position=st.sampled_from(["last-child", "left", "right"]))
    def drag(self, data, position):
        pk, target = self.pick(data, "node"), self.pick(data, "target")
        if target == pk and position != "last-child":
            problem = "sibling of itself"
        else:
            parent = self.tree.new_parent(target, position)
            problem = self.tree.placement_problem(pk, parent, self.tree.slug[pk])
        response = self.client.post(
            reverse("admin:chapters_node_changelist"),
            {"cmd": "move_node", "cut_item": pk, "pasted_on": target, "position": position},
        )
        assert response.content == (b"FAIL, invalid move." if problem else b"OK, moved.")
        if not problem:
            self.tree.move(pk, target, position)


@pytest.mark.django_db
def test_edits_through_the_model_keep_the_tree_pages_and_urls_right(small_tree):
    run_state_machine_as_test(lambda: ModelEditing(Client()))


@pytest.mark.django_db
def test_edits_through_the_admin_keep_the_tree_pages_and_urls_right(small_tree, admin_user):
    client = Client()
    client.force_login(admin_user)
    # Each admin step is a request or two, so fewer sequences.
    fewer = settings(max_examples=max(1, settings().max_examples // 2))
    run_state_machine_as_test(lambda: AdminEditing(client), settings=fewer)
