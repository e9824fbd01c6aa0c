"""A layout of a book's part that fails, for the tests of a failure in a layout process
(tests/test_book_parts.py): a module of its own, without Django, as the processes that lay
out parts import only what they run (chapters/books/parts.py)."""

MESSAGE = "The part could not be laid out."


def lay_out_part(html, stylesheet_files, images, path):
    """Fail as a part's layout in its process would: raise, having written nothing.

    Raises:
        RuntimeError: always.
    """
    raise RuntimeError(MESSAGE)
