"""Books for offline study: a chapter, a section, an area or the whole curriculum as a PDF
or an EPUB 3.

- :mod:`.content`: which nodes a book holds, and their bodies made fit for a book;
- :mod:`.pdf`: the PDF, laid out by WeasyPrint a part at a time, by a pool of processes
  (:mod:`.parts`; the title page and contents, :mod:`.front`) and joined by pypdf with its
  page numbers and one outline (:mod:`.joining`),
  formulas drawn as SVG by ziamath (:mod:`.formulas`), code with few spans (:mod:`.code`);
- :mod:`.epub`: the EPUB 3, written by the wiki (``zipfile`` and templates), formulas as
  MathML;
- :mod:`.builds`: books built once per version of the wiki by a background task, one build
  per book and version however many ask, kept as files;
- :mod:`.views`: the download, or a page with the build's progress (or its failure).

Chapter, section and area pages link to their books (``templates/chapters/_downloads.html``),
the home page to the whole curriculum's; ``manage.py build_books`` builds them ahead.
"""
