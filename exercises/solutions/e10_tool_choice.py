"""Exercise 10 (stage 07): tool_choice, in both providers' shapes.

By default the model decides whether to call a tool ("auto"). You can also demand some
tool ("any"), one named tool, or no tool at all ("none"). The APIs spell it differently:

    choice     Anthropic                          OpenAI
    "auto"     {"type": "auto"}                   "auto"
    "any"      {"type": "any"}                    "required"
    "none"     {"type": "none"}                   "none"
    "now"      {"type": "tool", "name": "now"}    {"type": "function", "function": {"name": "now"}}

    any other  a tool of that name, as "now" above

Write `tool_choice(kind, choice)` for kind "anthropic" or "openai", and `force_now`,
which makes one model turn in which the provider must call `now`, changing that one
provider object only while the turn runs (other providers, even of the same class,
are untouched).
"""

from tao.repo import load_stage

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
    try:
        return provider.call(messages, "", stage.TOOLS)
    finally:
        del provider.request
