"""Providers: one contract (`stream`, `call`), several models behind it.

    from shared.providers import get_provider
    provider = get_provider()          # --provider / TAO_PROVIDER, else a key, else offline

SDK-backed providers import their SDK only when built, so the offline path stays fast.
"""

from __future__ import annotations

import os

from .base import Divergence, Options, Provider, ProviderError, Reasoning, Reply, Tool, ToolCall
from .defaults import DEFAULT_MODELS, KEY_VARS, OLLAMA_BASE_URL

# the stand-in models, imported on first use (`from shared.providers import ScriptedProvider`
# works as ever): a stage that talks to a real model never loads them
LAZY = {"OfflineProvider": ".offline", "ScriptedProvider": ".scripted",
        "FallbackProvider": ".fallback"}

PROVIDERS = ("anthropic", "openai", "ollama", "local", "offline")

__all__ = [
    "DEFAULT_MODELS", "Divergence", "KEY_VARS", "OLLAMA_BASE_URL", "PROVIDERS", "FallbackProvider",
    "OfflineProvider", "Options", "Provider", "ProviderError", "Reasoning",
    "Reply", "ScriptedProvider", "Tool", "ToolCall", "build_provider",
    "choose_provider", "get_provider",
]


def __getattr__(name: str):
    """A stand-in model's class, imported the first time it is asked for."""
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(LAZY[name], __name__), name)


def choose_provider(name: str | None = None, env=None) -> tuple[str, str]:
    """(provider name, why it was chosen): the flag, TAO_PROVIDER, a key, else offline."""
    env = os.environ if env is None else env
    if name:
        return name, "chosen with --provider"
    if env.get("TAO_PROVIDER"):
        return env["TAO_PROVIDER"], "chosen with TAO_PROVIDER"
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic", "ANTHROPIC_API_KEY is set"
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        which = "OPENAI_API_KEY" if env.get("OPENAI_API_KEY") else "OPENAI_BASE_URL"
        return "openai", f"{which} is set"
    return "offline", "no API key is set"


def build_provider(name: str, model: str | None = None, **kwargs) -> Provider:
    """Build the named provider; a clear ProviderError for a bad name or a missing key."""
    if name.startswith("replay:"):  # a recording answers, offline (shared/providers/replay.py)
        from .replay import ReplayProvider

        return ReplayProvider.from_recording(name.removeprefix("replay:"))
    name = name.strip().lower()
    if name == "anthropic":
        from .anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, **kwargs)
    if name == "openai":
        from .openai_provider import OpenAIProvider

        return OpenAIProvider(model, **kwargs)
    if name == "ollama":
        from .openai_provider import ollama

        return ollama(model, **kwargs)
    if name == "local":  # llama.cpp in this process: the optional extra `local`
        from .local import LocalProvider

        return LocalProvider(model, **kwargs)
    if name == "offline":
        from .offline import OfflineProvider

        return OfflineProvider(model, **kwargs)
    if name == "scripted":  # replays TAO_SCRIPT: how the tests drive a stage's process
        from .scripted import ScriptedProvider

        return ScriptedProvider.from_file(os.environ.get("TAO_SCRIPT", ""))
    raise ProviderError(f"unknown provider {name!r}: choose one of {', '.join(PROVIDERS)}, "
                        "or replay:FILE")


def get_provider(name: str | None = None, model: str | None = None, **kwargs) -> Provider:
    """The provider `name` (else TAO_PROVIDER, a key, offline) for `model` (else
    TAO_MODEL). It prints nothing and shows nothing: a stage's `open_session`
    (shared/stage_main.py) announces it and connects it to the screen."""
    name, _ = choose_provider(name)
    return build_provider(name, model or os.environ.get("TAO_MODEL") or None, **kwargs)
