"""The reader's pages: contents, nodes, their history, recent changes, search.

Short function views.
"""

import hashlib
import json

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import condition, require_http_methods, require_safe

from . import contents, history, landing, navigation, readiness, search
from .caching import cached_page, version
from .caching.validators import last_modified
from .edit.workflow import page_tools, revert, revert_plan
from .forms import CONTROL, AreaForm, CompareForm, SearchForm
from .markdown import MarkdownError, render_markdown
from .markdown.printing import for_print
from .metrics import SEARCH_SECONDS
from .models import LinkResolver, MediaResolver, Node, PathRedirect
from .permissions import can_revert
from .prerequisites import chapter_prerequisites
from .search.areas import search_areas

REVISIONS_PER_PAGE = 50

# The whole contents' resource (contents_list): its URL names its version, so it never changes.
CONTENTS_CACHE_CONTROL = "public, max-age=31536000, immutable"

RESULTS_PER_PAGE = 20


@cached_page
def home(request):
    """Render the landing page: the wiki's name and description, its areas, where to start,
    the chapters updated last (``chapters.landing``)."""
    return render(request, "chapters/home.html", {"landing": landing.landing()})


@cached_page
def node_detail(request, path):
    """Render the section or chapter at ``path``; 301 from a path it had before; else 404.

    Editors (``permissions.can_edit``) also get a link to the page's editor; signed-in users
    see the changes waiting for review and a Watch button (``edit.workflow.page_tools``). A
    chapter shows its prerequisites (``chapters.prerequisites``).
    """
    node = Node.objects.filter(path=path).first()
    if node is None:
        return moved_from(path, "chapters:node")
    around, toc_html = contents.page_navigation(node, version(request))
    context = {
        "node": node,
        "ancestors": around.ancestors,
        "toc_html": toc_html,
        "contents_url": around.toc and reverse("chapters:contents", args=[version(request)]),
        "linked_from": navigation.linked_from(node),
        "words": node.words if node.is_chapter else around.chapter_words,
    }
    if request.user.is_authenticated:
        context["tools"] = page_tools(request.user, node)
    if node.is_chapter:
        context["before"], context["path"] = chapter_prerequisites(node)
        context["previous"], context["next"] = around.previous, around.next
        context["came_from"], context["continue_to"] = around.came_from, around.continue_to
        return render(request, "chapters/chapter.html", context)
    context["children"], context["readiness"] = around.children, around.readiness
    return render(request, "chapters/section.html", context)


@require_http_methods(["GET", "HEAD"])
def contents_list(request, pages_version):
    """Answer ``/contents/<version>.html``: the whole table of contents as one ``<ol>``.

    The list pages load when the tree is too large for each to hold it
    (``contents.page_navigation``). Its URL names the version of the pages, so its answer
    never changes: browsers and shared caches keep it a year without asking again
    (``immutable``, RFC 8246). A URL of another version (an old page's) redirects to the
    current one, uncached. Search engines are asked not to index it: each node has its page.
    """
    current = version(request)
    if pages_version != current:
        response = redirect("chapters:contents", pages_version=current)
        patch_cache_control(response, no_cache=True)
        return response
    response = HttpResponse(contents.whole_list(current), content_type="text/html; charset=utf-8")
    response["Cache-Control"] = CONTENTS_CACHE_CONTROL
    response["X-Robots-Tag"] = "noindex"
    return response


@cached_page
def print_section(request, path=None):
    """Render a section's or an area's chapters on one page to print, in reading order, after
    one title page and one table of contents (mdBook's print view); with no ``path``, the
    whole curriculum's (``/print/``), every area a part. 301 from a path it had before; 404
    for a chapter or no node."""
    node = None
    if path is not None:
        node = Node.objects.filter(path=path).first()
        if node is None:
            return moved_from(path, "chapters:print")
        if node.is_chapter:
            raise Http404("Print pages are for sections and areas; print the chapter's own page.")
    entries = navigation.printed(node)
    for entry, _depth in entries:
        entry.print_html = for_print(entry.body_html, prefix=f"n{entry.pk}-")
    source = node.get_absolute_url() if node is not None else reverse("chapters:home")
    return render(
        request,
        "chapters/print.html",
        {
            "node": node,
            "title": node.title if node is not None else "The Curriculum",
            "ancestors": navigation.breadcrumb(node) if node is not None else [],
            "entries": entries,
            "has_mermaid": any(entry.has_mermaid for entry, _depth in entries),
            "source": source,
            "source_url": request.build_absolute_uri(source),
        },
    )


