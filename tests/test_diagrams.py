"""Diagrams in Markdown: ```dot drawn by Graphviz within bounds and allowlisted, ```mermaid
kept as source for the browser (chapters/markdown/mdx/diagrams.py, graphviz.py, svg.py)."""

import pytest

from chapters.markdown import (
    check_markdown,
    html_to_text,
    render_markdown,
    render_markdown_with_headings,
)
from chapters.markdown import graphviz as graphviz_module
from chapters.markdown.graphviz import DiagramBudget, DiagramError, draw_dot
from chapters.markdown.svg import clean_svg
from tests.helpers import edit, soup

TWO_NODES = (
    '<div class="diagram diagram-dot"><svg role="img" aria-label="Steps" width="65pt" '
    'height="139pt" viewBox="0.00 0.00 65.00 139.00" fill="currentColor"><g class="graph" '
    'transform="scale(1 1) rotate(0) translate(4 135)"><text text-anchor="middle" x="28.5" '
    'y="-7.8" font-family="Times,serif" font-size="14.00">Steps</text><g class="node">'
    '<title>a</title><ellipse fill="none" stroke="currentColor" cx="28.5" cy="-113" rx="27" '
    'ry="18"></ellipse><text text-anchor="middle" x="28.5" y="-109.3" '
    'font-family="Times,serif" font-size="14.00">a</text></g><g class="node"><title>b</title>'
    '<ellipse fill="none" stroke="currentColor" cx="28.5" cy="-41" rx="27" ry="18"></ellipse>'
    '<text text-anchor="middle" x="28.5" y="-37.3" font-family="Times,serif" '
    'font-size="14.00">b</text></g><g class="edge"><title>a-&gt;b</title><path fill="none" '
    'stroke="currentColor" d="M28.5,-94.7C28.5,-86.98 28.5,-77.71 28.5,-69.11"></path>'
    '<polygon fill="currentColor" stroke="currentColor" points="32,-69.1 28.5,-59.1 25,-69.1 '
    '32,-69.1"></polygon></g></g></svg></div>'
)


# A graph whose layout takes seconds: 40 nodes, each linked to every other.
DENSE = "".join(f"a{i}->a{j};" for i in range(40) for j in range(40) if i != j)


def failed(message, source):
    """Return the HTML of a ```dot fence not drawn, as a body holds it."""
    return (
        f'<div class="diagram-failed"><p class="diagram-message">Diagram not drawn: {message}'
        f'</p><pre><code class="language-dot">{source}</code></pre></div>'
    )


def test_dot_fence_is_drawn_as_allowlisted_svg_in_the_pages_colours():
    html = render_markdown('```dot\ndigraph { label="Steps"; a -> b }\n```\n')
    assert html == TWO_NODES


def test_dot_graph_without_a_label_is_named_diagram():
    html = render_markdown("```dot\ndigraph { a }\n```\n")
    assert 'role="img" aria-label="Diagram"' in html
    assert html.count('<g class="node">') == 1


def test_mermaid_fence_is_its_escaped_source_for_the_browser():
    html = render_markdown('```mermaid\ngraph TD\n  A["<b>x</b>"] --> B\n```\n')
    assert html == (
        '<div class="diagram diagram-mermaid"><pre class="mermaid">graph TD\n'
        "  A[&quot;&lt;b&gt;x&lt;/b&gt;&quot;] --&gt; B\n</pre></div>"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            'digraph { a [image="/etc/passwd"] }\n',
            "diagrams may not read files (“image” is not allowed).",
        ),
        (
            'digraph { a [shapefile = "/etc/hostname", shape=epsf] }\n',
            "diagrams may not read files (“shapefile” is not allowed).",
        ),
        (
            'digraph { a [label=<<table><tr><td><IMG SRC="/etc/x.png"/></td></tr></table>>] }\n',
            "diagrams may not read files (“&lt;IMG&gt;” is not allowed).",
        ),
        ('digraph { graph [imagepath="/etc"] }\n', None),
        ("digraph {\n", "Graphviz could not read it: syntax error in line 2."),
    ],
)
def test_dot_fence_not_drawn_shows_why_and_its_source_and_the_rest_renders(source, message):
    html = render_markdown(f"Before.\n\n```dot\n{source}```\n\nAfter.\n")
    message = message or "diagrams may not read files (“imagepath” is not allowed)."
    escaped = source.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = escaped.replace('"', "&quot;")
    assert html == f"<p>Before.</p>\n{failed(message, escaped)}\n<p>After.</p>"


