"""The Atom feed of a chapter's thread: its comments that readers see, newest first."""

from django.contrib.syndication.views import Feed
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from ..feeds import ENTRIES, xml_text
from ..models import Comment, Node

__all__ = ["DiscussionFeed"]


class DiscussionFeed(Feed):
    """The latest :data:`~chapters.feeds.ENTRIES` comments on a chapter, neither hidden nor
    deleted, each linked to its place in the thread; 404 for other paths."""

    feed_type = Atom1Feed

    def get_object(self, request, path):
        return get_object_or_404(Node, path=path, kind=Node.Kind.CHAPTER)

    def title(self, node):
        return xml_text(f"Curriculum Wiki: discussion of {node.title}")

    def link(self, node):
        return reverse("chapters:discussion", args=[node.path])

    def items(self, node):
        found = Comment.objects.filter(node=node).shown().select_related("author", "node")
        return found.order_by("-created", "-pk")[:ENTRIES]

    def item_title(self, comment):
        kind = "Reply" if comment.parent_id else "Comment"
        return xml_text(f"{kind} by {comment.author}")

    def item_description(self, comment):
        # The sanitizer's output (render_comment): Atom1Feed sends it as type="html".
        return xml_text(comment.body_html)

    def item_link(self, comment):
        return comment.get_absolute_url()

    def item_pubdate(self, comment):
        return comment.created

    def item_updateddate(self, comment):
        return comment.edited or comment.created

    def item_author_name(self, comment):
        return xml_text(str(comment.author))
