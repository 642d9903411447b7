"""`tao doctor` names the server by scheme, host and port only: never a password or a query."""

from __future__ import annotations

import pytest
from fake_api import FakeAPI
from helpers import run_tao

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)


@pytest.mark.parametrize("flavour,provider,url_var", [
    ("openai", "openai", "OPENAI_BASE_URL"),
    ("anthropic", "anthropic", "ANTHROPIC_BASE_URL"),
])
def test_doctor_shows_the_endpoint_without_credentials(flavour, provider, url_var):
    with FakeAPI(flavour) as api:
        api.models = ["m-1"]
        host = api.base_url.split("//", 1)[1]  # 127.0.0.1:PORT/v1
        secret_url = f"http://tao-user:pa55word-xyz@{host}?token=qs-secret-789"
        done = run_tao("doctor", "--provider", provider, "--model", "m-1",
                       **{url_var: secret_url, "OPENAI_API_KEY": "sk-doc-key-000111",
                          "ANTHROPIC_API_KEY": "sk-doc-key-000111"})
    out = done.stdout + done.stderr
    endpoint = "http://" + host.split("/")[0]
    assert f"server: {endpoint} " in out, out
    for secret in ("pa55word-xyz", "tao-user", "qs-secret-789", "sk-doc-key"):
        assert secret not in out, f"doctor printed {secret!r}:\n{out}"
