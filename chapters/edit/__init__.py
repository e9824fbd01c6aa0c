"""Editing on the site: the editor, drafts that save themselves, merges, review, watching.

(The whole story is told once the package is complete.)
"""
