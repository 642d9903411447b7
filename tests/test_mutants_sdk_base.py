"""The SDK providers' shared half (shared/providers/sdk_base.py), the parts that need no
SDK: what the surviving mutants of a sampled benchmarks/mutation.py run asked. Which
port does a URL without one name? Is each HTTP status reported as itself? What does an
error with no message say?"""

from __future__ import annotations

import pytest

from shared.providers.sdk_base import STATUS_FAILURES, endpoint, server_message


@pytest.mark.parametrize(("url", "shown"), [
    ("http://localhost/v1", "http://localhost:80"),
    ("https://user:secret@api.example.org/v1?key=k", "https://api.example.org:443"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"),
    ("http://[::1]:11434", "http://[::1]:11434"),
    ("https://api.anthropic.com", "https://api.anthropic.com:443"),
    ("http://user:pass@localhost:11434/v1?key=abc", "http://localhost:11434"),
    ("http://[::1]:8080/v1", "http://[::1]:8080"),
    ("http://host:notaport/v1", "http://host"),
])
def test_an_endpoint_is_scheme_host_and_port_only_with_the_schemes_own_port(url, shown):
    assert endpoint(url) == shown


def test_each_http_status_is_reported_as_itself():
    # the statuses the two APIs document for an overloaded or failing server
    assert {429, 500, 502, 503, 504, 529} <= STATUS_FAILURES.keys()
    for status, (what, hint) in STATUS_FAILURES.items():
        assert str(status) in what and hint


def test_an_error_with_no_message_is_named_by_its_kind():
    assert server_message(TimeoutError()) == "TimeoutError"
    assert server_message(ValueError("the body was cut")) == "the body was cut"
