"""Saves render bodies before they take the tree's lock (chapters.models.rendering): under
the lock only wiki links are resolved, against the tree as it is then, and no lexer runs,
whichever door the write comes through; the HTML is what rendering at once gives."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from chapters import history, recovery
from chapters.curriculum_file import export_curriculum, import_curriculum
from chapters.edit import workflow
from chapters.markdown import render_markdown_with_headings
from chapters.models import (
    LinkResolver,
    MediaResolver,
    Node,
    PendingChange,
    current_write,
    rendering,
    tree_write,
)
from tests.helpers import edit, form_values, node, role_user, soup

CODE = "Intro.\n\n```python\nx = 1\n```\n"
HIGHLIGHTED = (
    '<div class="highlight"><span class="filename">Python</span><pre><span></span><code>'
    '<span class="n">x</span> '
    '<span class="o">=</span> <span class="mi">1</span>\n</code></pre></div>'
)
PLAIN = '<pre><code class="language-python">x = 1\n</code></pre>'


@pytest.fixture
def renders(monkeypatch):
    """Record each rendering of a body: ``(highlighted, under the tree's lock)``."""
    calls = []
    real = rendering.render_markdown_with_headings

    def recording(text, *args, highlight=True, **kwargs):
        calls.append((highlight, current_write() is not None))
        return real(text, *args, highlight=highlight, **kwargs)

    monkeypatch.setattr(rendering, "render_markdown_with_headings", recording)
    return calls


def rendered_at_once(page):
    """Return ``page``'s body rendered with the resolvers at once, as before this module."""
    resolver, media = LinkResolver(page), MediaResolver()
    resolver.prepare(page.body)
    media.prepare(page.body)
    return render_markdown_with_headings(page.body, resolver, media)[0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        "[[Chapter Two]] and [[Section A1/Chapter Two|again]], [[Chapter Two]] twice.",
        "# [[Chapter Two]] in a heading\n\n| a |\n|---|\n| [[Nowhere]] |\n",
        '[[Chapter Two|**bold** & <b>tags</b> “quoted”]] and [[Fundamentals & <x> "q"]]',
        "[[Chapter Two]] [link](/area-a/section-a1/chapter-two/) ![i](image:none.png)\n\n" + CODE,
    ],
)
def test_a_body_rendered_before_the_lock_is_the_body_rendered_at_once(small_tree, body):
    page = node("Chapter One")
    page.body = body
    page.save()
    page.refresh_from_db()
    assert page.body_html == rendered_at_once(page)


@pytest.mark.django_db
def test_the_links_are_resolved_under_the_lock_against_the_tree_as_it_is_then(
    small_tree, monkeypatch
):
    # Another editor moves the target between the rendering and the lock.
    page, body = node("Chapter One"), "See [[Chapter Four]]."
    real = rendering.render_markdown_with_headings

    def render_then_move(*args, **kwargs):
        result = real(*args, **kwargs)
        Node.objects.move_node(node("Chapter Four"), node("Section A1"), "last-child")
        return result

    monkeypatch.setattr(rendering, "render_markdown_with_headings", render_then_move)
    page.body = body
    page.save()
    assert node("Chapter One").body_html == (
        '<p>See <a class="wikilink" href="/area-a/section-a1/chapter-four/">Chapter Four</a>.</p>'
    )


@pytest.mark.django_db
def test_a_placeholder_written_in_a_body_is_left_as_written(small_tree):
    written = '<a class="wikilink" href="/.wikilink/0123456789abcdef/0/">x</a> [[Chapter Two]]'
    edit("Chapter One", body=written)
    html = node("Chapter One").body_html
    assert html == (
        '<p><a class="wikilink" href="/.wikilink/0123456789abcdef/0/">x</a> '
        '<a class="wikilink" href="/area-a/section-a1/chapter-two/">Chapter Two</a></p>'
    )


@pytest.mark.django_db
def test_code_is_highlighted_as_before(small_tree):
    edit("Chapter One", body=CODE)
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"


@pytest.mark.django_db
def test_a_save_from_code_renders_before_its_lock(small_tree, renders):
    edit("Chapter One", body=CODE)
    assert renders == [(True, False)]


