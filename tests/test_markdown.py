"""render_markdown: legitimate Markdown survives exactly, hostile input comes out inert.

html_to_text: the text a reader reads in that HTML, for search.
"""

import pytest

from chapters.markdown import MarkdownError, html_to_text, render_markdown


def test_render_markdown_empty_body_is_empty():
    assert render_markdown("") == ""


def test_render_markdown_keeps_table_with_alignment():
    assert render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 |") == (
        "<table>\n<thead>\n<tr>\n"
        '<th align="left">a</th>\n<th align="right">b</th>\n'
        "</tr>\n</thead>\n<tbody>\n<tr>\n"
        '<td align="left">1</td>\n<td align="right">2</td>\n'
        "</tr>\n</tbody>\n</table>"
    )


def test_render_markdown_highlights_fenced_code_with_pygments():
    assert render_markdown("```python\nreturn 1\n```") == (
        '<div class="highlight"><pre><span></span><code>'
        '<span class="k">return</span> <span class="mi">1</span>\n'
        "</code></pre></div>"
    )


def test_render_markdown_gives_headings_ids_and_keeps_links_to_them():
    assert render_markdown("## Kernel Fusion\n\nSee [fusion](#kernel-fusion).") == (
        '<h2 id="kernel-fusion">Kernel Fusion'
        '<a class="headerlink" href="#kernel-fusion" title="Link to this heading">&para;</a></h2>\n'
        '<p>See <a href="#kernel-fusion">fusion</a>.</p>'
    )


def test_render_markdown_gives_non_latin_headings_distinct_ids():
    html = render_markdown("## Линейная алгебра\n\n## Линейная алгебра")
    assert 'id="линейная-алгебра"' in html
    assert 'id="линейная-алгебра_1"' in html


def test_render_markdown_keeps_footnotes():
    assert render_markdown("Fused[^1].\n\n[^1]: Fewer kernel launches.") == (
        '<p>Fused<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup>.</p>\n'
        '<div class="footnote">\n<hr>\n<ol>\n<li id="fn:1">\n'
        "<p>Fewer kernel launches.&#160;"
        '<a class="footnote-backref" href="#fnref:1" '
        'title="Jump back to footnote 1 in the text">&#8617;</a></p>\n'
        "</li>\n</ol>\n</div>"
    )


def test_render_markdown_keeps_images_and_links():
    assert render_markdown('![A GPU](/static/gpu.png "GPU") [docs](https://example.org/a?b=1)') == (
        '<p><img alt="A GPU" src="/static/gpu.png" title="GPU"> '
        '<a href="https://example.org/a?b=1">docs</a></p>'
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("<script>alert(1)</script>", "alert(1)"),
        ("<iframe src='https://evil.example'></iframe>", ""),
        ("<style>body { display: none }</style>", "body { display: none }"),
        ("<object data='x.swf'></object>", ""),
        ('<p onclick="steal()">hi</p>', "<p>hi</p>"),
        ("<img src=x onerror=alert(1)>", '<p><img src="x"></p>'),
        ("[x](javascript:alert(1))", "<p><a>x</a></p>"),
        ("[x](JaVaScRiPt:alert(1))", "<p><a>x</a></p>"),
        ("[x]( javascript:alert(1))", "<p><a>x</a></p>"),
        ('<a href="jav&#x09;ascript:alert(1)">x</a>', "<p><a>x</a></p>"),
        ('<a href="&#106;avascript:alert(1)">x</a>', "<p><a>x</a></p>"),
        ('<a href=" JAVASCRIPT:alert(1)">x</a>', "<p><a>x</a></p>"),
        ("![x](data:image/svg+xml;base64,PHN2Zz4=)", '<p><img alt="x"></p>'),
        ('<a href="data:text/html,<script>alert(1)</script>">x</a>', "<p><a>x</a></p>"),
        ("<!-- <script>alert(1)</script> -->", ""),
        ('<div style="position:fixed">x</div>', "<div>x</div>"),
    ],
)
def test_render_markdown_makes_hostile_input_inert(source, expected):
    assert render_markdown(source) == expected


def test_render_markdown_refuses_blocks_nested_too_deeply():
    with pytest.raises(MarkdownError, match="nests lists, quotes or other blocks too deeply"):
        render_markdown("- " * 1000 + "x")


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("", ""),
        ("**Fused** kernels &amp; *fewer* launches", "Fused kernels & fewer launches"),
        ("## Kernel Fusion\n\nFuse *un*fused kernels.", "Kernel Fusion Fuse unfused kernels."),
        ("Fused[^1].\n\n[^1]: Fewer kernel launches.", "Fused. Fewer kernel launches."),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "a b 1 2"),
        ("- one\n- two\n\n```python\nreturn 1\n```", "one two return 1"),
        ("Use `<script>alert(1)</script>` here.", "Use <script>alert(1)</script> here."),
        ("<div>x</div><div>y</div>", "x y"),
    ],
)
def test_html_to_text_keeps_the_words_a_reader_reads(source, text):
    assert html_to_text(render_markdown(source)) == text
