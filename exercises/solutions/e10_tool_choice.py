"""Exercise 10: tool_choice, in both providers' shapes.

By default the model decides whether to call a tool ("auto"). You can also demand some
tool ("any") or one named tool. The two APIs spell it differently:

    choice     Anthropic                          OpenAI
    "auto"     {"type": "auto"}                   "auto"
    "any"      {"type": "any"}                    "required"
    "now"      {"type": "tool", "name": "now"}    {"type": "function", "function": {"name": "now"}}

Write `tool_choice(kind, choice)` for kind "anthropic" or "openai", and `force_now`,
which makes one model turn in which the provider must call `now`.
"""

from shared.cli.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS


def tool_choice(kind: str, choice: str) -> dict | str:
    """The `tool_choice` request field for this provider kind."""
    if kind == "anthropic":
        return {"type": choice} if choice in ("auto", "any") else {"type": "tool",
                                                                    "name": choice}
    if choice in ("auto", "any"):
        return {"auto": "auto", "any": "required"}[choice]
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
    try:
        return provider.call(messages, "", stage.TOOLS)
    finally:
        del provider.request
