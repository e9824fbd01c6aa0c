"""The wiki's models: one tree of nodes, the links between them, and the wiki's version.

- :mod:`.node`: ``Node`` (a section or a chapter) and the derived fields its ``save()``
  keeps right;
- :mod:`.rules`: the rules a node keeps, where it stands and what its fields hold;
- :mod:`.tree`: the tree's one write path (``tree_write``), its lock, querysets, manager and
  check, and the in-memory trees that pages walk;
- :mod:`.links`: ``Link`` (derived from bodies), ``PathRedirect`` (old paths) and
  ``LinkResolver`` (what a ``[[wiki link]]`` means);
- :mod:`.version`: ``WikiVersion``, which every cache is keyed by;
- :mod:`.synonyms`: ``Synonym``, other spellings that search finds a word by;
- :mod:`.vocabulary`: ``Word``, the wiki's words and how many nodes hold each, which search
  corrects typos from (kept by the database's triggers);
- :mod:`.media`: the media library, ``MediaItem`` (an uploaded image or file under a stable
  name), ``MediaVersion`` (the files it held before) and ``MediaUse`` (a body's references to
  one, derived like links);
- :mod:`.drafts`, :mod:`.review`, :mod:`.watches`: what editing on the site keeps besides
  the tree (``EditDraft``, ``PendingChange``, ``Watch``), in tables no version trigger
  watches;
- :mod:`.comments`: ``Comment``, the readers' discussion of a chapter;
- :mod:`.notifications`: ``Notification``, what the wiki tells a user, kept until e-mailed;
- :mod:`.progress`: ``ChapterDone``, a chapter a signed-in reader has marked done;
- :mod:`.workers`: ``TaskWorker``, the heartbeats of the processes running background
  tasks (``chapters.worker``);
- :mod:`.books`: ``BookBuild``, one build of a book at one version, and its progress
  (``chapters.books.builds``);
- :mod:`.webhooks`: ``Webhook`` (an address told of events) and ``WebhookDelivery`` (the
  log of each event sent to one, ``chapters.webhooks``).
"""

from .books import BookBuild
from .comments import Comment
from .drafts import EditDraft
from .links import Link, LinkResolver, PathRedirect, linking_into, mend_broken_links
from .media import MEDIA_NAME, MediaItem, MediaResolver, MediaUse, MediaVersion
from .node import REVISION_FIELDS, DeletionFields, Node
from .notifications import Notification
from .progress import ChapterDone
from .review import PendingChange, ReviewComment
from .rules import (
    PATH_MAX_LENGTH,
    PATH_URL_MAX_LENGTH,
    RESERVED_ROOT_SLUGS,
    TITLE_MAX_LENGTH,
    NodeRules,
    one_line,
    unique_slug,
)
from .synonyms import Synonym
from .tokens import ApiToken
from .tree import (
    TREE_FIELDS,
    NodeManager,
    NodeQuerySet,
    TreeWrite,
    cache_trees,
    current_write,
    lock_tree,
    tree_write,
)
from .version import WikiVersion
from .vocabulary import Word
from .watches import Watch
from .webhooks import Webhook, WebhookDelivery
from .workers import TaskWorker

__all__ = [
    "MEDIA_NAME",
    "PATH_MAX_LENGTH",
    "PATH_URL_MAX_LENGTH",
    "RESERVED_ROOT_SLUGS",
    "REVISION_FIELDS",
    "TITLE_MAX_LENGTH",
    "TREE_FIELDS",
    "ApiToken",
    "BookBuild",
    "ChapterDone",
    "Comment",
    "DeletionFields",
    "EditDraft",
    "Link",
    "LinkResolver",
    "MediaItem",
    "MediaResolver",
    "MediaUse",
    "MediaVersion",
    "Node",
    "NodeManager",
    "NodeQuerySet",
    "NodeRules",
    "one_line",
    "Notification",
    "PathRedirect",
    "PendingChange",
    "ReviewComment",
    "Synonym",
    "TaskWorker",
    "TreeWrite",
    "Watch",
    "Webhook",
    "WebhookDelivery",
    "WikiVersion",
    "Word",
    "cache_trees",
    "current_write",
    "linking_into",
    "lock_tree",
    "mend_broken_links",
    "tree_write",
    "unique_slug",
]
