"""The wiki's own Python-Markdown extensions, one module each.

- :mod:`.math`: TeX math (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``) to MathML.
- :mod:`.nested_lists`: lists nested by two spaces, as well as by four.
- :mod:`.wikilinks`: ``[[Target]]`` and ``[[Target|text]]`` links between pages.

:mod:`chapters.markdown` lists which extensions a body is rendered with (its own and
Python-Markdown's) and their settings; :mod:`chapters.markdown.sanitize` decides which of the
HTML they write survives.
"""

__all__ = []
