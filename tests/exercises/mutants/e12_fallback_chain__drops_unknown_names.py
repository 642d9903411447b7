"""Wrong on purpose (e12): unknown names are skipped without a word."""

import os

from shared.providers import FallbackProvider, ProviderError, build_provider
from shared.providers import get_provider as plain_get_provider


def get_provider(name: str | None = None, model: str | None = None):
    """A FallbackProvider from TAO_FALLBACK, or the usual provider."""
    chain = os.environ.get("TAO_FALLBACK")
    if name or chain is None:
        return plain_get_provider(name, model)  # an explicit choice wins over the chain
    names = [part.strip() for part in chain.split(",") if part.strip()]
    if not names:
        raise ProviderError(f"TAO_FALLBACK={chain!r} names no provider: try "
                            "TAO_FALLBACK=\"anthropic, offline\"")
    # build_provider raises a ProviderError naming an unknown provider or a missing key
    providers = [build_provider(each, model) for each in names
                 if each in ("anthropic", "openai", "ollama", "offline", "scripted")]
    return providers[0] if len(providers) == 1 else FallbackProvider(providers)


if __name__ == "__main__":  # the "Try it" above
    from shared.cli.repo import load_stage
    from shared.trace import Trace

    model = get_provider()
    print(f"model: {model.describe()}")
    load_stage("07", "main").chat(model, Trace(), load_stage("07", "loop").build_agent_system())
