"""Exercise 12: fall back to the next provider, but never after output has begun.

`fallback_call(providers, messages, ...)` tries each provider's `call` in order. If one
raises before it has sent any text delta, the next one gets the turn: the learner saw
nothing, so nothing is lost. If it raises *after* a delta, re-raise: a second answer
would repeat, or contradict, what is already on the screen. If all fail, raise
ProviderError naming every failure.
"""

from shared.providers import Reply


def fallback_call(providers: list, messages: list[dict], system: str = "", tools=(),
                  on_text_delta=None) -> Reply:
    """The first provider's reply that does not fail before its first text delta."""
    # TODO: wrap on_text_delta to notice the first delta; try each provider's call
    raise NotImplementedError("exercise 12: FallbackProvider.call")
