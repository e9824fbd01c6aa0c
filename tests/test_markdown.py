"""render_markdown: legitimate Markdown survives exactly, hostile input comes out inert.

Also math (chapters/markdown/mdx/math.py), callouts, task and definition lists, lists nested
by two spaces (chapters/markdown/mdx/nested_lists.py), and the headings
render_markdown_with_headings lists.
html_to_text: the text a reader reads in that HTML, for search.
"""

import pytest

from chapters.markdown import (
    MarkdownError,
    html_to_text,
    render_markdown,
    render_markdown_with_headings,
)
from chapters.markdown.mdx.nested_lists import reindent_nested_lists

X_SQUARED = (
    '<math alttext="x^2" display="inline"><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math>'
)


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
        '<div class="highlight"><span class="filename">Python</span><pre><span></span><code>'
        '<span class="k">return</span> <span class="mi">1</span>\n'
        "</code></pre></div>"
    )


@pytest.mark.parametrize(
    ("fence", "label"),
    [("```py", "Python"), ("```c", "C"), ("```no-such-language", "no-such-language")],
)
def test_render_markdown_labels_code_with_its_language(fence, label):
    html = render_markdown(f"{fence}\nx\n```")
    assert html.startswith(f'<div class="highlight"><span class="filename">{label}</span><pre>')
    assert html_to_text(html) == "x"  # the label is not text to search


@pytest.mark.parametrize(
    "source",
    [
        '```html\n<script>alert(1)</script><img src=x onerror="a()">\n```',
        '```"><script>alert(1)</script>\nx\n```',
        "    </code></pre><script>alert(1)</script>",
        "```no-such-language\n</div></pre><script>alert(1)</script>\n```",
    ],
)
def test_code_blocks_kept_apart_from_the_sanitizer_cannot_write_markup(source):
    # Code blocks' HTML is Pygments' and codehilite's, put back after bleach has run.
    html = render_markdown(source)
    assert ("<script" in html, "<img" in html, "alert(1)" in html_to_text(html)) == (
        False, False, True,
    )  # fmt: skip


def test_a_placeholder_of_a_code_block_written_in_a_body_stays_as_written():
    html = render_markdown("<pre>wikicode-0123456789abcdef-0</pre>\n\n```\nx\n```")
    assert html == (
        "<pre>wikicode-0123456789abcdef-0</pre>\n\n"
        '<div class="highlight"><pre><span></span><code>x\n</code></pre></div>'
    )


def test_render_markdown_leaves_code_without_a_language_unlabelled():
    for source in ["```\nx\n```", "    x", "```text\nx\n```"]:
        assert render_markdown(source).startswith('<div class="highlight"><pre>'), source


def test_render_markdown_gives_headings_ids_and_keeps_links_to_them():
    assert render_markdown("## Kernel Fusion\n\nSee [fusion](#kernel-fusion).") == (
        '<h2 id="kernel-fusion">Kernel Fusion'
        '<a class="headerlink" href="#kernel-fusion" title="Link to this heading">&para;</a></h2>\n'
        '<p>See <a href="#kernel-fusion">fusion</a>.</p>'
    )


def test_render_markdown_gives_headings_with_the_same_text_distinct_ids():
    assert render_markdown("## Fusion\n\n## Fusion") == (
        '<h2 id="fusion">Fusion'
        '<a class="headerlink" href="#fusion" title="Link to this heading">&para;</a></h2>\n'
        '<h2 id="fusion_1">Fusion'
        '<a class="headerlink" href="#fusion_1" title="Link to this heading">&para;</a></h2>'
    )


def test_render_markdown_gives_non_latin_headings_distinct_ids():
    assert render_markdown(
        "## Линейная алгебра\n\n## Линейная алгебра\n\n### 线性代数\n\n### 线性代数"
    ) == (
        '<h2 id="линейная-алгебра">Линейная алгебра'
        '<a class="headerlink" href="#линейная-алгебра" title="Link to this heading">&para;</a>'
        "</h2>\n"
        '<h2 id="линейная-алгебра_1">Линейная алгебра'
        '<a class="headerlink" href="#линейная-алгебра_1" title="Link to this heading">&para;</a>'
        "</h2>\n"
        '<h3 id="线性代数">线性代数'
        '<a class="headerlink" href="#线性代数" title="Link to this heading">&para;</a></h3>\n'
        '<h3 id="线性代数_1">线性代数'
        '<a class="headerlink" href="#线性代数_1" title="Link to this heading">&para;</a></h3>'
    )


