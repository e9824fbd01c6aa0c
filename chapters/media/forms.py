"""The media library's forms: an upload (a new item), a replacement (a new version)."""

from django import forms

from . import uploads

__all__ = ["ReplaceForm", "SearchForm", "UploadForm"]


class UploadForm(forms.Form):
    """A new image or file, with its title and, for an image, its alt text.

    Whether alt text is required depends on what the file turns out to be, which only
    ``chapters.media.uploads.add`` knows: it is checked there.
    """

    file = forms.FileField(label="File")
    title = forms.CharField(
        max_length=200, required=False, help_text="Left empty, the file's name is the title."
    )
    alt = forms.CharField(
        label="Alt text",
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="For an image: what it shows, for readers who cannot see it.",
    )

    def save(self, uploader):
        """Add the form's file to the library with its title and alt text, by ``uploader``;
        return the new item (the library's page and the API both add uploads so).

        Raises:
            ValidationError: the library refuses the file (``chapters.media.uploads.add``).
        """
        return uploads.add(
            self.cleaned_data["file"],
            title=self.cleaned_data["title"],
            alt=self.cleaned_data["alt"],
            uploader=uploader,
        )


class ReplaceForm(forms.Form):
    """A new file for an item, which keeps its name, URL, title and alt text."""

    file = forms.FileField(label="New file")


class SearchForm(forms.Form):
    """The library's search: words in an item's name, title or alt text."""

    q = forms.CharField(label="Search media", max_length=200, required=False)
