"""The wiki's one tree: sections and chapters as nodes of a django-mptt tree.

Areas are root sections, their sections are child sections, chapters are leaves. Each node
stores three derived fields that ``save()`` keeps right: ``path`` (its full URL path, so a link
costs no query), ``body_html`` (its sanitized body, so a page view renders no Markdown) and
``body_text`` (the text of that HTML, which search matches and quotes).
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse
from django.utils.text import slugify
from mptt.exceptions import InvalidMove
from mptt.managers import TreeManager
from mptt.models import MPTTModel, TreeForeignKey
from mptt.querysets import TreeQuerySet

from .markdown import html_to_text, render_markdown

__all__ = ["Node", "NodeQuerySet", "NodeManager", "unique_slug"]

# First path segments that belong to other URLs of the project (see wiki/urls.py and
# chapters/urls.py): a top-level node with one of these slugs could never be reached.
RESERVED_ROOT_SLUGS = frozenset({"admin", "search", "static"})


def unique_slug(title, taken, fallback):
    """Return a slug for ``title`` that is not in ``taken``.

    Django's ``slugify`` with ``allow_unicode`` keeps letters of any script, so a title in
    Cyrillic or Chinese keeps its words and still works in a URL; a title of only punctuation
    gets ``fallback``. While the slug is taken, "-2", "-3", ... is appended.

    Args:
        title: the node's title.
        taken: the slugs the node's siblings already use (any container).
        fallback: the slug to use when the title has no letters or digits.

    Returns:
        A non-empty slug of at most 100 characters.
    """
    base = slugify(title, allow_unicode=True)[:90].strip("-_") or fallback
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def _mentions(term):
    """Return a condition: ``term`` occurs in the node's title or body text, in any case."""
    return models.Q(title__icontains=term) | models.Q(body_text__icontains=term)


class NodeQuerySet(TreeQuerySet):
    """Querysets of nodes, in tree order (django-mptt's default ordering)."""

    def for_navigation(self):
        """Return the nodes with only the fields links and the table of contents need.

        Returns:
            A queryset that defers the Markdown body, its HTML and its text.
        """
        return self.defer("body", "body_html", "body_text")

    def in_area(self, slug):
        """Return the nodes of one area: the area itself and every node under it.

        Uses the stored paths (an area's descendants' paths start with its slug and a slash),
        so it needs no query for the area's tree id.

        Args:
            slug: the slug of an area (a root node).
        """
        return self.filter(models.Q(path=slug) | models.Q(path__startswith=f"{slug}/"))

    def containing(self, terms, excluded=()):
        """Return the nodes whose title or body text contains every term and no excluded one.

        Matching ignores case as the database's ``icontains`` does: on SQLite, that is only for
        ASCII letters (SQLite's ``LIKE``).

        Args:
            terms: strings that must each occur in the title or the body text.
            excluded: strings that must occur in neither.
        """
        nodes = self
        for term in terms:
            nodes = nodes.filter(_mentions(term))
        for term in excluded:
            nodes = nodes.exclude(_mentions(term))
        return nodes


class NodeManager(TreeManager.from_queryset(NodeQuerySet)):
    """The tree manager; refuses moves that would break the wiki's rules."""

    def move_node(self, node, target, position="last-child"):
        """Move ``node`` relative to ``target``, as django-mptt's ``TreeManager.move_node``.

        This is what the admin's drag-and-drop calls. The node's new place is checked with
        :meth:`Node.validate_placement` before anything is written.

        Args:
            node: the node to move.
            target: the node to move relative to, or None to make ``node`` a root.
            position: ``first-child``, ``last-child``, ``left`` or ``right`` of ``target``.

        Raises:
            mptt.exceptions.InvalidMove: the move would put a node under itself or one of its
                descendants, put anything under a chapter, make a chapter a root, or give the
                node a slug a new sibling already has. Nothing is written.
        """
        if target is None or position in ("left", "right"):
            parent = target.parent if target is not None else None
        else:
            parent = target
        try:
            node.validate_placement(parent)
        except ValidationError as error:
            raise InvalidMove(" ".join(error.messages)) from error
        super().move_node(node, target, position)


