"""Books for offline study: a section, an area or the whole curriculum as a PDF or an EPUB 3.

- :mod:`.content`: which nodes a book holds, and their bodies made fit for a book;
- :mod:`.pdf`: the PDF, laid out by WeasyPrint, formulas drawn as SVG by ziamath;
- :mod:`.epub`: the EPUB 3, written by the wiki (``zipfile`` and templates), formulas as
  MathML;
- :mod:`.builds`: books built once per version of the wiki, in the background, kept as
  files, one process building each;
- :mod:`.views`: the download, or a page saying the book is being built.

Section and area pages link to their books (``templates/chapters/_downloads.html``), the
home page to the whole curriculum's; ``manage.py build_books`` builds them ahead.
"""
