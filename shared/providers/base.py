"""The provider contract every stage talks to, and the records it trades in.

Messages use one provider-neutral shape (flat dicts, OpenAI-like):

    {"role": "user", "content": "..."}
    {"role": "assistant", "content": "...", "tool_calls": [{"id", "name", "args"}]}
    {"role": "tool", "tool_call_id": "...", "name": "...", "content": "..."}

Each SDK-backed provider translates them into its own wire format and back.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..printable import visible


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: JSON Schema for its arguments, `run(args) -> str`."""

    name: str
    description: str
    schema: dict
    run: Callable[[dict], Any]


@dataclass
class ToolCall:
    """One tool call the model asked for; `id` threads the result back to it."""

    id: str
    name: str
    args: dict
    error: str = ""  # set when the arguments arrived broken: the loop reports it as an observation
    sent: str = ""  # with an error: the arguments as the model sent them (the trace shows it)


@dataclass
class Reply:
    """One assembled model turn."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: str = "end_turn"
    usage: dict = field(default_factory=dict)  # {"input_tokens": n, "output_tokens": n}
    reasoning: str = ""  # what a reasoning model thought aloud: never part of `text`

    def assistant_message(self) -> dict:
        """The reply as an internal-format assistant message, ready to append."""
        message: dict = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "name": c.name, "args": c.args} for c in self.tool_calls
            ]
        return message


@dataclass(frozen=True)
class Options:
    """What one call asks for besides the conversation; each SDK provider puts it in its
    API's own words (Anthropic: `max_tokens`, `tool_choice`, `stop_sequences`)."""

    max_tokens: int | None = None  # room for this reply; None: the provider's own limit
    tool_choice: str | None = None  # "auto", "none", "required", or a tool's name
    stop: tuple[str, ...] = ()  # the reply ends before the first of these strings

    def __post_init__(self):
        if isinstance(self.stop, str):  # one string given: one stop sequence, not letters
            object.__setattr__(self, "stop", (self.stop,))
        else:
            object.__setattr__(self, "stop", tuple(self.stop))


NO_OPTIONS = Options()