@pytest.mark.django_db
def test_a_move_renders_nothing(small_tree, renders):
    Node.objects.move_node(node("Chapter One"), node("Section A2"), "last-child")
    assert renders == []


@pytest.mark.django_db
def test_a_body_not_rendered_before_the_lock_is_shown_plain_then_highlighted_by_a_task(
    small_tree, renders, run_tasks
):
    with tree_write():
        edit("Chapter One", body=CODE)
    assert renders == [(False, True)]
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{PLAIN}"
    run_tasks()
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert renders[1:] == [(True, False)]


@pytest.mark.django_db
def test_the_site_editor_renders_the_posted_body_before_its_lock(client, small_tree, renders):
    client.force_login(role_user("ed", "Editor"))
    url = reverse("chapters:edit", args=["area-a/section-a1/chapter-one"])
    form = form_values(soup(client.get(url)), "editor")
    renders.clear()
    client.post(url, {**form, "body": CODE.replace("\n", "\r\n")})
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert renders == [(True, False)]


@pytest.mark.django_db
def test_the_site_editor_s_preview_is_rendered_outside_the_lock(client, small_tree, renders):
    client.force_login(role_user("ed", "Editor"))
    url = reverse("chapters:edit", args=["area-a/section-a1/chapter-one"])
    form = form_values(soup(client.get(url)), "editor")
    renders.clear()
    response = client.post(url, {**form, "body": CODE, "preview": "1"})
    assert response.status_code == 200
    assert renders == [(True, False)]


@pytest.mark.django_db
def test_the_admin_form_renders_the_posted_body_before_its_lock(admin_client, small_tree, renders):
    page = node("Chapter One")
    url = reverse("admin:chapters_node_change", args=[page.pk])
    form = form_values(soup(admin_client.get(url)), "node_form")
    renders.clear()
    admin_client.post(url, {**form, "body": CODE + "\r\n"})
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert renders == [(True, False)]


@pytest.mark.django_db
def test_an_approval_renders_the_change_before_its_lock(small_tree, renders):
    page = node("Chapter One")
    author, reviewer = role_user("ed", "Editor"), role_user("rev", "Reviewer")
    latest = Node.history.filter(id=page.pk).first().history_id
    change = PendingChange.objects.create(
        node=page, author=author, base_revision=latest, title=page.title, status=page.status,
        parent=page.parent, body=CODE, summary="Code",
    )  # fmt: skip
    renders.clear()
    assert workflow.approve(change, reviewer, "http://testserver/") is None
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert renders == [(True, False)]


@pytest.mark.django_db
def test_a_revert_renders_the_revision_before_its_lock(small_tree, renders):
    edit("Chapter One", body=CODE)
    old = Node.history.filter(id=node("Chapter One").pk).first()
    edit("Chapter One", body="Gone.")
    renders.clear()
    history.revert(node("Chapter One"), old)
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert renders == [(True, False)]


@pytest.mark.django_db
def test_a_restore_renders_the_bodies_before_its_lock(small_tree, renders):
    edit("Chapter One", body=CODE)
    node("Section A1").delete()
    deletion = Node.history.filter(history_type="-", title="Section A1").get()
    renders.clear()
    recovery.restore(deletion)
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert renders and all(not locked for _, locked in renders)


@pytest.mark.django_db
def test_an_import_renders_the_bodies_before_its_lock(small_tree, renders):
    data = export_curriculum().replace('"body": ""', f'"body": {CODE!r}'.replace("'", '"'), 1)
    renders.clear()
    import_curriculum(data.encode(), "curriculum.json")
    assert renders and all(not locked for _, locked in renders)


@pytest.mark.django_db
def test_loaddata_runs_no_lexer_under_its_lock_and_leaves_code_highlighted(
    small_tree, renders, tmp_path
):
    edit("Chapter One", body=CODE)
    fixture = tmp_path / "tree.json"
    call_command("dumpdata", "chapters.node", output=fixture, verbosity=0)
    Node.objects.filter(title="Chapter One").update(body_html="")
    renders.clear()
    call_command("loaddata", fixture, verbosity=0)
    assert node("Chapter One").body_html == f"<p>Intro.</p>\n{HIGHLIGHTED}"
    assert (True, True) not in renders
