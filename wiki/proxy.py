"""The client's address when one reverse proxy stands in front of Django.

Used by django-axes (``AXES_CLIENT_IP_CALLABLE``) when ``DJANGO_BEHIND_PROXY`` is on, so that
failed sign-ins are counted per client and not all against the proxy's own address.
"""

__all__ = ["client_ip"]


def client_ip(request):
    """Return the address of the client that connected to the reverse proxy.

    The proxy appends the address it saw to ``X-Forwarded-For`` (nginx's
    ``$proxy_add_x_forwarded_for``); the entries before it came from the client and could be
    anything, so only the last one is trusted.

    Args:
        request: the HttpRequest of a sign-in.

    Returns:
        The last address in ``X-Forwarded-For``, or ``REMOTE_ADDR`` when there is none (a
        request that did not come through the proxy).
    """
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    return forwarded.rsplit(",", 1)[-1].strip() or request.META.get("REMOTE_ADDR")
