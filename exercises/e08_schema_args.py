"""Exercise 08 (stage 07): check arguments against the tool's JSON Schema before it runs.

`random_int` takes `low` and `high`, integers from 1 to 1000, both required. Its schema
says so (minimum / maximum). `validate(schema, args)` returns "" when `args` fit the
schema and otherwise one line saying what is wrong; `checked_run(tool, args)` returns
`Error: <that line>` without running the tool, or the tool's result.

Cover: required properties, unknown properties when additionalProperties is false, the
types integer / number / string / boolean (a bool is not an integer here; an integer
is a number), minimum, maximum. The line names the argument and what it should be (its
type, or the bound it broke), so the model can fix its call.

Try it: `TAO_OFFLINE_QUIRK=broken_json uv run stages/07_native_tools/main.py` and ask
for the time: the model's broken call is caught before any tool runs. Your checks catch
the calls that parse but are wrong, before `random_int` raises on them.
"""

import random

from shared.providers import Tool

TYPES = {"integer": int, "number": (int, float), "string": str, "boolean": bool}


def random_int(args: dict) -> str:
    """A random integer from args["low"] to args["high"], inclusive."""
    return str(random.randint(args["low"], args["high"]))


BOUND = {"type": "integer", "minimum": 1, "maximum": 1000}
RANDOM_INT = Tool(  # Don't change this tool
    "random_int", "A random integer between low and high, inclusive.",
    {"type": "object", "properties": {"low": BOUND, "high": BOUND},
     "required": ["low", "high"], "additionalProperties": False},
    random_int,
)


def validate(schema: dict, args: dict) -> str:
    """"" if `args` fit `schema`, else one line on what does not."""
    # TODO: required first, then each argument: known? right type? within min / max?
    raise NotImplementedError("exercise 08: validate")


def checked_run(tool: Tool, args: dict) -> str:
    """The tool's result, or `Error: ...` if the arguments do not fit its schema."""
    # TODO: validate, then run only if nothing is wrong
    raise NotImplementedError("exercise 08: checked_run")
