"""The comment's form: its text, and which comment it replies to."""

from django import forms

from ..markdown import MarkdownError, render_comment

__all__ = ["COMMENT_MAX_LENGTH", "CommentForm"]

COMMENT_MAX_LENGTH = 5000


class CommentForm(forms.Form):
    """A comment's Markdown, rendered once while it is checked (``cleaned_data["html"]``).

    Errors: an empty text ("Write something before posting."), a text over
    :data:`COMMENT_MAX_LENGTH` characters (the limit and the length typed), a text the
    renderer refuses (its message).
    """

    body = forms.CharField(
        label="Comment",
        max_length=COMMENT_MAX_LENGTH,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=f"Markdown; up to {COMMENT_MAX_LENGTH:,} characters.",
        error_messages={
            "required": "Write something before posting.",
            "max_length": "A comment holds at most %(limit_value)s characters "
            "(this one has %(show_value)s).",
        },
    )

    def clean(self):
        """Render the text, refusing what the renderer refuses."""
        data = super().clean()
        if "body" in data:
            try:
                data["html"] = render_comment(data["body"])
            except MarkdownError as error:
                self.add_error("body", str(error))
        return data
