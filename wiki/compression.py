"""Compressing pages with gzip, except for signed-in users (BREACH).

BREACH (https://www.breachattack.com/) reads a secret out of compressed responses: an
attacker who can make the victim's browser send requests, and can see the responses' sizes,
reflects guesses into the page (a search box, a query parameter) and watches which guess
compresses best. It needs a secret in the body of a page that also reflects input.

- **Pages for requests without a session cookie** are compressed. Nobody is signed in, so a
  page holds nothing of a user's: a reader's page is the same for every reader. The one
  secret such a page can hold is a CSRF token (the admin's sign-in form), and Django masks
  it with a new random mask in every response (``django.middleware.csrf.get_token``), so it
  never repeats from one response to the next. Django's ``GZipMiddleware`` also adds up to
  100 random bytes to each compressed response ("Heal the Breach", since Django 4.2).
- **Pages for requests with a session cookie** (editors and staff) are sent as they are.
  They hold what only that user may see (the admin's lists, their messages) beside input the
  page reflects (the admin's search box), which is the case BREACH is about; CSRF masking
  protects only the token. They are a few users' pages, so the bytes saved would be few.

``wiki/settings.py`` places the middleware outside the reader middleware of
``chapters.caching``, so readers' kept pages are compressed too (the cache keeps them
uncompressed: the random bytes make each compressed copy differ), and it also sees readers'
304s, which must carry the ``Vary`` and the ETag the compressed page had (RFC 9110, section
15.4.5). Static files never reach it: WhiteNoise, before it, serves its own gzip and Brotli
copies.

Responses whose content is compressed already (images, PDFs, ZIPs and EPUBs: the media
library's files, the books) are sent as they are: gzip would cost time and save nothing.
"""

from django.conf import settings
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip
from django.utils.cache import patch_vary_headers

__all__ = ["PublicGZipMiddleware"]

COMPRESSED_TYPES = ("image/", "application/pdf", "application/zip", "application/epub+zip")


class PublicGZipMiddleware(GZipMiddleware):
    """Compress responses to requests without a session cookie, as ``GZipMiddleware`` does.

    ``GZipMiddleware`` compresses a response of 200 bytes or more for a request that accepts
    gzip, adds ``Accept-Encoding`` to its ``Vary`` and weakens its ETag (``W/"..."``, as a
    compressed body is not the same bytes: RFC 9110, section 8.8.1). ``If-None-Match`` is
    compared weakly (``django.utils.cache.get_conditional_response``), so a browser sending
    back the weak ETag still gets its 304. A 304 has no body to compress, so it gets here the
    ``Vary`` and the weak ETag of the page it stands for.

    Args:
        get_response: the next middleware, as Django passes it.
    """

    def process_response(self, request, response):
        """Return ``response`` compressed, or as it is for a signed-in user's request or a
        content compressed already."""
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            return response
        if response.get("Content-Type", "").startswith(COMPRESSED_TYPES):
            return response
        if response.status_code == 304:
            patch_vary_headers(response, ("Accept-Encoding",))
            etag = response.get("ETag", "")
            if etag.startswith('"') and re_accepts_gzip.search(
                request.META.get("HTTP_ACCEPT_ENCODING", "")
            ):
                response.headers["ETag"] = f"W/{etag}"
            return response
        return super().process_response(request, response)
