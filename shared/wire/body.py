"""The JSON body each API gets for a turn, built by the providers' own `request()`.

An SDK provider's body is its `request(...)` with the few `create()` options that do
not travel in the body taken out. For a provider with no wire of its own (the offline
model, the scripted double) the body is what tao's Anthropic or OpenAI provider *would*
send: their real `request()` runs on a stand-in that carries the settings but no SDK
client, so nothing is imported and nothing is sent.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ..providers.anthropic_provider import AnthropicProvider
from ..providers.base import NO_OPTIONS, Options
from ..providers.defaults import DEFAULT_MAX_TOKENS, DEFAULT_MODELS
from ..providers.openai_provider import OpenAIProvider

FLAVOURS = {"anthropic": AnthropicProvider, "openai": OpenAIProvider}
# where each SDK posts the body: the path it appends to its base URL, and its default base
PATHS = {"anthropic": "/v1/messages", "openai": "/chat/completions"}
DEFAULT_BASES = {"anthropic": "", "openai": "/v1"}
# create() keyword arguments that go into headers, the query or the client, not the body
NOT_IN_BODY = ("extra_headers", "extra_query", "timeout")


def endpoint(flavour: str, base_url: str | None = None) -> str:
    """The address the body is posted to: `/v1/messages`, or a server's own URL with no
    user or password in it and its query values hidden (they may be credentials)."""
    return shown_url(base_url or DEFAULT_BASES[flavour]).rstrip("/") + PATHS[flavour]


def shown_url(url: str) -> str:
    """`url` fit for a screen: `user:password@` left out, each query value hidden."""
    parts = urlsplit(str(url))
    host = parts.netloc.rpartition("@")[2]
    query = "&".join(f"{name}=[hidden]" for name, _ in parse_qsl(parts.query,
                                                                keep_blank_values=True))
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def sdk_provider(provider):
    """The SDK-backed provider that speaks for `provider` (a fallback's first), or None."""
    first = (getattr(provider, "providers", None) or [provider])[0]
    return first if isinstance(first, tuple(FLAVOURS.values())) else None


def flavour_of(provider) -> str | None:
    """'anthropic' or 'openai' when `provider` has a wire of its own, else None."""
    sdk = sdk_provider(provider)
    if sdk is None:
        return None
    return next(name for name, cls in FLAVOURS.items() if isinstance(sdk, cls))


def sdk_body(provider, messages: list[dict], system: str = "", tools=(),
             options: Options = NO_OPTIONS) -> dict:
    """The body an SDK provider sends for this turn: its own request(), as JSON."""
    sdk = sdk_provider(provider)
    return body_of(sdk.with_options(sdk.request(messages, system, tools), options))


def would_send(flavour: str, messages: list[dict], system: str = "", tools=(),
               options: Options = NO_OPTIONS, *, model: str | None = None,
               max_tokens: int = DEFAULT_MAX_TOKENS) -> dict:
    """The body tao's `flavour` provider would send, from its real request() on a stand-in."""
    cls = FLAVOURS[flavour]
    stand_in = object.__new__(cls)  # the settings request() reads, and no client
    stand_in.name = flavour
    stand_in.model = model or DEFAULT_MODELS[flavour]
    stand_in.max_tokens = max_tokens
    stand_in.base_url = None
    stand_in.include_usage = True  # OpenAI: asks for usage in a last chunk, as tao does
    stand_in.takes_stop = True  # OpenAI: sends stop sequences, as tao does until refused
    return body_of(stand_in.with_options(stand_in.request(messages, system, tools), options))


def body_of(params: dict) -> dict:
    """`create()` keyword arguments -> the JSON body the SDK sends for them."""
    body = {key: value for key, value in params.items()
            if key not in NOT_IN_BODY and key != "extra_body" and not _omitted(value)}
    body.update(params.get("extra_body") or {})  # the SDK merges these into the body
    return json.loads(json.dumps(body, default=str))  # what JSON carries: tuples are lists


def _omitted(value) -> bool:
    """Whether `value` is an SDK placeholder for "leave this key out" (NOT_GIVEN, omit)."""
    return type(value).__name__ in ("NotGiven", "Omit")
