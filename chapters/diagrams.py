"""The page in which Mermaid draws a chapter's ```` ```mermaid ```` diagrams, out of sight.

Mermaid writes each diagram's SVG with a ``<style>`` element and ``style`` attributes, as it
draws (it measures text in the document). The wiki's Content-Security-Policy allows no inline
style (``style-src 'self'``), so drawn in the chapter's page every one of them is a violation
and Mermaid's colours are lost. So ``static/js/diagrams.js`` has them drawn in this page, in
an iframe of the same origin kept out of sight, whose own policy allows inline style and
nothing else more (no inline script, no other origin, only the wiki as its frame's parent);
the page holds no text of the wiki's, only the bundled Mermaid
(``static/vendor/mermaid/``) and ``static/js/mermaid-frame.js``, which draw what the parent
sends. The parent places each SVG with its style moved into CSSOM (a constructed
stylesheet, and ``element.style``), which a policy does not govern: the chapter's page keeps
the wiki's policy unchanged.
"""

from csp.decorators import csp
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_safe

__all__ = ["FRAME_POLICY", "mermaid_frame"]

# The frame's policy: the wiki's, with inline style allowed and only the wiki as a parent.
FRAME_POLICY = {
    "default-src": ["'none'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'self'"],
}


@require_safe
@cache_control(public=True, max_age=3600)
@xframe_options_sameorigin
@csp(FRAME_POLICY)
def mermaid_frame(request):
    """Answer the page in which Mermaid draws diagrams for ``static/js/diagrams.js``: the
    same bytes for everyone, framed by the wiki's own pages only."""
    return render(request, "chapters/mermaid_frame.html")
