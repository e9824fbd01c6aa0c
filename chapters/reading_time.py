"""How long a chapter or a section takes to read: its words at a silent reading rate.

A chapter's words are those of its rendered text (``Node.body_text``, the text a reader
reads, code and formulas included), counted once when its body is rendered and stored in
``Node.words``; a section's are the sum of its chapters' (``readiness.count_chapters``). So
the estimate costs no request anything, and every reader gets the same page.
"""

__all__ = ["WORDS_PER_MINUTE", "count_words", "reading_time"]

# Brysbaert, M. (2019). How many words do we read per minute? A review and meta-analysis of
# reading rate. Journal of Memory and Language, 109, 104047: adults read non-fiction silently
# at 238 words per minute on average (fiction at 260).
WORDS_PER_MINUTE = 238


def count_words(text):
    """Return the number of words in ``text``: runs of characters between white space.

    Args:
        text: a chapter's text as readers read it (``chapters.markdown.text.html_to_text``).

    Returns:
        0 for an empty or blank text.
    """
    return len(text.split())


def reading_time(words):
    """Return the reading time of ``words`` words as the pages say it, e.g. "7 min read".

    Minutes are rounded to the nearest whole one (a half up), at least 1 for any text; from
    an hour on, hours and minutes ("1 h 5 min read"). The rate is :data:`WORDS_PER_MINUTE`, from
    Brysbaert's meta-analysis of silent reading rates (2019), for non-fiction.

    Args:
        words: a number of words, 0 or more.

    Returns:
        The estimate, or "" for no words (a section without text says nothing).
    """
    if words <= 0:
        return ""
    minutes = max(1, int(words / WORDS_PER_MINUTE + 0.5))
    if minutes < 60:
        return f"{minutes} min read"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min read" if minutes else f"{hours} h read"
