"""Wrong on purpose (e11): the last OpenAI chunk, with no choices, is read like the others."""

from shared.providers.anthropic_provider import AnthropicProvider


def tool_call_starts(kind: str, event, seen: set) -> list[str]:
    """Names of the tool calls that start in this stream event."""
    if kind == "anthropic":
        if event.type == "content_block_start" and event.content_block.type == "tool_use":
            return [event.content_block.name]
        return []
    started = []
    for fragment in event.choices[0].delta.tool_calls or ():
        # the index ties fragments together; its first appearance is the start
        if fragment.index not in seen:
            seen.add(fragment.index)
            started.append(fragment.function.name)
    return started


# ---- already written: the wiring that makes your hook visible (no need to change it)


def announce(provider, console) -> None:
    """Make `provider` show `calling NAME…` on `console` as each of its tool calls starts."""
    kind = "anthropic" if isinstance(provider, AnthropicProvider) else "openai"
    resource = (provider._client.messages if kind == "anthropic"
                else provider._client.chat.completions)
    create = resource.create

    def create_and_watch(**params):
        return _Watched(create(**params), kind, console)

    resource.create = create_and_watch  # this client only


class _Watched:
    """A provider's event stream, passed through unchanged, announcing calls as they start."""

    def __init__(self, stream, kind: str, console):
        self.stream, self.kind, self.console = stream, kind, console

    def __enter__(self):
        self.stream.__enter__()
        return self

    def __exit__(self, *exc):
        return self.stream.__exit__(*exc)

    def __iter__(self):
        seen: set = set()
        spinner = None
        try:
            for event in self.stream:
                for name in tool_call_starts(self.kind, event, seen):
                    self.console.print(f"calling {name}…", style="yellow")
                    if self.console.is_terminal:
                        if spinner is not None:
                            spinner.stop()
                        spinner = self.console.status(f"{name}: arguments arriving…")
                        spinner.start()
                yield event
        finally:
            if spinner is not None:
                spinner.stop()


if __name__ == "__main__":  # the "Try it" above
    from shared.cli.repo import load_stage
    from shared.providers import get_provider
    from shared.providers.openai_provider import OpenAIProvider
    from shared.trace import Trace

    model = get_provider()
    if not isinstance(model, AnthropicProvider | OpenAIProvider):
        raise SystemExit("this needs a real model's event stream: set ANTHROPIC_API_KEY, "
                         "OPENAI_API_KEY or OPENAI_BASE_URL")
    trace = Trace()
    announce(model, trace.console)
    stage = load_stage("07", "main")
    stage.chat(model, trace, load_stage("07", "loop").build_agent_system())