def test_render_markdown_gives_headings_without_letters_distinct_ids():
    html, headings = render_markdown_with_headings("## ?!\n\n## …")
    assert [heading["id"] for heading in headings] == ["_1", "_2"]
    assert 'id="_1"' in html
    assert 'id="_2"' in html


def test_render_markdown_with_headings_lists_headings_in_document_order():
    html, headings = render_markdown_with_headings(
        "# Title\n\n## Fusion\n\n### Линейная алгебра\n\n## Fusion\n\n"
        "## A & <b>B</b> `code` $x^2$\n\ntext"
    )
    assert headings == [
        {"level": 1, "id": "title", "title": "Title"},
        {"level": 2, "id": "fusion", "title": "Fusion"},
        {"level": 3, "id": "линейная-алгебра", "title": "Линейная алгебра"},
        {"level": 2, "id": "fusion_1", "title": "Fusion"},
        {"level": 2, "id": "a-b-code-x2", "title": "A & B code x2"},
    ]
    assert html.endswith(
        '<h2 id="a-b-code-x2">A &amp; B <code>code</code> '
        f"{X_SQUARED}"
        '<a class="headerlink" href="#a-b-code-x2" title="Link to this heading">&para;</a></h2>\n'
        "<p>text</p>"
    )


def test_render_markdown_with_headings_of_an_empty_body_is_empty():
    assert render_markdown_with_headings("") == ("", [])


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
    # Within the line limits, a definition list's items nest one in another as parsed.
    with pytest.raises(MarkdownError) as refused:
        render_markdown("Term\n:   Definition\n" * 499)
    assert str(refused.value) == (
        "The text nests lists, quotes or other blocks too deeply to be rendered."
    )


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
        # A formula reads as its TeX source.
        ("Costs $O(n)$ per $x_i$.", "Costs O(n) per x_i."),
        (r"$\begin{matrix}a&b\\c&d\end{matrix}$", r"\begin{matrix}a&b\\c&d\end{matrix}"),
        ('!!! tip "Fuse early"\n    Fewer launches.', "Fuse early Fewer launches."),
        ("- [x] Done", "Done"),
    ],
)
def test_html_to_text_keeps_the_words_a_reader_reads(source, text):
    assert html_to_text(render_markdown(source)) == text


def test_render_markdown_renders_inline_math_as_mathml():
    assert render_markdown(r"Let $x^2$ grow; $\alpha$ too.") == (
        f'<p>Let {X_SQUARED} grow; <math alttext="\\alpha" display="inline"><mrow><mi>α</mi>'
        "</mrow></math> too.</p>"
    )


def test_render_markdown_renders_display_math_as_mathml():
    assert render_markdown("Before\n\n$$\n\\frac{a}{b}\n$$\n\nAfter") == (
        "<p>Before</p>\n"
        '<p><math alttext="\\frac{a}{b}" display="block"><mrow><mfrac><mrow><mi>a</mi></mrow>'
        "<mrow><mi>b</mi></mrow></mfrac></mrow></math></p>\n"
        "<p>After</p>"
    )


def test_render_markdown_renders_parenthesis_and_bracket_math():
    assert render_markdown(r"\(x^2\) and \[x^2\]") == (
        f"<p>{X_SQUARED} and {X_SQUARED.replace('inline', 'block')}</p>"
    )


def test_render_markdown_keeps_display_math_lines_as_tex_not_markdown():
    assert render_markdown("$$\na\n- b\n$$") == (
        '<p><math alttext="a\n- b" display="block"><mrow><mi>a</mi><mo>−</mo><mi>b</mi></mrow>'
        "</math></p>"
    )


@pytest.mark.parametrize(
    "source",
    [
        "It costs $5 and $10.",
        "Between $5/$10 a day.",  # the closing $ is followed by a digit
        "Budget: $20,000 to $30,000.",
        "A $ 5 $ fee.",  # a space after the opening $ and before the closing one
    ],
)
def test_render_markdown_keeps_dollar_amounts_as_text(source):
    assert render_markdown(source) == f"<p>{source}</p>"


def test_render_markdown_reads_escaped_dollars_as_text():
    assert render_markdown(r"\$x\$ costs \$5.") == "<p>$x$ costs $5.</p>"


