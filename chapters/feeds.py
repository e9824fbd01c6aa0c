"""Atom feeds of recent changes: the whole wiki, and one per section (its subtree).

Built on Django's syndication framework; each entry is a revision, linked to its page (which
links to the diff against the revision before it).
"""

import re

from django.contrib.syndication.views import Feed
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape

from .history import all_revisions
from .models import Node

__all__ = ["RecentChangesFeed", "SectionChangesFeed"]

ENTRIES = 50

# Characters XML 1.0 does not allow (https://www.w3.org/TR/xml/#charsets): a title or edit
# summary pasted with one (Word's vertical tab, a terminal's escape) must not break the feed.
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text):
    """Return ``text`` without the characters XML 1.0 does not allow."""
    return NOT_XML.sub("", text)


ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}


class RecentChangesFeed(Feed):
    """The latest revisions across the wiki, newest first."""

    feed_type = Atom1Feed
    title = "Curriculum Wiki: recent changes"
    subtitle = "The latest edits to the curriculum's sections and chapters."

    def link(self):
        return reverse("chapters:recent")

    def items(self):
        return all_revisions()[:ENTRIES]

    def item_title(self, revision):
        return xml_text(f"{revision.title} ({ACTIONS[revision.history_type]})")

    def item_description(self, revision):
        # Atom1Feed sends the summary as type="html": escape it, so it reads as the text typed.
        return escape(xml_text(revision.history_change_reason or ""))

    def item_link(self, revision):
        return reverse("chapters:revision", args=[revision.history_id])

    def item_pubdate(self, revision):
        return revision.history_date

    def item_updateddate(self, revision):
        return revision.history_date

    def item_author_name(self, revision):
        return xml_text(str(revision.history_user)) if revision.history_user else "script"


class SectionChangesFeed(RecentChangesFeed):
    """The latest revisions of a section and everything below it; 404 for other paths."""

    def get_object(self, request, path):
        return get_object_or_404(Node, path=path, kind=Node.Kind.SECTION)

    def title(self, section):
        return xml_text(f"Curriculum Wiki: recent changes in {section.title}")

    def link(self, section):
        return section.get_absolute_url()

    def items(self, section):
        return all_revisions(area=section)[:ENTRIES]
