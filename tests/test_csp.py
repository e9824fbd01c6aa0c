"""The Content-Security-Policy header built once per process (wiki/csp.py): the same bytes
django-csp's own middleware gives, by the same rules."""

from unittest import mock

import pytest
from csp.constants import NONCE
from csp.decorators import csp_exempt, csp_update
from csp.exceptions import CSPNonceError
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory

from wiki import csp
from wiki.csp import PolicyOnceMiddleware, policies


def both(view, path="/area-a/", **request_headers):
    """Return the responses of django-csp's middleware and of ours around ``view``, each
    for a request of its own to ``path``, and the two requests."""
    answers = []
    for middleware in (CSPMiddleware, PolicyOnceMiddleware):
        request = RequestFactory().get(path, **request_headers)
        answers.append((middleware(view)(request), request))
    return answers


def page(request):
    """A view that answers as the wiki's pages do, changing nothing of the policy."""
    return HttpResponse("<p>page</p>")


def headers(response):
    """Return the response's policy headers."""
    names = ["Content-Security-Policy", "Content-Security-Policy-Report-Only"]
    return {name: response.headers.get(name) for name in names}


@pytest.fixture(autouse=True)
def built_anew():
    """Start each test with the policies not yet built."""
    policies.cache_clear()
    yield
    policies.cache_clear()


def test_policy_header_is_django_csp_s_byte_for_byte(settings):
    (theirs, _), (ours, _) = both(page)
    assert ours["Content-Security-Policy"] == theirs["Content-Security-Policy"]
    assert headers(ours) == headers(theirs)
    assert sorted(ours["Content-Security-Policy"].split("; ")) == [
        "base-uri 'none'",
        "connect-src 'self'",
        "default-src 'self'",
        "font-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "img-src 'self' data:",
        "object-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
    ]


def test_policy_is_built_once_per_process():
    with mock.patch.object(csp, "build_policy", wraps=csp.build_policy) as build:
        middleware = PolicyOnceMiddleware(page)
        first = middleware(RequestFactory().get("/"))
        again = [middleware(RequestFactory().get("/")) for _ in range(3)]
    assert build.call_count == 2  # the enforced policy and the report-only one, once
    assert [headers(each) for each in again] == [headers(first)] * 3


def test_report_only_policy_and_excluded_prefixes_follow_the_settings(settings):
    settings.CONTENT_SECURITY_POLICY = {
        **settings.CONTENT_SECURITY_POLICY,
        "EXCLUDE_URL_PREFIXES": ["/admin/"],
    }
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {
        "DIRECTIVES": {"default-src": ["'none'"], "report-uri": "/csp-report/"}
    }
    for path in ["/area-a/", "/admin/login/"]:
        (theirs, _), (ours, _) = both(page, path)
        assert headers(ours) == headers(theirs)
    assert headers(both(page, "/admin/login/")[1][0]) == {
        "Content-Security-Policy": None,
        "Content-Security-Policy-Report-Only": "default-src 'none'; report-uri /csp-report/",
    }


@pytest.mark.parametrize(
    "view",
    [
        csp_exempt()(page),
        csp_exempt(REPORT_ONLY=True)(page),
        csp_update({"img-src": ["https://images.example"]})(page),
        lambda request: HttpResponse(headers={"Content-Security-Policy": "default-src 'none'"}),
    ],
    ids=["exempt", "exempt-report-only", "updated", "own-header"],
)
def test_responses_django_csp_treats_apart_get_its_headers(view):
    (theirs, _), (ours, _) = both(view)
    assert headers(ours) == headers(theirs)


def test_updated_policy_is_built_for_its_response():
    (ours, _) = both(csp_update({"img-src": ["https://images.example"]})(page))[1]
    assert "img-src 'self' data: https://images.example" in ours["Content-Security-Policy"]


@pytest.mark.parametrize("status", [404, 500])
def test_debug_pages_get_no_policy_as_with_django_csp(settings, status):
    settings.DEBUG = True
    (theirs, _), (ours, _) = both(lambda request: HttpResponse(status=status))
    assert (
        headers(ours)
        == headers(theirs)
        == {
            "Content-Security-Policy": None,
            "Content-Security-Policy-Report-Only": None,
        }
    )


def test_a_nonce_used_is_in_the_policy_and_is_an_error_afterwards(settings):
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"script-src": ["'self'", NONCE]}}

    def with_nonce(request):
        return HttpResponse(f"<script nonce={request.csp_nonce}></script>")

    for response, request in both(with_nonce):
        nonce = str(request.csp_nonce)
        assert sorted(response["Content-Security-Policy"].split("; ")) == [
            "default-src 'self'",
            f"script-src 'self' 'nonce-{nonce}'",
        ]
    for response, request in both(page):
        assert sorted(response["Content-Security-Policy"].split("; ")) == [
            "default-src 'self'",
            "script-src 'self'",
        ]
        with pytest.raises(CSPNonceError):
            str(request.csp_nonce)