def moved_from(path, route):
    """Answer 301 with the URL ``route`` of the node that was once at ``path``; else 404.

    Args:
        path: a stored path no node has now.
        route: the name of a URL taking the node's ``path``.

    Raises:
        Http404: no node was ever at ``path`` (or it was deleted).
    """
    moved = get_object_or_404(PathRedirect.objects.select_related("node"), old_path=path)
    return redirect(route, path=moved.node.path, permanent=True)


def node_history(request, path):
    """List the revisions of the node at ``path``, newest first, with size changes; 301 from
    a path it had before; else 404."""
    node = Node.objects.filter(path=path).first()
    if node is None:
        return moved_from(path, "chapters:history")
    revisions = history.all_revisions().filter(id=node.pk)
    page = Paginator(revisions, REVISIONS_PER_PAGE).get_page(request.GET.get("page"))
    older = revisions[page.end_index() : page.end_index() + 1].first()
    return render(
        request,
        "chapters/history.html",
        {
            "node": node,
            "ancestors": navigation.breadcrumb(node),
            "page": page,
            "rows": history.with_size_changes(list(page), older),
        },
    )


@cached_page
def revision_detail(request, revision_id):
    """Render an old revision of a node, clearly marked as old, through the sanitizer.

    Its body is rendered again (its wiki links resolve against today's tree), so readers'
    pages are kept per version of the wiki (``cached_page``), as node pages are.
    """
    revision = get_object_or_404(history.all_revisions(), history_id=revision_id)
    node = Node.objects.filter(pk=revision.id).first()
    latest = history.all_revisions().filter(id=revision.id).first()
    return render(
        request,
        "chapters/revision.html",
        {
            "revision": revision,
            "node": node,
            "is_latest": latest.history_id == revision.history_id,
            "body_html": render_revision_body(revision, node),
        },
    )


def render_revision_body(revision, node):
    """Render an old revision's body as the page would be, wiki links resolved as on save."""
    resolver, media = LinkResolver(node or Node(title=revision.title)), MediaResolver()
    resolver.prepare(revision.body)
    media.prepare(revision.body)
    try:
        return render_markdown(revision.body, resolver, media)
    except MarkdownError as error:  # a body saved before the current limits
        return format_html("<p>This revision's text cannot be shown: {}</p>", error)


