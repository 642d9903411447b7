"""The tool registry: every tool the agent has, in one dict.

A tool is a function from an `args` dict to a string; its docstring is what the model
is told about it. Adding a tool means adding a function and a line to TOOLS: nothing
in the loop changes.
"""

from datetime import UTC, datetime

from shared.calc import evaluate


def now(args: dict) -> str:
    """return the current UTC time. No arguments."""
    return datetime.now(UTC).isoformat()


def wordcount(args: dict) -> str:
    """count the words in `text`."""
    return str(len(args["text"].split()))


def calculator(args: dict) -> str:
    """work out an arithmetic `expression` such as "12 * (3 + 4)"."""
    return str(evaluate(args["expression"]))


TOOLS = {
    "now": now,
    "wordcount": wordcount,
    "calculator": calculator,
}


def tool_list() -> str:
    """The tools as the lines of the system prompt that describe them."""
    return "\n".join(f"- `{name}` — {tool.__doc__}" for name, tool in TOOLS.items())
