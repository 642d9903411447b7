"""The tool registry, as native tool definitions.

Each tool is a `Tool(name, description, schema, run)` record: the JSON Schema tells
the model which arguments exist, and the provider sends it in the API's own `tools`
field. Adding a tool still means adding a function and an entry in TOOLS.
"""

from datetime import UTC, datetime

from shared.calc import evaluate
from shared.providers import Tool


def now(args: dict) -> str:
    """return the current UTC time. No arguments."""
    return datetime.now(UTC).isoformat()


def wordcount(args: dict) -> str:
    """count the words in `text`."""
    return str(len(args["text"].split()))


def calculator(args: dict) -> str:
    """work out an arithmetic `expression` such as "12 * (3 + 4)"."""
    return str(evaluate(args["expression"]))


def _text_arg(name: str, about: str) -> dict:
    """A JSON Schema for one required string argument."""
    return {"type": "object", "properties": {name: {"type": "string", "description": about}},
            "required": [name]}


TOOLS = [
    Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}}, now),
    Tool("wordcount", "Count the words in a text.",
         _text_arg("text", "the text whose words to count"), wordcount),
    Tool("calculator", "Work out an arithmetic expression such as 12 * (3 + 4).",
         _text_arg("expression", "numbers, + - * / // % ** and parentheses"), calculator),
]


def find_tool(name: str) -> Tool | None:
    """The registered tool with this name, or None."""
    return next((tool for tool in TOOLS if tool.name == name), None)
