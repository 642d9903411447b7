"""Wrong on purpose (e08): a number must be a float, so 3 is refused."""

import random

from shared.providers import Tool

TYPES = {"integer": int, "number": float, "string": str, "boolean": bool}


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
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            return f"missing required argument {name!r}"
    for name, value in args.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                return f"unknown argument {name!r}"
            continue
        rule = properties[name]
        kind = rule.get("type")
        # bool is a subclass of int in Python, but JSON Schema keeps them apart
        wrong_bool = isinstance(value, bool) and kind != "boolean"
        if kind in TYPES and (wrong_bool or not isinstance(value, TYPES[kind])):
            return f"{name!r} must be of type {kind}, got {value!r}"
        if "minimum" in rule and value < rule["minimum"]:
            return f"{name!r} must be at least {rule['minimum']}, got {value}"
        if "maximum" in rule and value > rule["maximum"]:
            return f"{name!r} must be at most {rule['maximum']}, got {value}"
    return ""


def checked_run(tool: Tool, args: dict) -> str:
    """The tool's result, or `Error: ...` if the arguments do not fit its schema."""
    problem = validate(tool.schema, args)
    if problem:
        return f"Error: {problem}"
    return str(tool.run(args))
