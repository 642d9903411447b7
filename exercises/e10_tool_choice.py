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
    # TODO: follow the table above
    raise NotImplementedError("exercise 10: tool_choice")


def force_now(provider, messages: list[dict]):
    """One turn of `provider` (anthropic or openai) in which it must call `now`."""
    # TODO: provider.request(messages, system, tools) builds the request's fields;
    #       add tool_choice to them before provider.call(...) sends it
    raise NotImplementedError("exercise 10: force_now")
