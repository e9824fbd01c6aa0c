"""Where webhooks may be sent (chapters.webhooks.addresses): private, loopback, link-local
and reserved addresses refused with a clear message unless a setting allows their network;
a webhook's events known and chosen. Sending to a name that resolves elsewhere later is
tests/test_webhooks.py's."""

import pytest
from django.core.exceptions import ValidationError

from chapters.models import Webhook


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://127.0.0.1:8000/hook", "127.0.0.1"),
        ("http://10.1.2.3/hook", "10.1.2.3"),
        ("http://192.168.0.10/hook", "192.168.0.10"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://[::1]/hook", "::1"),
        ("http://[::ffff:127.0.0.1]/hook", "::ffff:127.0.0.1"),
        ("http://0.0.0.0/hook", "0.0.0.0"),
        ("http://240.0.0.1/hook", "240.0.0.1"),
    ],
)
def test_webhook_private_address_refused_at_registration(url, address):
    with pytest.raises(ValidationError) as refused:
        Webhook(name="Inside", url=url, events=["page.changed"]).clean_fields()
    assert refused.value.message_dict == {
        "url": [
            f"The host {address} resolves to {address}, a private, loopback, link-local or "
            "reserved address: webhooks are not sent there unless WIKI_WEBHOOK_ALLOW_PRIVATE "
            "allows its network."
        ]
    }


def test_webhook_url_other_refusals():
    def refusal(url):
        with pytest.raises(ValidationError) as refused:
            Webhook(name="X", url=url, events=["page.changed"]).clean_fields()
        return refused.value.message_dict["url"]

    assert refusal("ftp://example.org/") == ["A webhook's URL must start with http:// or https://."]
    assert refusal("http://user:pw@93.184.215.14/") == [
        "A webhook's URL may not carry a user name or password: its secret signs it."
    ]
    assert refusal("http://no-such-host.invalid/")[0].startswith(
        "The host no-such-host.invalid could not be resolved ("
    )


def test_webhook_public_address_and_allowed_network_accepted(settings):
    Webhook(name="Out", url="https://93.184.215.14/hook", events=["page.changed"]).full_clean()
    settings.WIKI_WEBHOOK_ALLOW_PRIVATE = ["10.1.0.0/16"]
    Webhook(name="In", url="http://10.1.2.3/hook", events=["page.changed"]).full_clean()
    with pytest.raises(ValidationError):
        Webhook(name="Not", url="http://10.2.0.1/hook", events=["page.changed"]).full_clean()


def test_webhook_events_must_be_known_and_chosen():
    with pytest.raises(ValidationError) as refused:
        Webhook(name="X", url="https://93.184.215.14/", events=["page.eaten"]).clean()
    assert refused.value.message_dict == {"events": ["Unknown events: page.eaten."]}
    with pytest.raises(ValidationError) as refused:
        Webhook(name="X", url="https://93.184.215.14/", events=[]).clean()
    assert refused.value.message_dict == {"events": ["Choose at least one event."]}
