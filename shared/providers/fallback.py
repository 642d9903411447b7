"""Try providers in order; fall back only while nothing has reached the screen."""

from __future__ import annotations

from collections.abc import Iterator

from .base import NO_OPTIONS, Options, Provider, ProviderError, Reply, Tool


class FallbackProvider(Provider):
    """The next provider gets the turn only if the previous one failed before its first
    text delta. After a delta, the error surfaces: output is never shown twice."""

    name = "fallback"

    def __init__(self, providers: list[Provider]):
        if not providers:
            raise ProviderError("fallback: give it at least one provider")
        self.providers = list(providers)
        self.model = self.providers[0].model

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every provider's secrets (see `SDKProvider.secrets`): any of them may answer."""
        return tuple(dict.fromkeys(s for p in self.providers
                                   for s in getattr(p, "secrets", ())))

    def describe(self) -> str:
        """Every provider in the order they are tried."""
        return " -> ".join(p.describe() for p in self.providers)

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Each provider's turn in order, until one succeeds or one has shown output."""
        failures = []
        for provider in self.providers:
            if provider.on_notice is None:  # retry notes reach whoever listens to us
                provider.on_notice = self.notice
            started = False
            try:
                for item in provider.turn(messages, system, tools, options):
                    if isinstance(item, str):  # a text or reasoning delta is on screen
                        started = True
                    yield item
                return
            except Exception as exc:
                if started:
                    raise  # text is already out: a second answer would duplicate it
                failures.append(str(exc))
        raise ProviderError("every provider failed: " + "; ".join(failures))
