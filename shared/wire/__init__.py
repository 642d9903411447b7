"""`--show-wire`: what each model call really sends and receives.

    provider = WireTap(provider, console, "anthropic")   # what --show-wire does

Around every model call, `WireTap` prints the exact JSON request body (built by the
providers' own `request()`, so it is what the SDK sends; the API key is never in it),
then the response: the streamed events in order, consecutive deltas folded with a
count, the tool calls assembled from them, the stop reason and the usage. With the
offline model or the scripted double, nothing goes over a wire: the body is the one
tao's Anthropic (or OpenAI) provider would send, and the events are synthesized in
that API's documented shapes, and labelled so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console

from ..providers.base import NO_OPTIONS, Options, Provider, ProviderError, Reply, Tool, Wrapper
from ..providers.defaults import DEFAULT_MODELS
from ..trace import make_console
from .body import FLAVOURS, body_of, endpoint, flavour_of, sdk_body, sdk_provider, would_send
from .events import WireLog, synthesize
from .render import elide, show_request, show_response

__all__ = ["FLAVOURS", "SHOW_WIRE_VALUES", "WireLog", "WireTap", "elide", "flavour_of",
           "sdk_body", "synthesize", "wire_flavour", "would_send"]

# TAO_SHOW_WIRE values: off, or which API's shapes to show for a model with no wire
SHOW_WIRE_VALUES = {"": None, "0": None, "1": "anthropic", "anthropic": "anthropic",
                    "openai": "openai"}


def wire_flavour(value: str | None) -> str | None:
    """The flavour a TAO_SHOW_WIRE / --show-wire value asks for (None: off)."""
    key = (value or "").strip().lower()
    if key not in SHOW_WIRE_VALUES:
        allowed = ", ".join(repr(v) for v in SHOW_WIRE_VALUES)
        raise ProviderError(f"TAO_SHOW_WIRE={value!r} is not one of {allowed}")
    return SHOW_WIRE_VALUES[key]


class WireTap(Wrapper):
    """A provider that shows each call's request body and response events, then the
    wrapped provider's text and Reply, unchanged. Everything else is forwarded."""

    def __init__(self, provider: Provider, console: Console | None = None,
                 flavour: str = "anthropic"):
        if flavour not in FLAVOURS:
            raise ProviderError(f"show-wire: unknown API {flavour!r}: choose one of "
                                f"{', '.join(FLAVOURS)}")
        super().__init__(provider)
        # where the wire is shown: a stage gives its trace's, so a saved trace holds it too
        self.console = console or make_console()
        self.sdk = sdk_provider(provider)  # None: no wire of its own, show `flavour`'s
        self.flavour = flavour_of(provider) or flavour

    def stream(self, messages: list[dict], system: str = "", *, stop=()) -> Iterator[str]:
        """Show the request at once, before the caller prints a label for the reply."""
        self._show_request(messages, system, (), Options(stop=stop))
        self._request_shown = True  # the turn this stream runs shows no second copy
        return super().stream(messages, system, stop=stop)

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """The wrapped turn, with the request shown before it and the response after."""
        if not vars(self).pop("_request_shown", False):
            self._show_request(messages, system, tools, options)
        log, reply, deltas = WireLog(), None, []
        try:
            with _listening(self.provider, log.record):
                for item in self.provider.turn(messages, system, tools, options):
                    if isinstance(item, str):
                        deltas.append(item)
                        yield item
                    else:
                        reply = item
        except Exception as exc:
            self._show_response(log, None, deltas, broke=str(exc))
            raise
        self._show_response(log, reply, deltas)
        yield reply

    def _show_request(self, messages, system, tools, options: Options) -> None:
        """Build the body for this turn and print it."""
        where = str(self.sdk._client.base_url) if self.sdk is not None else None  # as used
        title = f"request · POST {endpoint(self.flavour, where)}"
        if self.sdk is not None:
            body = sdk_body(self.sdk, messages, system, tools, options)
            note = "the body as sent; the API key travels in a header and is never shown"
        elif getattr(self.provider, "in_process", False):  # a real model in this process
            local = self.provider
            body = body_of(local.with_options(local.request(messages, system, tools), options))
            title = f"request · {local.name} model, in this process (no network)"
            note = "the request as the model gets it; the prompt it becomes comes back first"
        else:
            body = would_send(self.flavour, messages, system, tools, options)
            note = (f"as tao's {self.flavour} provider would send it; nothing is sent "
                    f"({self.provider.name} model)")
        examples = sum(1 for m in messages if isinstance(m, dict) and m.get("example"))
        if examples:  # nothing in the body tells them apart: say which they are
            note += (f"; the first {examples} conversation messages are worked examples "
                     "(--examples), ordinary messages to the model")
        show_request(self.console, body, title, note, self._secrets())

    def _show_response(self, log: WireLog, reply, deltas: list[str], broke: str = "") -> None:
        """Print the events (synthesized from the Reply and its deltas if none came)."""
        if deltas:
            self.console.print()  # end the line the streamed text left open
        note = f"{len(log.events)} events as they arrived"
        if not log.events and reply is not None:
            model = self.sdk.model if self.sdk else DEFAULT_MODELS[self.flavour]
            for kind, data in synthesize(self.flavour, reply, model, deltas):
                log.record(kind, data)
            note = f"synthesized from the reply, as the {self.flavour} API would stream it"
        footer = f"the call failed: {broke}" if broke else ""
        if reply is not None and self.sdk is None and reply.usage:
            footer = f"usage comes from the {self.provider.name} model, not from an API"
        show_response(self.console, log.lines(), "response", note, reply, footer,
                      self._secrets())

    def _secrets(self) -> list[str | None]:
        """The keys to hide wherever they might show up."""
        return list(getattr(self.provider, "secrets", None) or ())


_MISSING = object()


@contextmanager
def _listening(provider, record):
    """Point `on_wire_event` of `provider` (and a fallback's providers) at `record`."""
    targets = [provider, *getattr(provider, "providers", ())]
    saved = [(target, vars(target).get("on_wire_event", _MISSING)) for target in targets]
    for target in targets:
        target.on_wire_event = record
    try:
        yield
    finally:
        for target, old in saved:
            if old is _MISSING:
                vars(target).pop("on_wire_event", None)
            else:
                target.on_wire_event = old