def revision_diff(request):
    """Compare two revisions of one node (``?old=<id>&new=<id>``); 400 or 404 on bad input."""
    form = CompareForm(request.GET)
    if not form.is_valid():
        return render(request, "chapters/bad_request.html", {"form": form}, status=400)
    revisions = history.all_revisions()
    new = get_object_or_404(revisions, history_id=form.cleaned_data["new"])
    if form.cleaned_data["old"] is None:
        old = new.prev_record
        if old is None:
            raise Http404(f"Revision {new.history_id} is the first of its page.")
    else:
        old = get_object_or_404(revisions, history_id=form.cleaned_data["old"], id=new.id)
    return render(
        request,
        "chapters/diff.html",
        {
            "old": old,
            "new": new,
            "node": Node.objects.filter(pk=old.id).first(),
            **history.compare(old, new),
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def revision_revert(request, revision_id):
    """Ask to confirm a revert, showing what it will really change for this user (GET,
    ``edit.workflow.revert_plan``); revert (POST), by the workflow (``permissions.can_revert``,
    ``edit.workflow.revert``), then go back to ``next``, saying what was done or refused.
    Anonymous users are sent to sign in first, as on the editor's pages."""
    if not can_revert(request.user):
        raise PermissionDenied("Only editors who may change pages can revert them.")
    revision = get_object_or_404(history.all_revisions(), history_id=revision_id)
    node = Node.objects.filter(pk=revision.id).first()
    if node is None:
        raise Http404("That page has been deleted.")
    target = request.POST.get("next", request.GET.get("next", ""))
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = node.get_absolute_url()
    if request.method != "POST":
        current = history.all_revisions().filter(id=node.pk).first()
        plan = revert_plan(node, revision, request.user)
        context = {"revision": revision, "node": node, "next": target, **plan}
        return render(
            request, "chapters/revert.html", {**context, **history.compare(current, plan["after"])}
        )
    try:
        notes, change = revert(node, revision, request.user, request.build_absolute_uri("/"))
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
        return redirect(target)
    if history.NOTHING_TO_REVERT in notes:
        messages.info(request, history.NOTHING_TO_REVERT)
    elif change is not None:
        messages.success(request, "Your revert waits for a reviewer; readers see it once approved.")
    else:
        messages.success(request, f"“{node.title}” was reverted to revision {revision_id}.")
    for note in notes:
        if note != history.NOTHING_TO_REVERT:
            messages.warning(request, note)
    return redirect(target)


def recent_changes(request):
    """List the latest revisions across the wiki, paginated, optionally for one area."""
    form = AreaForm(request.GET)
    if not form.is_valid():
        return render(request, "chapters/bad_request.html", {"form": form}, status=400)
    revisions = history.all_revisions(area=form.cleaned_data["area"])
    page = Paginator(revisions, REVISIONS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "chapters/recent.html",
        {
            "form": form,
            "page": page,
            "query": f"{query.urlencode()}&" if query else "",
            "rows": navigation.with_breadcrumbs(list(page)),
        },
    )


def search_results(request):
    """Render the search form and, for a query, a page of results; answer 400 for bad filters.

    An empty query shows the form only. A query that finds nothing shows the results of its
    correction (``search.suggest``), when there is one. A page number that is not a number
    or is past the end shows the first or the last page (``Paginator.get_page``). The areas
    of the form and of the page without results are kept per version (``search.areas``), and
    so is what a search finds (:func:`_kept_search_page`).
    """
    areas = search_areas(version(request))
    form = SearchForm(request.GET, areas=areas.choices)
    context = {"form": form}
    if not form.is_valid():
        context["area_options"] = areas.options_for("")
        return render(request, "chapters/search.html", context, status=400)
    query, area, status = (form.cleaned_data[name] for name in ("q", "area", "status"))
    context.update(
        search_query=query,
        area_options=areas.options_for(area),
        cut_to=search.MAX_QUERY_LENGTH if form.query_was_cut() else 0,
    )
    if query:
        context.update(_kept_search_page(request, query, area, status, request.GET.get("page")))
        context["area_links"] = areas.links
        context["filtered"] = bool(area or status)
        context["params"] = QueryDict(mutable=True)
        context["params"].update({key: value for key, value in form.cleaned_data.items() if value})
    return render(request, "chapters/search.html", context)


def _kept_search_page(request, query, area, status, number):
    """Return :func:`_search_page`'s results, kept in Django's cache under the version of the
    pages, as the top results are (:func:`search_top_results`): a write to the wiki is a new
    version, so a repeated search runs no query until then.

    They are kept per query (its spaces collapsed, as the top results' are), filters and page
    number (as ``Paginator.get_page`` reads it: 1 when it is no number), and for every
    viewer alike: search finds the same pages whoever asks (any reader may search drafts and
    pages in review), and what differs for a signed-in viewer (the header, their messages) is
    rendered for each request, never kept. The version is read before the search, so results
    kept under a version are never older than it.

    Returns:
        The context of :func:`_search_page`, its ``page`` made again from the number of
        results and the page's number (the paginator of a search is no value to keep).
    """
    query = " ".join(query.split())
    try:
        number = int(number)
    except (TypeError, ValueError):
        number = 1
    filters = json.dumps([query, area, status, number])
    key = f"search-page:{hashlib.sha256(filters.encode()).hexdigest()}"
    found = cache.get(key, version=version(request))
    if found is None:
        with SEARCH_SECONDS.labels("page").time():
            found = _search_page(query, area, status, number)
        cache.set(key, found, version=version(request))
    page = Paginator(range(found["count"]), RESULTS_PER_PAGE).page(found["number"])
    return {**found, "page": page}


def _search_page(query, area, status, number):
    """Return the search page's results: ``count``, the page's ``number``, ``results`` and,
    if made, ``corrected``.

    Each result holds its node, its title marked, its ancestors and its ``quote``: the
    heading it opens at and its snippet (``search.Quoter``).

    The query's results, or its correction's (``search.answer``); when they have some of
    the query's words only, ``some_words``, and the correction to offer ("Did you mean"),
    if any, as ``suggested`` and its link's ``suggested_query``. The queries run under
    ``search.indexed()``. ``number`` is the page asked for, as given.
    """
    found = {}
    with search.indexed():
        parsed, nodes, corrected = search.answer(query, area=area, status=status)
        page = Paginator(nodes, RESULTS_PER_PAGE).get_page(number)
        if corrected:
            found["corrected"] = corrected
        elif not nodes.every:
            # Pages with some of the words only: a correction may find them all (that of a
            # query with few words found was tried already).
            found["some_words"] = True
            suggested = "" if nodes.few else search.suggest(query, area=area, status=status)
            if suggested:
                filters = {"area": area, "status": status}
                found["suggested"] = suggested
                found["suggested_query"] = urlencode(
                    {"q": suggested, **{key: value for key, value in filters.items() if value}}
                )
        ancestors = search.breadcrumbs(page)
        quote = search.Quoter(parsed)
        found["count"], found["number"] = page.paginator.count, page.number
        found["results"] = [
            {
                "node": node,
                "title": search.highlight(node.title, parsed),
                "ancestors": ancestors[node.pk],
                "quote": quote(node),
            }
            for node in page
        ]
    return found


def _typed(request):
    """Return the query of a request for top results, without control characters and cut,
    as the search page reads it (``forms.QueryField``)."""
    return " ".join(CONTROL.sub("", request.GET.get("q", "")).split())[: search.MAX_QUERY_LENGTH]


def _top_results_etag(request):
    """Return the ETag of the top results for a request: the version of the pages and the
    query (the same for every viewer: results do not depend on who asks)."""
    digest = hashlib.sha256(_typed(request).encode()).hexdigest()[:16]
    return f'"{version(request)}-{digest}"'


@require_safe
@condition(etag_func=_top_results_etag, last_modified_func=last_modified)
def search_top_results(request):
    """Answer the top results for ``q`` as JSON, for the header's search box as one types.

    Kept in Django's cache under the version of the pages, as pages are, and answered 304
    while the ETag matches.
    """
    query = _typed(request)
    key = f"search-top:{hashlib.sha256(query.encode()).hexdigest()}"
    data = cache.get(key, version=version(request))
    if data is None:
        with SEARCH_SECONDS.labels("top").time():
            data = search.top_results(query)
        cache.set(key, data, version=version(request))
    response = JsonResponse({"query": query, **data}, json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "no-cache"
    return response


@staff_member_required
def dashboard(request):
    """Show, per area and section, how far the curriculum is from ready (staff only)."""
    form = AreaForm(request.GET)
    if not form.is_valid():
        return render(request, "chapters/bad_request.html", {"form": form}, status=400)
    area = form.cleaned_data["area"]
    return render(
        request,
        "chapters/dashboard.html",
        {
            "form": form,
            "sections": readiness.section_rows(area),
            "scaffolds": readiness.scaffold_chapters(area),
            "stalest": readiness.stalest_chapters(area),
            "broken_links": readiness.broken_links(area),
        },
    )


@staff_member_required
def broken_links(request):
    """List every link that resolves to no node, with where it is (staff only)."""
    return render(request, "chapters/broken_links.html", {"broken_links": readiness.broken_links()})
