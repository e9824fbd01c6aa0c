"""Where the wiki may send a webhook: public addresses only, unless a setting allows more.

A webhook's URL is chosen by an admin, but the request is the server's: pointed at
``127.0.0.1``, ``10.0.0.5`` or ``169.254.169.254`` (a cloud's metadata service), it would
reach what only the server can reach (server-side request forgery, OWASP's SSRF prevention
cheat sheet). So every address the URL's host resolves to must be global, and neither
private, loopback, link-local, multicast, reserved nor unspecified (Python's ``ipaddress``,
from IANA's special-purpose address registries), unless it lies in a network of
``WIKI_WEBHOOK_ALLOW_PRIVATE``. The check runs when the webhook is saved (model validation)
and again at every delivery, after resolving the host once more: the delivery then connects
to the very address checked (``chapters.webhooks.delivery``), so a name that resolved to a
public address when checked and to a private one a moment later (DNS rebinding) cannot
redirect it.
"""

import ipaddress
import socket
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings

__all__ = ["RefusedAddress", "Target", "allowed_networks", "check_url", "is_allowed"]

DEFAULT_PORTS = {"http": 80, "https": 443}


class RefusedAddress(Exception):
    """The URL is not one the wiki sends webhooks to; the message says why."""


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: the URL's parts and the checked address to connect to."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


@cache
def _networks(allowed):
    return tuple(ipaddress.ip_network(network, strict=False) for network in allowed)


def allowed_networks():
    """Return the networks of ``WIKI_WEBHOOK_ALLOW_PRIVATE`` (CIDR strings) as
    ``ipaddress`` networks.

    Raises:
        ValueError: the setting names something that is not a network.
    """
    return _networks(tuple(settings.WIKI_WEBHOOK_ALLOW_PRIVATE))


def is_allowed(address):
    """Return whether the wiki may send to the IP ``address`` (a string).

    An IPv4 address mapped into IPv6 (``::ffff:127.0.0.1``) is judged as the IPv4 address.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if any(ip in network for network in allowed_networks()):
        return True
    special = (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )
    return ip.is_global and not special


def check_url(url):
    """Resolve the host of the webhook URL ``url`` and check every address it has.

    Args:
        url: an ``http`` or ``https`` URL.

    Returns:
        The :class:`Target`, with the first address the host resolved to.

    Raises:
        RefusedAddress: the URL is not http(s), has no host, carries credentials, its host
            does not resolve, or one of its addresses is not allowed (:func:`is_allowed`).
    """
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS:
        raise RefusedAddress("A webhook's URL must start with http:// or https://.")
    if parts.username is not None or parts.password is not None:
        raise RefusedAddress(
            "A webhook's URL may not carry a user name or password: its secret signs it."
        )
    try:
        host, port = parts.hostname, parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError as error:
        raise RefusedAddress(f"The URL's port is not a number: {error}.") from error
    if not host:
        raise RefusedAddress("A webhook's URL must name a host.")
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise RefusedAddress(f"The host {host} could not be resolved ({error}).") from error
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    for address in addresses:
        if not is_allowed(address):
            raise RefusedAddress(
                f"The host {host} resolves to {address}, a private, loopback, link-local or "
                "reserved address: webhooks are not sent there unless "
                "WIKI_WEBHOOK_ALLOW_PRIVATE allows its network."
            )
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(parts.scheme, host, port, path, addresses[0])
