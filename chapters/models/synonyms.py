"""Synonyms: other spellings of a word that search finds it by ("colour" for "color")."""

from django.core.exceptions import ValidationError
from django.db import models

from chapters.words import words

__all__ = ["Synonym"]


class SynonymQuerySet(models.QuerySet):
    """Querysets of synonyms."""

    def table(self):
        """Return the other spellings of every word that has synonyms (one query).

        A synonym works both ways: "colour" = "color" gives "color" for "colour" and
        "colour" for "color".

        Returns:
            A dict from each word that has synonyms to the list of its other spellings, in
            the order of the synonyms (``Meta.ordering``).
        """
        variants = {}
        for word, same_as in self.values_list("word", "same_as"):
            variants.setdefault(word, []).append(same_as)
            variants.setdefault(same_as, []).append(word)
        return variants


class Synonym(models.Model):
    """Two spellings of one word that search treats alike, both ways.

    Editors add them in the admin, for spellings that stemming does not bring together:
    British and American ("quantisation" and "quantization"), or an abbreviation. Words are
    stored folded (lower case, without the accents of Latin letters), as queries are read.
    Migration 0015 adds the first ones, and triggers that bump the wiki's version on every
    change, since a synonym changes what search finds.
    """

    word = models.CharField(max_length=100, help_text="One word, e.g. “colour”.")
    same_as = models.CharField(
        "same as", max_length=100, help_text="Another spelling of it, e.g. “color”."
    )

    objects = SynonymQuerySet.as_manager()

    class Meta:
        ordering = ["word", "same_as"]
        constraints = [
            models.UniqueConstraint(fields=["word", "same_as"], name="one_synonym_per_pair")
        ]

    def __str__(self):
        return f"{self.word} = {self.same_as}"

    def clean(self):
        """Fold both spellings; refuse anything but one word each, or the same word twice.

        Raises:
            ValidationError: a field holds no word, more than one, or both hold the same.
        """
        for name in ("word", "same_as"):
            found = words(getattr(self, name))
            if len(found) != 1:
                raise ValidationError({name: "Write one word (letters and digits)."})
            setattr(self, name, found[0])
        if self.word == self.same_as:
            raise ValidationError({"same_as": "Write another spelling than the word."})