def test_render_markdown_keeps_math_in_code_as_code():
    assert render_markdown("Use `$x^2$`.\n\n```\n$x^2$\n```\n\n    \\(x\\)") == (
        "<p>Use <code>$x^2$</code>.</p>\n"
        '<div class="highlight"><pre><span></span><code>$x^2$\n</code></pre></div>\n\n'
        '<div class="highlight"><pre><span></span><code>\\(x\\)\n</code></pre></div>'
    )


def test_render_markdown_shows_an_unreadable_formula_as_its_marked_source():
    assert render_markdown("$x^$ but *the rest* renders.\n\n$$\\left( x$$") == (
        '<p><code class="math-error">$x^$</code> but <em>the rest</em> renders.</p>\n'
        '<p><code class="math-error">$$\\left( x$$</code></p>'
    )


def test_render_markdown_keeps_markdown_out_of_formulas():
    assert render_markdown("$a_1 * b_2 * [c](d)$") == (
        '<p><math alttext="a_1 * b_2 * [c](d)" display="inline"><mrow><msub><mi>a</mi>'
        "<mn>1</mn></msub><mo>*</mo>"
        '<msub><mi>b</mi><mn>2</mn></msub><mo>*</mo><mo stretchy="false">[</mo><mi>c</mi>'
        '<mo stretchy="false">]</mo><mo stretchy="false">(</mo><mi>d</mi>'
        '<mo stretchy="false">)</mo></mrow></math></p>'
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            r"$\text{</math><script>alert(1)</script>}$",
            '<p><math alttext="\\text{&lt;/math&gt;&lt;script&gt;alert(1)&lt;/script&gt;}" '
            'display="inline"><mrow><mtext>&lt;/math&gt;&lt;script&gt;alert(1)'
            "&lt;/script&gt;</mtext></mrow></math></p>",
        ),
        (
            "$</math><img src=x onerror=alert(1)>$",
            '<p><math alttext="&lt;/math&gt;&lt;img src=x onerror=alert(1)&gt;" '
            'display="inline"><mrow><mo>&lt;</mo><mo>/</mo><mi>m</mi><mi>a</mi>'
            "<mi>t</mi><mi>h</mi><mo>&gt;</mo><mo>&lt;</mo><mi>i</mi><mi>m</mi><mi>g</mi>"
            "<mi>s</mi><mi>r</mi><mi>c</mi><mo>=</mo><mi>x</mi><mi>o</mi><mi>n</mi><mi>e</mi>"
            "<mi>r</mi><mi>r</mi><mi>o</mi><mi>r</mi><mo>=</mo><mi>a</mi><mi>l</mi><mi>e</mi>"
            '<mi>r</mi><mi>t</mi><mo stretchy="false">(</mo><mn>1</mn>'
            '<mo stretchy="false">)</mo><mo>&gt;</mo></mrow></math></p>',
        ),
        (
            r"$\href{javascript:alert(1)}{x}$",
            '<p><math alttext="\\href{javascript:alert(1)}{x}" display="inline"><mrow><mrow>'
            "<mrow><mi>x</mi></mrow></mrow></mrow></math></p>",
        ),
        (
            r"$\style{background:url(javascript:alert(1))}{x}$ $\class{site-header}{y}$",
            '<p><math alttext="\\style{background:url(javascript:alert(1))}{x}" '
            'display="inline"><mrow><mrow><mi>x</mi></mrow></mrow></math> '
            '<math alttext="\\class{site-header}{y}" display="inline"><mrow><mrow><mi>y</mi>'
            "</mrow></mrow></math></p>",
        ),
        (
            '<math href="javascript:alert(1)"><maction actiontype="statusline" '
            'xlink:href="javascript:alert(1)"><mi>x</mi></maction></math>',
            "<p><math><mi>x</mi></math></p>",
        ),
        (
            '<math><semantics><annotation-xml encoding="text/html">'
            "<img src=x onerror=alert(1)></annotation-xml></semantics></math>",
            '<p><math></math><img src="x"></p>',
        ),
        (
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
            '<p><math><mtext><img src="x"><p></p><table></table></mtext></math></p>',
        ),
        (
            '<math><mi><a href="javascript:alert(1)">x</a></mi></math>',
            "<p><math><mi><a>x</a></mi></math></p>",
        ),
        ("<svg><script>alert(1)</script></svg>", "<p>alert(1)</p>"),
    ],
)
def test_render_markdown_makes_hostile_math_inert(source, expected):
    assert render_markdown(source) == expected


