"""The wiki's vocabulary: every word of its titles, headings and bodies, and how common it is.

Search corrects a misspelt word with the most similar word of the vocabulary
(``chapters.search.suggest``). The rows are the database's own work: triggers of migration
0034 count the words of every node inserted, updated or deleted, however it is written
(``save()``, ``update()``, ``loaddata``, raw SQL), so no Python code keeps them. On
PostgreSQL they sum a write's changes and add them once (migration 0035), when
:func:`fold_vocabulary` asks, at the end of every ``tree_write()``, or at commit.
"""

from django.db import DEFAULT_DB_ALIAS, connections, models

__all__ = ["Word", "fold_vocabulary"]

MAX_WORD_LENGTH = 64  # longer words (hashes, encoded data) are not kept: no one mistypes them


class Word(models.Model):
    """One word of the wiki, folded as search folds it, and the number of nodes holding it.

    A word is a run of letters and digits (``chapters.words.words``), lower-cased and
    without the accents of Latin letters, of at most :data:`MAX_WORD_LENGTH` characters. On
    PostgreSQL the words are the lexemes of the node's stored vector ``search_simple``
    (``chapters_simple``, migration 0029) that are one word, on SQLite those FTS5's
    ``unicode61`` tokenizer reads: as each database reads a query's words.
    Migration 0034 indexes ``word`` by trigrams: ``gin_trgm_ops`` on PostgreSQL, the FTS5
    table ``chapters_search_word_trigram`` on SQLite, which triggers on this table keep.

    Attributes:
        word: the word.
        documents: the nodes whose title, headings or body hold it.
        titles: those of them whose title holds it.
    """

    word = models.TextField(unique=True)
    documents = models.IntegerField()
    titles = models.IntegerField()

    class Meta:
        db_table = "chapters_search_word"

    def __str__(self):
        return f"{self.word} ({self.documents})"


def fold_vocabulary(using=None):
    """Add the changes of the counts a PostgreSQL transaction has made so far to the
    vocabulary (migration 0035), so that it reads its own words; on SQLite, whose triggers
    add them at once, do nothing.

    ``tree_write()`` calls it at the end of each write; a transaction that writes nodes
    outside one has them added at commit.

    Args:
        using: the database alias; None for the default.
    """
    connection = connections[using or DEFAULT_DB_ALIAS]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT chapters_search_words_fold()")