class Node(MPTTModel):
    """A section or a chapter of the curriculum.

    Siblings are ordered by their place in the tree, which only the tree sets (there is no
    ``order_insertion_by``): the editor's order is the order.
    """

    class Kind(models.TextChoices):
        SECTION = "section", "Section"
        CHAPTER = "chapter", "Chapter"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        IN_REVIEW = "review", "In review"
        PUBLISHED = "published", "Published"

    title = models.CharField(max_length=200)
    slug = models.SlugField(
        max_length=100,
        allow_unicode=True,
        blank=True,
        help_text="The last part of the page's URL; unique among siblings. "
        "Left empty, it is made from the title.",
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CHAPTER)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    parent = TreeForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    body = models.TextField(blank=True, help_text="Markdown.")
    updated = models.DateTimeField(
        auto_now=True, help_text="Moves forward on every save; kept as written in fixtures."
    )
    path = models.CharField(max_length=1000, unique=True, editable=False)
    body_html = models.TextField(blank=True, editable=False)
    body_text = models.TextField(blank=True, editable=False)

    objects = NodeManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["parent", "slug"],
                name="unique_slug_among_siblings",
                violation_error_message="A sibling already uses this slug.",
            ),
            models.UniqueConstraint(
                fields=["slug"],
                condition=models.Q(parent__isnull=True),
                name="unique_slug_among_roots",
                violation_error_message="Another top-level section already uses this slug.",
            ),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        """Return the node's URL, built from the stored path without a query."""
        return reverse("chapters:node", kwargs={"path": self.path})

    @property
    def is_chapter(self):
        """Return True for a chapter, False for a section."""
        return self.kind == self.Kind.CHAPTER

    def validate_placement(self, parent):
        """Check that this node may live under ``parent``.

        Args:
            parent: the prospective parent node, or None for the top level.

        Raises:
            ValidationError: (keyed by field) when ``parent`` is this node or one of its
                descendants, when ``parent`` is a chapter, when this node is a chapter and
                ``parent`` is None, or when a sibling under ``parent`` already has this slug.
        """
        if parent is not None and parent.is_descendant_of(self, include_self=True):
            raise ValidationError(
                {"parent": "A node cannot be moved under itself or one of its descendants."}
            )
        if parent is not None and parent.is_chapter:
            raise ValidationError(
                {"parent": f"“{parent.title}” is a chapter; chapters cannot have children."}
            )
        if parent is None and self.is_chapter:
            raise ValidationError({"parent": "A chapter must belong to a section."})
        if parent is None and self.slug in RESERVED_ROOT_SLUGS:
            raise ValidationError({"slug": f"“{self.slug}” is reserved for the site's own URLs."})
        siblings = Node.objects.filter(parent=parent, slug=self.slug).exclude(pk=self.pk)
        if self.slug and siblings.exists():
            raise ValidationError({"slug": f"A sibling already uses the slug “{self.slug}”."})

    def clean(self):
        """Validate the node as the admin's form sees it.

        Raises:
            ValidationError: the title is blank, a section with children is turned into a
                chapter, or the placement is invalid (see :meth:`validate_placement`).
        """
        if not self.title.strip():
            raise ValidationError({"title": "The title cannot be blank."})
        self.fill_slug()
        if self.is_chapter and self.pk is not None and self.get_children().exists():
            raise ValidationError({"kind": "This node has children, so it must stay a section."})
        self.validate_placement(self.parent)

    def fill_slug(self):
        """Give the node a slug made from its title, unique among its siblings, if it has none.

        See :func:`unique_slug`; a title of only punctuation gets the node's kind ("chapter").
        """
        if self.slug:
            return
        siblings = Node.objects.filter(parent_id=self.parent_id).exclude(pk=self.pk)
        self.slug = unique_slug(
            self.title, set(siblings.values_list("slug", flat=True)), fallback=self.kind
        )

    def save(self, *args, **kwargs):
        """Save the node, keeping ``slug``, ``path``, ``body_html`` and ``body_text`` right.

        Renders the body once per save, and rewrites the stored paths of all descendants when
        this node's path changed (a rename or a move).
        """
        self.fill_slug()
        self.body_html = render_markdown(self.body)
        self.body_text = html_to_text(self.body_html)
        old_path = self.path
        self.path = self.build_path()
        super().save(*args, **kwargs)
        if old_path and old_path != self.path:
            rewrite_descendant_paths(self)

    def build_path(self):
        """Return the URL path from the parent's stored path and this node's slug."""
        if self.parent_id is None:
            return self.slug
        return f"{self.parent.path}/{self.slug}"


def rewrite_descendant_paths(node):
    """Recompute the stored paths of every descendant of ``node`` from its current path.

    Walks the tree by ``parent_id`` one level at a time (one query per level and one bulk
    update), so it also works while a fixture is half loaded and the nested-set fields are not
    yet consistent.

    Args:
        node: a saved node whose ``path`` is already right.
    """
    changed = []
    parents = {node.pk: node.path}
    while parents:
        children = list(Node.objects.filter(parent_id__in=parents).only("pk", "slug", "parent"))
        for child in children:
            child.path = f"{parents[child.parent_id]}/{child.slug}"
        changed.extend(children)
        parents = {child.pk: child.path for child in children}
    Node.objects.bulk_update(changed, ["path"], batch_size=500)


@receiver(post_save, sender=Node, dispatch_uid="chapters.refresh_derived_fields_on_load")
def refresh_derived_fields_on_load(sender, instance, raw, **kwargs):
    """Compute ``path``, ``body_html`` and ``body_text`` for a node loaded from a fixture.

    ``loaddata`` saves rows raw, without calling ``Node.save()``; Django's ``post_save`` signal
    with ``raw=True`` is its one hook for such saves. Whatever a fixture says about the derived
    fields is replaced, so a fixture cannot smuggle in unsanitized HTML.
    """
    if not raw:
        return
    parent_path = (
        Node.objects.filter(pk=instance.parent_id).values_list("path", flat=True).first()
        if instance.parent_id
        else None
    )
    instance.path = f"{parent_path}/{instance.slug}" if parent_path else instance.slug
    instance.body_html = render_markdown(instance.body)
    instance.body_text = html_to_text(instance.body_html)
    Node.objects.filter(pk=instance.pk).update(
        path=instance.path, body_html=instance.body_html, body_text=instance.body_text
    )
    rewrite_descendant_paths(instance)