class Reasoning(str):
    """A reasoning delta yielded by `turn()`: shown as thinking, never part of the answer."""


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_args(raw: str) -> tuple[dict, str]:
    """Decode streamed tool arguments: (args, "") or ({}, why they were refused)."""
    if not raw.strip():
        return {}, ""  # a call with no arguments streams no JSON at all
    try:
        # NaN and Infinity are not JSON: the API would refuse them when sent back
        args = json.loads(raw, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        return {}, f"the arguments were not valid JSON ({exc.msg}): {raw[:200]!r}"
    except RecursionError:
        return {}, f"the arguments are nested too deeply to read: {raw[:200]!r}"
    except ValueError as exc:  # NaN/Infinity, or an integer past Python's digit limit
        return {}, f"the arguments hold a number that cannot be used ({exc}): {raw[:200]!r}"
    if not isinstance(args, dict):
        return {}, f"the arguments must be a JSON object, got: {raw[:200]!r}"
    return args, ""


def tool_calls_from(slots: Iterable[dict]) -> list[ToolCall]:
    """ToolCalls from streamed slots {"id", "name", "json"}, in the order given."""
    calls = []
    for slot in slots:
        args, error = parse_args(slot["json"])
        calls.append(ToolCall(slot["id"], slot["name"], args, error,
                              slot["json"] if error else ""))
    return calls


class ProviderError(Exception):
    """A failure a learner can act on, already phrased as one line (no key inside).

    `partial` holds the text already streamed when a reply broke off mid-way: the
    screen shows it as cut off, and it never joins the history."""

    def __init__(self, message: str, partial: str = ""):
        super().__init__(message)
        self.partial = partial


TextCallback = Callable[[str], None] | None


class Divergence(Exception):
    """The stage sent a request the recording does not hold: the replay cannot go on, and
    the session ends (`stage_main.run` says so in one line, exit 1). Not a ProviderError on
    purpose: a stage that shows a failed call and reads the next line would go on
    answering from a recording that no longer fits."""


class RecordError(Exception):
    """--record's file can no longer be written (a full disk, say): the session ends, in
    one line, with the calls written so far still a valid recording. Not a ProviderError,
    for the reason a Divergence is not one: a session that went on would go unrecorded."""


class Provider:
    """Base class: one model behind two entry points.

    `stream` yields text deltas (stages 01-06); `call` runs one turn with tools and
    returns a `Reply`, sending text deltas to `on_text_delta` as they arrive (stage 07).
    Both drive `turn()` and check its contract in one place, `_deltas`.
    """

    name = "provider"
    model = ""
    # The hooks: plain attributes, set by whoever shows this provider's work (a stage's
    # `open_session`, a test). None means nobody listens.
    # called with each finished Reply: its tokens and stop reason reach the trace this way
    on_reply: Callable[[Reply], None] | None = None
    # where retry notes go; None writes them to stderr as one `note:` line
    on_notice: Callable[[str], None] | None = None
    # called with (kind, data) for each event an SDK-backed provider reads off the wire
    # (Anthropic: the event's type; OpenAI: "chunk"); `--show-wire` listens here
    on_wire_event: Callable[[str, dict], None] | None = None

    def stream(self, messages: list[dict], system: str = "", *,
               stop: Iterable[str] = ()) -> Iterator[str]:
        """Yield the reply's text deltas as they arrive; it ends before any `stop` string."""
        options = Options(stop=stop) if stop else NO_OPTIONS
        yield from self._deltas(self.turn(messages, system, (), options), None)

    def call(
        self,
        messages: list[dict],
        system: str = "",
        tools: Iterable[Tool] = (),
        on_text_delta: TextCallback = None,
        on_reasoning_delta: TextCallback = None,
        *,
        max_tokens: int | None = None,
        tool_choice: str | None = None,
        stop: Iterable[str] = (),
    ) -> Reply:
        """Run one model turn and return the Reply; text deltas go to `on_text_delta` and
        reasoning deltas to `on_reasoning_delta` as they arrive. `max_tokens` gives this
        reply more (or less) room, `tool_choice` forces or forbids a call ("required",
        a tool's name, "none"), and the reply ends before any `stop` string."""
        options = Options(max_tokens, tool_choice, stop)
        deltas = self._deltas(self.turn(messages, system, tuple(tools), options),
                              on_reasoning_delta)
        while True:
            try:
                text = next(deltas)
            except StopIteration as done:
                return done.value
            if on_text_delta is not None:
                on_text_delta(text)

    def _deltas(self, items: Iterator, on_reasoning: TextCallback) -> Generator[str, None, Reply]:
        """The turn contract, checked once: text deltas (str), `Reasoning` deltas, and
        exactly one Reply, last. Yields the text, returns the Reply."""
        shown: list[str] = []
        try:
            for item in items:
                if type(item) is str:
                    shown.append(item)
                    yield item
                elif type(item) is Reasoning:
                    if on_reasoning is not None:
                        on_reasoning(item)
                elif type(item) is Reply:
                    if self.on_reply is not None:
                        self.on_reply(item)
                    return item
                else:
                    raise ProviderError(f"{self.name}: turn() yielded {type(item).__name__}, "
                                        "not text or a Reply")
        except ProviderError as exc:
            exc.partial = exc.partial or "".join(shown)
            raise
        raise ProviderError(f"{self.name}: the reply ended without a result",
                            "".join(shown))

    def turn(
        self, messages: list[dict], system: str, tools: tuple[Tool, ...],
        options: Options = NO_OPTIONS,
    ) -> Iterator[str | Reply]:
        """The one method a provider writes: yield text deltas (and `Reasoning` deltas),
        then the Reply last, honouring `options` as far as the model can."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line for the screen: which model answers."""
        return f"{self.name} ({self.model})" if self.model else self.name

    def notice(self, text: str) -> None:
        """Pass a note (a retry, say) to `on_notice`, or write it as one line to stderr."""
        if self.on_notice is not None:
            self.on_notice(text)
        else:  # no trace on screen to show it
            print(f"note: {visible(text)}", file=sys.stderr, flush=True)


class Wrapper(Provider):
    """A provider around another one (the wire view, a recorder): what it does not do
    itself, the wrapped provider does, and it names itself as that provider."""

    def __init__(self, provider: Provider):
        self.provider = provider

    name = property(lambda self: self.provider.name)
    model = property(lambda self: self.provider.model)

    def __getattr__(self, attr):
        if attr == "provider":  # not set yet: no forwarding loop while unpickling
            raise AttributeError(attr)
        return getattr(self.provider, attr)

    def describe(self) -> str:
        """The wrapped provider's own line."""
        return self.provider.describe()


# OpenAI and Anthropic keys start sk-: one not glued to a letter or digit ("token_sk-…"
# too), or, glued to anything, one with a key's own prefix (sk-ant-, sk-proj-...); a word
# like "risk-averse" stays
_KEY_LIKE = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-*]{6,}"
                       r"|sk-(?:ant|proj|svcacct|admin)-[A-Za-z0-9_\-*]{6,}")


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove API keys (the given ones, and anything shaped like one) from text."""
    for secret in secrets:
        if secret and len(secret) >= 8:  # real keys are long; never mangle short words
            text = text.replace(secret, "[key hidden]")
    return _KEY_LIKE.sub("[key hidden]", text)
