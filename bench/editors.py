"""Time what editors do at the benchmark's tree size; called by bench/measure.py.

In-process, with Django's test client signed in as a superuser, on the chapter in the middle
of the tree: the admin's change form (its time and its bytes), a request of the parent's
autocomplete as the form's script sends it while the editor types, a Save of the change
form with the body edited, the admin's tree (the change list: time and bytes, reported
only), the site editor's form (time and bytes) and a Save of it with the body edited. Each
Save changes the body, so each is a real revision: the node is rendered, its links
stored, the wiki's version bumped. The site's outline: the whole wiki's (its areas), the
chapter's section's page (time and bytes), that section's branch as the page's script
fetches it, and a keyboard move of the chapter (down, then up: each a real move of the
tree). Times are medians (``bench.timing.median_ms``).
"""

from itertools import count
from urllib.parse import urlencode

from bench.timing import median_ms

__all__ = ["PARENT_QUERY", "measure_editors"]

# What the editor types in the parent's autocomplete: a word of many sections' titles.
PARENT_QUERY = "systems"


def measure_editors(chapter_path):
    """Return the times and sizes of the editors' forms and saves for the chapter at
    ``chapter_path``.

    Returns:
        A dict: ``admin_form_ms``, ``admin_form_bytes``, ``admin_form_options`` (the
        ``<option>`` elements of the change form), ``admin_autocomplete_ms``,
        ``admin_autocomplete_results``, ``admin_save_ms``, ``admin_list_ms``,
        ``admin_list_bytes``, ``editor_form_ms``, ``editor_form_bytes``, ``editor_save_ms``,
        ``outline_ms`` (the whole wiki's), ``outline_section_ms``, ``outline_section_bytes``,
        ``outline_branch_ms``, ``outline_move_ms``.

    Raises:
        RuntimeError: a request did not answer as a working form does (a Save that is
            not a redirect: the form refused it).
    """
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from chapters.models import Node

    user = get_user_model().objects.create_superuser("bench-editor", "bench@example.com", "-")
    client = Client()
    client.force_login(user)
    node = Node.objects.get(path=chapter_path)
    change = reverse("admin:chapters_node_change", args=[node.pk])
    editor = reverse("chapters:edit", args=[node.path])
    edits = count(1)

    def get(url, status=200):
        response = client.get(url)
        if response.status_code != status:
            raise RuntimeError(f"{url} answered {response.status_code}")
        return response

    def post(url, data):
        response = client.post(url, data)
        if response.status_code != 302:
            form = response.context and (response.context.get("adminform") or response.context)
            raise RuntimeError(f"{url} refused the save ({response.status_code}): {form}")

    def latest_revision():
        return Node.history.filter(id=node.pk).values_list("history_id", flat=True).first()

    def admin_form():
        stored = Node.objects.get(pk=node.pk)
        return {
            "base_revision": latest_revision() or "",
            "title": stored.title,
            "slug": stored.slug,
            "kind": stored.kind,
            "status": stored.status,
            "parent": stored.parent_id,
            "body": f"{stored.body}\n\nAn edit in the admin, number {next(edits)}.",
            "summary": "The benchmark's edit",
        }

    def editor_form():
        stored = Node.objects.get(pk=node.pk)
        return {
            "base_revision": latest_revision() or "",
            "title": stored.title,
            "status": stored.status,
            "parent": stored.parent_id,
            "body": f"{stored.body}\n\nAn edit on the site, number {next(edits)}.",
            "summary": "The benchmark's edit",
        }

    def saving(url, form):
        """Return a Save of ``url`` and the function filling its form before it is timed."""
        posted = {}
        return (lambda: post(url, posted)), (lambda: posted.update(form()))

    autocomplete = (
        reverse("admin:chapters_node_parents")
        + "?"
        + urlencode(
            {
                "term": PARENT_QUERY,
                "app_label": "chapters",
                "model_name": "node",
                "field_name": "parent",
                "node": node.pk,
            }
        )
    )
    admin_save, before_admin_save = saving(change, admin_form)
    editor_save, before_editor_save = saving(editor, editor_form)
    for save, before in ((admin_save, before_admin_save), (editor_save, before_editor_save)):
        before()  # the first revisions, and templates and URLs loaded once
        save()
    section = reverse("chapters:outline-section", args=[node.parent.path])
    there_and_back = ["down", "up"] if node.get_next_sibling() else ["up", "down"]
    moved = []

    def move():
        action = there_and_back[len(moved) % 2]
        response = client.post(
            section, {"node": node.pk, "action": action}, HTTP_ACCEPT="application/json"
        )
        if not response.json()["moved"]:
            raise RuntimeError(f"the outline refused a move: {response.json()['message']}")
        moved.append(action)

    form = get(change).content
    found = get(autocomplete).json()["results"]
    changelist = get(reverse("admin:chapters_node_changelist")).content
    editor_form = get(editor).content
    result = {
        "admin_form_ms": median_ms(lambda: get(change)),
        "admin_form_bytes": len(form),
        "admin_form_options": form.count(b"<option"),
        "admin_autocomplete_ms": median_ms(lambda: get(autocomplete)),
        "admin_autocomplete_results": len(found),
        "admin_save_ms": median_ms(admin_save, before=before_admin_save),
        "admin_list_ms": median_ms(lambda: get(reverse("admin:chapters_node_changelist"))),
        "admin_list_bytes": len(changelist),
        "editor_form_ms": median_ms(lambda: get(editor)),
        "editor_form_bytes": len(editor_form),
        "editor_save_ms": median_ms(editor_save, before=before_editor_save),
        "outline_ms": median_ms(lambda: get(reverse("chapters:outline"))),
        "outline_section_ms": median_ms(lambda: get(section)),
        "outline_section_bytes": len(get(section).content),
        "outline_branch_ms": median_ms(lambda: get(f"{section}?part=children")),
        "outline_move_ms": median_ms(move),
    }
    if len(moved) % 2:
        move()  # the chapter back in its place, for what is measured after
    return result