def test_dot_reads_no_file_named_in_a_way_the_check_cannot_see(tmp_path):
    secret = tmp_path / "secret.svg"
    secret.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>SECRET</text></svg>')
    html = draw_dot(f'digraph {{ a ["ima" + "ge"="{secret}"] }}', DiagramBudget())
    assert "SECRET" not in html and "image" not in html
    assert html.count('<g class="node">') == 1


def test_dot_source_too_long_is_not_drawn():
    source = "digraph { " + "a -> b; " * 2_600 + "}"
    with pytest.raises(DiagramError) as error:
        draw_dot(source, DiagramBudget())
    assert str(error.value) == "its source has 20,811 characters; at most 20,000 are allowed."


def test_dot_layout_past_its_time_is_stopped():
    with pytest.raises(DiagramError) as error:
        draw_dot(f"digraph {{ {DENSE} }}", DiagramBudget(seconds=0.2))
    assert str(error.value) == "the layout took longer than 0.2 s."


def test_dot_layout_past_its_processor_time_is_killed(monkeypatch):
    monkeypatch.setattr(graphviz_module, "DOT_CPU_SECONDS", 1)
    # Wall time enough for a second of processor time on a busy machine.
    monkeypatch.setattr(graphviz_module, "DOT_SECONDS_MAX", 30)
    with pytest.raises(DiagramError) as error:
        draw_dot(f"digraph {{ {DENSE} }}", DiagramBudget(seconds=30))
    assert str(error.value) == "the layout took more than 1 s of processor time."


def test_dot_past_its_memory_is_stopped(monkeypatch):
    monkeypatch.setattr(graphviz_module, "DOT_MEMORY_BYTES", 25_000_000)
    with pytest.raises(DiagramError) as error:
        draw_dot(f"digraph {{ {DENSE} }}", DiagramBudget())
    assert str(error.value) == (
        "Graphviz stopped without drawing it (out of memory, or it crashed)."
    )


def test_dot_drawing_past_its_size_is_stopped(monkeypatch):
    monkeypatch.setattr(graphviz_module, "SVG_MAX_BYTES", 5_000)
    nodes = "".join(f"n{i};" for i in range(100))
    with pytest.raises(DiagramError) as error:
        draw_dot(f"digraph {{ {nodes} }}", DiagramBudget())
    assert str(error.value) == "the drawing has more than 5,000 bytes; draw fewer nodes."


def test_a_bodys_diagrams_share_one_budget():
    budget = DiagramBudget(diagrams=2)
    draw_dot("digraph { a }", budget)
    draw_dot("digraph { b }", budget)
    with pytest.raises(DiagramError) as error:
        draw_dot("digraph { c }", budget)
    assert str(error.value) == "the page has more than 2 diagrams."
    with pytest.raises(DiagramError) as error:
        draw_dot("digraph { d }", DiagramBudget(seconds=0))
    assert str(error.value) == "the page's diagrams took more than 0 s in all."


def test_dot_missing_shows_the_source(monkeypatch):
    monkeypatch.setattr(graphviz_module.shutil, "which", lambda name: None)
    html = render_markdown("```dot\ndigraph { a }\n```\n")
    assert html == failed("Graphviz is not installed on the server.", "digraph { a }\n")


def test_checking_a_text_runs_no_graphviz(monkeypatch):
    def refuse(*args):
        raise AssertionError("dot was run")

    monkeypatch.setattr("chapters.markdown.mdx.diagrams.draw_dot", refuse)
    check_markdown("```dot\ndigraph { a }\n```\n")
    html, _headings = render_markdown_with_headings("```dot\ndigraph { a }\n```\n", highlight=False)
    assert html == '<pre><code class="language-dot">digraph { a }\n</code></pre>'


