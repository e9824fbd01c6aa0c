"""``{% load permissions %}``: the rule of ``chapters.permissions`` as template filters.

``{% if user|can_edit %}``, ``{% if user|can_revert %}``, ``{% if user|can_preview:adding %}``,
``can_add``, ``can_review``, ``can_watch``, ``can_upload``: the same functions the views and
the admin call, so a template never asks ``perms.*``.
"""

from django import template

from chapters import permissions

__all__ = ["register"]

register = template.Library()

register.filter("can_edit", permissions.can_edit)
register.filter("can_revert", permissions.can_revert)
register.filter("can_preview", permissions.can_preview)
register.filter("can_add", permissions.can_add)
register.filter("can_review", permissions.can_review)
register.filter("can_watch", permissions.can_watch)
register.filter("can_upload", permissions.can_upload)