def test_render_markdown_renders_callouts():
    assert render_markdown(
        '!!! note\n    Plain note.\n\n!!! tip "Fuse early"\n    A *tip*.\n\n'
        '!!! warning "Mind the gap"\n    First.\n\n    Second.'
    ) == (
        '<div class="admonition note">\n<p class="admonition-title">Note</p>\n'
        "<p>Plain note.</p>\n</div>\n"
        '<div class="admonition tip">\n<p class="admonition-title">Fuse early</p>\n'
        "<p>A <em>tip</em>.</p>\n</div>\n"
        '<div class="admonition warning">\n<p class="admonition-title">Mind the gap</p>\n'
        "<p>First.</p>\n<p>Second.</p>\n</div>"
    )


def test_render_markdown_renders_task_lists_with_disabled_checkboxes():
    assert render_markdown("- [ ] Write the chapter\n  - [x] Outline it\n- [x] Pick a title") == (
        '<ul class="task-list">\n'
        '<li class="task-list-item"><input type="checkbox" disabled> Write the chapter'
        '<ul class="task-list">\n'
        '<li class="task-list-item"><input type="checkbox" disabled checked> Outline it</li>\n'
        "</ul>\n</li>\n"
        '<li class="task-list-item"><input type="checkbox" disabled checked> Pick a title</li>\n'
        "</ul>"
    )


def test_render_markdown_renders_definition_lists():
    assert render_markdown("Kernel\n:   A function run on the GPU.\n\nFusion\n:   Merging.") == (
        "<dl>\n<dt>Kernel</dt>\n<dd>A function run on the GPU.</dd>\n"
        "<dt>Fusion</dt>\n<dd>Merging.</dd>\n</dl>"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('<p class="site-header">x</p>', "<p>x</p>"),
        ('<ul class="site-nav"><li class="x" id="a">y</li></ul>', '<ul><li id="a">y</li></ul>'),
        ('<input type="checkbox" onclick="x()" name="n">', '<p><input type="checkbox"></p>'),
        ('<input type="image" src="x.png" formaction="https://evil.example">', "<p><input></p>"),
    ],
)
def test_render_markdown_allows_only_the_classes_and_inputs_the_extensions_make(source, expected):
    assert render_markdown(source) == expected


NESTED_BY_TWO = (
    "<ul>\n<li>a<ul>\n<li>b<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>\n</li>\n<li>d</li>\n</ul>"
)


def test_render_markdown_nests_lists_indented_by_two_spaces():
    assert render_markdown("- a\n  - b\n    - c\n- d") == NESTED_BY_TWO


def test_render_markdown_nests_lists_indented_by_four_spaces():
    assert render_markdown("- a\n    - b\n        - c\n- d") == NESTED_BY_TWO


def test_render_markdown_nests_ordered_lists_indented_by_three_spaces():
    assert render_markdown("1. a\n   - b\n     1. c\n2. d") == (
        "<ol>\n<li>a<ul>\n<li>b<ol>\n<li>c</li>\n</ol>\n</li>\n</ul>\n</li>\n<li>d</li>\n</ol>"
    )


def test_render_markdown_keeps_list_lines_in_code_blocks_as_written():
    assert render_markdown(
        "Text:\n\n    - a\n      - b\n\n```\n- a\n  - b\n```\n\n"
        "- item\n\n        code\n          - kept"
    ) == (
        "<p>Text:</p>\n"
        '<div class="highlight"><pre><span></span><code>- a\n  - b\n</code></pre></div>\n\n'
        '<div class="highlight"><pre><span></span><code>- a\n  - b\n</code></pre></div>\n\n'
        "<ul>\n<li>item"
        '<div class="highlight"><pre><span></span><code>code\n  - kept\n</code></pre></div>\n\n'
        "</li>\n</ul>"
    )


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["- a", "  - b", "    - c", "  - d"], ["- a", "    - b", "        - c", "    - d"]),
        (["- a", "    - b", "        - c"], ["- a", "    - b", "        - c"]),
        (["1. a", "   - b", "     text of b"], ["1. a", "    - b", "      text of b"]),
        (["- a", " - b"], ["- a", " - b"]),  # one space: a sibling, as in CommonMark
        (
            ["- a", "", "  - b", "", "Text", "", "  - c"],
            ["- a", "", "    - b", "", "Text", "", "  - c"],
        ),
        (["Text", "", "    - code", "      - code"], ["Text", "", "    - code", "      - code"]),
        (["- a", "", "* * *"], ["- a", "", "* * *"]),
    ],
)
def test_reindent_nested_lists_moves_only_nested_items(lines, expected):
    assert list(reindent_nested_lists(lines)) == expected
