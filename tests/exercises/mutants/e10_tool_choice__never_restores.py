"""Wrong on purpose (e10): the wrapper stays on the provider after the turn."""

from shared.cli.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS


def tool_choice(kind: str, choice: str) -> dict | str:
    """The `tool_choice` request field for this provider kind."""
    if kind == "anthropic":
        if choice in ("auto", "any", "none"):
            return {"type": choice}
        return {"type": "tool", "name": choice}
    if choice in ("auto", "any", "none"):
        return {"auto": "auto", "any": "required", "none": "none"}[choice]
    return {"type": "function", "function": {"name": choice}}


def force_now(provider, messages: list[dict]):
    """One turn of `provider` (anthropic or openai) in which it must call `now`."""
    build = provider.request

    def with_choice(messages, system="", tools=()):
        # the provider builds its usual request; we add one field before it is sent
        params = build(messages, system, tools)
        params["tool_choice"] = tool_choice(provider.name, "now")
        return params

    provider.request = with_choice  # shadows the method on this one object only
    return provider.call(messages, "", stage.TOOLS)