def test_svg_allowlist_drops_scripts_links_handlers_images_styles_and_ids():
    hostile = (
        b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">'
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        b'width="10pt" height="10pt" viewBox="0 0 10 10" onload="alert(1)">'
        b'<g id="graph0" class="graph"><title>%3</title><polygon fill="white" points="0,0 1,1"/>'
        b"<script>alert(2)</script><style>g{fill:url(http://x/)}</style>"
        b'<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'
        b'<g id="a_node1"><a xlink:href="javascript:alert(3)" xlink:title="t">'
        b'<image xlink:href="file:///etc/passwd" width="1" height="1"/>'
        b'<text x="1" y="2" fill="url(#p)" style="fill:url(http://x/)" onclick="x()">A</text>'
        b'</a></g><path d="M0,0 L1,1" stroke="#000000" transform="translate(1 1)"/>'
        b'<g class="node skip-link"><polygon fill="url(#l_0)" points="0,0 1,1"/></g>'
        b'<g class="visually-hidden"><polygon fill="#ff0000" points="0,0 1,1"/></g>'
        b"</g></svg>"
    )
    assert clean_svg(hostile) == (
        '<svg role="img" aria-label="Diagram" width="10pt" height="10pt" viewBox="0 0 10 10" '
        'fill="currentColor"><g class="graph"><g><text x="1" y="2">A</text></g>'
        '<path d="M0,0 L1,1" stroke="currentColor"></path><g class="node">'
        '<polygon fill="none" points="0,0 1,1"></polygon></g><g>'
        '<polygon fill="#ff0000" points="0,0 1,1"></polygon></g></g></svg>'
    )


def test_svg_declaring_an_entity_is_refused():
    with pytest.raises(ValueError, match="The SVG declares an entity."):
        clean_svg(b'<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg"/>')


def test_search_reads_a_diagrams_labels_not_its_tooltips():
    html = render_markdown(
        'Intro.\n\n```dot\ndigraph { label="Steps"; Load -> Fuse }\n```\n\n'
        "```mermaid\ngraph TD\n  A --> B\n```\n"
    )
    assert html_to_text(html) == "Intro. Steps Load Fuse graph TD A --> B"


def test_mermaid_frame_has_its_own_policy_and_may_be_framed_by_the_wiki_only(client):
    response = client.get("/diagrams/mermaid.html")
    assert response.status_code == 200
    directives = sorted(response["Content-Security-Policy"].split("; "))
    assert directives == [
        "base-uri 'none'",
        "default-src 'none'",
        "font-src 'self'",
        "form-action 'none'",
        "frame-ancestors 'self'",
        "img-src 'self' data:",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
    ]
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert response["Cache-Control"] == "public, max-age=3600"
    assert [script["src"] for script in soup(response).select("script")] == [
        "/static/vendor/mermaid/mermaid.min.js",
        "/static/js/mermaid-frame.js",
    ]
    assert soup(response).body.get_text(strip=True) == ""


@pytest.mark.django_db
def test_only_a_chapter_with_mermaid_loads_the_diagram_script_under_the_same_policy(
    client, small_tree
):
    edit("Chapter Four", body="```mermaid\ngraph TD\n  A --> B\n```\n")
    edit("Chapter Five", body="```dot\ndigraph { a }\n```\n")
    with_mermaid = client.get("/area-a/section-a2/chapter-four/")
    without = client.get("/area-b/section-b1/chapter-five/")
    assert [
        (script["src"], script.get("data-frame"))
        for script in soup(with_mermaid).select("main script")
    ] == [("/static/js/diagrams.js", "/diagrams/mermaid.html")]
    assert soup(without).select("main script") == []
    assert with_mermaid["Content-Security-Policy"] == without["Content-Security-Policy"]
    assert "'unsafe-inline'" not in with_mermaid["Content-Security-Policy"]
