"""The tool registry, as native tool definitions.

Each tool is a `Tool(name, description, schema, run)` record: the JSON Schema tells
the model which arguments exist, and the provider sends it in the API's own `tools`
field. A tool may be `async` (it waits without blocking the others) or plain (the loop
gives it a thread), and READ_ONLY names the tools that only read, so calls to them may
run at the same time.
"""

import asyncio
import time
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


async def fetch(args: dict) -> str:
    """pretend to download `url`: wait `seconds`, as a slow server would, then answer."""
    await asyncio.sleep(float(args.get("seconds", 1)))  # awaiting lets other calls run
    return f"(a stand-in page for {args['url']}: simulated, nothing left this machine)"


async def search(args: dict) -> str:
    """pretend to search the web for `query`, taking `seconds`."""
    await asyncio.sleep(float(args.get("seconds", 1)))
    return f"(stand-in search results for {args['query']!r}: simulated)"


def lookup(args: dict) -> str:
    """pretend to look `key` up in a database: a plain function that blocks for `seconds`."""
    time.sleep(float(args.get("seconds", 1)))  # no await: it holds its thread all along
    return f"(a stand-in record for {args['key']!r}: simulated)"


NOTES: list[str] = []


def note(args: dict) -> str:
    """keep `text` in this session's notes: it changes state, so it never runs alongside."""
    NOTES.append(args["text"])
    return f"noted ({len(NOTES)} so far)"


def _slow_arg(name: str, about: str) -> dict:
    """A JSON Schema for one required string and how many seconds the fake takes."""
    schema = _text_arg(name, about)
    schema["properties"]["seconds"] = {"type": "number", "description": "simulated delay"}
    return schema


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
    Tool("fetch", "Fetch a web page by its URL (simulated, and slow: it takes `seconds`).",
         _slow_arg("url", "the page's address"), fetch),
    Tool("search", "Search the web for a query (simulated, and slow: it takes `seconds`).",
         _slow_arg("query", "what to look for"), search),
    Tool("lookup", "Look a key up in a database (simulated; it blocks for `seconds`).",
         _slow_arg("key", "what to look up"), lookup),
    Tool("note", "Keep a note for later in this session.",
         _text_arg("text", "what to keep"), note),
]
READ_ONLY = {"now", "wordcount", "calculator", "fetch", "search", "lookup"}  # side by side


def find_tool(name: str) -> Tool | None:
    """The registered tool with this name, or None."""
    return next((tool for tool in TOOLS if tool.name == name), None)
