"""Exercise 12 (stage 07): a fallback chain, chosen from the environment.

shared/providers/fallback.py has a FallbackProvider: it tries providers in order, and
moves on only while nothing has reached the screen. Nothing builds one yet. Write
`get_provider(name=None, model=None)`, a drop-in for shared.providers.get_provider:

- with no `name` and TAO_FALLBACK set (say `TAO_FALLBACK="ollama, offline"`), build
  each named provider in order with `build_provider(name, model)` and return a
  FallbackProvider over them (one name alone: just that provider). Names are separated
  by commas; spaces and empty pieces don't count. No name at all, or an unknown one,
  is a ProviderError that names it.
- otherwise (a `name` given, or no TAO_FALLBACK), return what
  shared.providers.get_provider(name, model) returns.

Try it: with no local server running, `TAO_FALLBACK="ollama, offline" uv run
exercises/e12_fallback_chain.py` is stage 07's chat on your chain. Ask for the time:
ollama cannot be reached, nothing has been shown yet, so the offline model answers.
"""

import os  # noqa: F401  (os.environ holds TAO_FALLBACK)

from shared.providers import FallbackProvider, ProviderError, build_provider  # noqa: F401
from shared.providers import get_provider as plain_get_provider  # noqa: F401


def get_provider(name: str | None = None, model: str | None = None):
    """A FallbackProvider from TAO_FALLBACK, or the usual provider."""
    # TODO: read os.environ.get("TAO_FALLBACK"); split it; build each; wrap them
    raise NotImplementedError("exercise 12: fallback chain")


if __name__ == "__main__":  # the "Try it" above
    from shared.trace import Trace
    from tao.repo import load_stage

    model = get_provider()
    print(f"model: {model.describe()}")
    load_stage("07", "main").chat(model, Trace(), load_stage("07", "loop").build_agent_system())
