"""Exercise 11 (stage 07): know a tool call is coming before its arguments arrive.

A user interface wants to show "calling wordcount…" the moment the model starts a
call, not after its (possibly long) arguments have streamed in. Write
`tool_call_starts(kind, event, seen)`: given one event of a provider's stream, as the
JSON object it is on the wire (a dict), return the names of the tool calls that
*start* in it (usually none, sometimes one).

    anthropic: an event whose "type" is "content_block_start" and whose
               "content_block" is a "tool_use" block (it carries the name)
    openai:    a chunk whose choices[0]["delta"]["tool_calls"] has an "index" not seen
               before: the name is in that first fragment of the call; later ones carry
               argument text (some servers repeat the id and name on every fragment,
               so only a new index starts a call); the last chunk has no choices

One reply may call the same tool several times: each call is a start of its own.
`seen` is a set you may use to remember indexes between events of one stream; each
stream comes with a new one.

`announce(provider, console)` below is already written: it listens on the provider's
`on_wire_event` hook (every event the provider reads, as a dict), runs each through
your function and shows `calling NAME…` with a spinner.

Try it: `uv run exercises/e11_tool_call_start.py`. With no key, it takes the offline
model's reply to three word counts, streams it in each API's events (the ones
`--show-wire` shows), and prints every start your function finds: three `calling
wordcount…` per API, each in the event before that call's arguments. With
ANTHROPIC_API_KEY, OPENAI_API_KEY or a local server (OPENAI_BASE_URL) set, it is stage
07's chat with the announcement: ask "how many words are in" a long paragraph and watch
the line appear while the arguments are still streaming.
"""

from shared.providers.anthropic_provider import AnthropicProvider


def tool_call_starts(kind: str, event: dict, seen: set) -> list[str]:
    """Names of the tool calls that start in this stream event."""
    # TODO: look at event["type"] / event["content_block"] (anthropic) or
    #       event["choices"][0]["delta"]["tool_calls"] (openai)
    raise NotImplementedError("exercise 11: tool-call start hook")


# ---- already written: the wiring that makes your hook visible (no need to change it)


def announce(provider, console) -> None:
    """Make `provider` show `calling NAME…` on `console` as each of its tool calls starts."""
    kind = "anthropic" if isinstance(provider, AnthropicProvider) else "openai"
    seen: set = set()
    spinner = []  # the spinner now turning, if any

    def stop_spinner() -> None:
        while spinner:
            spinner.pop().stop()

    def on_wire_event(event_kind: str, event: dict) -> None:
        for name in tool_call_starts(kind, event, seen):
            stop_spinner()
            console.print(f"calling {name}…", style="yellow")
            if console.is_terminal:
                spinner.append(console.status(f"{name}: arguments arriving…"))
                spinner[-1].start()

    turn = provider.turn

    def announced_turn(*args):
        seen.clear()  # indexes count from 0 again in every reply
        try:
            yield from turn(*args)
        finally:
            stop_spinner()

    provider.on_wire_event = on_wire_event  # this provider object only
    provider.turn = announced_turn


if __name__ == "__main__":  # the "Try it" above
    from shared.providers import OfflineProvider, get_provider
    from shared.providers.openai_provider import OpenAIProvider
    from shared.trace import Trace
    from shared.wire.events import synthesize
    from tao.repo import load_stage

    loop = load_stage("07", "loop")
    model = get_provider()
    if isinstance(model, AnthropicProvider | OpenAIProvider):  # a real model's events
        trace = Trace()
        announce(model, trace.console)
        load_stage("07", "main").chat(model, trace, loop.build_agent_system())
    else:  # no key: the offline model's reply, in the events each API would stream it in
        question = "How many words are in 'to be or not', in 'let it be' and in 'a b'?"
        reply = OfflineProvider().call([{"role": "user", "content": question}],
                                       loop.build_agent_system(), loop.TOOLS)
        print(f"you> {question}\nmodel> {reply.text} (and {len(reply.tool_calls)} calls)")
        for kind in ("anthropic", "openai"):
            events = [data for name, data in synthesize(kind, reply, "offline")
                      if name != "[DONE]"]  # the end marker reaches no hook
            seen: set = set()
            for number, event in enumerate(events, start=1):
                for name in tool_call_starts(kind, event, seen):
                    print(f"{kind}, event {number} of {len(events)}: calling {name}…")
