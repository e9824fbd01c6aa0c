"""Code and images on paper (chapters.markdown.printing, print.css, book.css): short blocks
of code on one page, long ones with their label kept with their first lines; the print page
loads every image and prints no image's address."""

import re
import subprocess
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from chapters.books.content import book_of
from chapters.books.pdf import render_pdf
from chapters.markdown import render_markdown
from chapters.markdown.printing import SHORT_CODE_LINES, for_print, mark_short_code
from tests.helpers import edit, library_image, node, soup

pytestmark = pytest.mark.usefixtures("books_root")


def fence(language, lines, prefix):
    """Return a fenced block of ``lines`` lines of code, each ``<prefix>_<nn> = <nn>``."""
    code = "\n".join(f"{prefix}_{n:02} = {n}" for n in range(1, lines + 1))
    return f"```{language}\n{code}\n```"


def css_rules(name):
    """Return a stylesheet's rules as ``{selector: declarations}``, comments left out and
    the declarations of a selector written twice joined."""
    text = re.sub(r"/\*.*?\*/", "", Path(finders.find(name)).read_text(), flags=re.S)
    rules = {}
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        key = " ".join(selector.split())
        rules[key] = " ".join([*rules.get(key, "").split(), *body.split()])
    return rules


def test_mark_short_code_marks_blocks_of_25_lines_or_fewer():
    assert SHORT_CODE_LINES == 25
    short = render_markdown(fence("python", 25, "a"))
    assert short.startswith('<div class="highlight"><span class="filename">Python</span><pre>')
    assert mark_short_code(short) == short.replace(
        '<div class="highlight">', '<div class="highlight code-short">'
    )
    long = render_markdown(fence("python", 26, "a"))
    assert mark_short_code(long) == long
    plain = '<pre><code class="language-text">x = 1\ny = 2\n</code></pre>'
    assert mark_short_code(plain) == (
        '<pre class="code-short"><code class="language-text">x = 1\ny = 2\n</code></pre>'
    )
    both = f"<p>a</p>\n{long}\n<p>b</p>\n{short}"
    assert mark_short_code(both) == f"<p>a</p>\n{long}\n<p>b</p>\n{mark_short_code(short)}"


def test_for_print_loads_images_at_once():
    html = '<img alt="A loading=&quot;lazy&quot; plot" height="8" loading="lazy" src="/m.png">'
    assert for_print(html) == '<img alt="A loading=&quot;lazy&quot; plot" height="8" src="/m.png">'


@pytest.mark.django_db
def test_print_page_loads_every_image_and_marks_short_code(client, small_tree):
    library_image("diagram.png", 1200, 800)
    edit(
        "Chapter One",
        body=f"![Two kernels](image:diagram.png)\n\n{fence('python', 3, 'x')}\n\n"
        + fence("python", 30, "y"),
    )
    assert 'loading="lazy"' in node("Chapter One").body_html
    page = soup(client.get("/print/area-a/section-a1/"))
    image = page.select_one(".print-chapter .body img")
    assert (image["src"], image.get("loading")) == ("/media/diagram.png?v=1", None)
    assert [block["class"] for block in page.select(".print-chapter .body .highlight")] == [
        ["highlight", "code-short"],
        ["highlight"],
    ]


def test_print_css_keeps_short_code_whole_labels_with_code_and_prints_no_image_address():
    rules = css_rules("css/print.css")
    avoided = [s for s, body in rules.items() if "break-inside: avoid" in body]
    assert avoided == [".body :is(table, figure, img, .diagram)", ".body .code-short"]
    assert rules[".body :is(.highlight, .code-block) > .filename"] == (
        "color: #333; break-after: avoid;"
    )
    assert rules[".body pre"].endswith("orphans: 4; widows: 2;")
    addresses = [s for s, body in rules.items() if "attr(" in body]
    assert addresses == [
        ':is(article, .print-toc ~ *) a[href]:not([href^="#"], .media-image, :has(> img))::after',
        ':is(article, .print-toc ~ *) a[data-print-href]:not([href^="#"], .media-image, '
        ":has(> img))::after",
    ]


def test_book_css_keeps_short_code_whole_and_labels_with_code():
    rules = css_rules("css/book.css")
    avoided = [s for s, body in rules.items() if "break-inside: avoid" in body]
    # A contents entry is whole on one page too (chapters/books/front.py lays the contents
    # out in chunks, by the entries that land on each page).
    assert avoided == [".contents li", ".body :is(table, figure, .diagram)", ".body .code-short"]
    assert rules[".body .highlight > .filename"].startswith("display: block; break-after: avoid;")
    assert rules[".body pre"].endswith("orphans: 4; widows: 2;")


def pages_of(pdf):
    """Return each line of a PDF's text with the number of its page."""
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return [
        (number, line.strip())
        for number, page in enumerate(text.split("\f"), start=1)
        for line in page.splitlines()
        if line.strip()
    ]


@pytest.mark.django_db
def test_pdf_keeps_short_code_on_one_page_and_a_long_blocks_label_with_its_start(
    small_tree, tmp_path
):
    filler = "Words to fill the page with, line after line. " * 12
    blocks = [f"Before block {k}. {filler}\n\n{fence('python', 20, f'b{k}')}" for k in range(8)]
    edit(
        "Chapter One",
        body="Before the long block.\n\n"
        + fence("javascript", 70, "long")
        + "\n\n"
        + "\n\n".join(blocks),
    )
    pdf = tmp_path / "chapter.pdf"
    pdf.write_bytes(render_pdf(book_of(node("Chapter One"))))
    lines = pages_of(pdf)

    def pages(pattern):
        return sorted({page for page, line in lines if re.match(pattern, line)})

    assert pages(r"Before the long block\.") == pages(r"JavaScript$") == pages(r"long_01 ") == [3]
    assert pages(r"long_70 ") == [4]
    pushed = 0
    for k in range(8):
        code = pages(rf"b{k}_\d\d = ")
        assert len(code) == 1, f"block {k} is on pages {code}"
        assert len([line for _, line in lines if re.match(rf"b{k}_\d\d = ", line)]) == 20
        first = next(i for i, (_, line) in enumerate(lines) if line.startswith(f"b{k}_01 "))
        assert lines[first - 1] == (code[0], "Python")  # its label, on its page
        pushed += pages(rf"Before block {k}\.") != code
    assert pushed >= 1  # a block met a page's end, and was moved whole to the next
