"""Grammars for llama.cpp (GBNF) built from a tool registry: constrained decoding.

llama.cpp can make a model emit only text that a grammar accepts: at each step, every
token that would break the grammar is ruled out before sampling. Built from the tools,
such a grammar allows exactly one well-formed call line, or (with `text=True`) plain
text that does not start with `{`:

    grammar = tool_grammar(TOOLS)                     # stages 04-06: {"tool": .., "args": ..}
    provider = build_provider("local", grammar=grammar)

What it buys: every call parses and names a tool that exists. What it does not: the
model still picks the tool and fills the arguments, so a small model calls the wrong
tool with nonsense arguments, in perfect JSON.

A tool given with a JSON Schema (a native `Tool`) gets its arguments' names and types
enforced too (the required properties, in order); a stage 04-06 registry entry (a plain
function) gets any JSON object. Nothing here imports llama.cpp: the grammar is text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

# JSON itself, in GBNF. Whitespace is at most one space, a string at most 100
# characters, an object at most 6 keys and an array 10 items, so a model cannot pad or
# ramble inside a call forever.
JSON_RULES = r'''
value   ::= object | array | string | number | "true" | "false" | "null"
object  ::= "{" ws ( pair ( ws "," ws pair ){0,5} )? ws "}"
pair    ::= string ws ":" ws value
array   ::= "[" ws ( value ( ws "," ws value ){0,9} )? ws "]"
string  ::= "\"" char{0,100} "\""
char    ::= [^"\\\x00-\x1f] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
number  ::= integer ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
integer ::= "-"? ( "0" | [1-9] [0-9]* )
boolean ::= "true" | "false"
ws      ::= " "?
'''.strip()

# a schema type -> the rule its value must match
TYPE_RULES = {"string": "string", "integer": "integer", "number": "number",
              "boolean": "boolean", "array": "array", "object": "object"}

# plain text: anything, as long as it does not open with `{` (or with blank space,
# behind which a `{` could hide from a parser that strips it)
TEXT_RULE = r'text    ::= [^{ \t\r\n] [^\x00]*'


def tool_grammar(tools, *, text: bool = True, name_key: str = "tool",
                 args_key: str = "args") -> str:
    """GBNF for one call `{"<name_key>": <a tool's name>, "<args_key>": {..}}` to one of
    `tools`, or (when `text`) plain text that does not start with `{`.

    `tools` is a registry (a dict of name -> function, as stages 04-06 keep it) or
    native `Tool`s (name, schema). The stages' own call line is the default shape;
    `name_key="name", args_key="arguments"` gives the shape the local provider uses
    for native tool calls."""
    entries = _entries(tools)
    if not entries:
        raise ValueError("a tool grammar needs at least one tool")
    rules = []
    calls = []
    for n, (name, schema) in enumerate(entries, 1):
        args_rule = f"args-{n}"
        calls.append(f"call-{n}")
        rules.append(
            f'call-{n} ::= "{{" ws {_literal(json.dumps(name_key))} ws ":" ws '
            f'{_literal(json.dumps(name))} ws "," ws {_literal(json.dumps(args_key))} '
            f'ws ":" ws {args_rule} ws "}}"')
        rules.append(f"{args_rule} ::= {_args(schema)}")
    root = "root    ::= call" + (" | text" if text else "")
    lines = [root, "call    ::= " + " | ".join(calls), *rules, JSON_RULES]
    if text:
        lines.append(TEXT_RULE)
    return "\n".join(lines) + "\n"


def _entries(tools) -> list[tuple[str, dict | None]]:
    """(name, JSON Schema or None) for each tool of a registry or a list of Tools."""
    if isinstance(tools, Mapping):
        return [(str(name), getattr(tool, "schema", None)) for name, tool in tools.items()]
    if isinstance(tools, Iterable):
        return [(tool.name, getattr(tool, "schema", None)) for tool in tools]
    raise TypeError(f"tools must be a registry dict or a list of Tools, "
                    f"not {type(tools).__name__}")


def _args(schema: dict | None) -> str:
    """The rule for one tool's arguments: its required properties in order, typed; any
    JSON object when there is no schema to go by."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return "object"
    properties = schema["properties"]
    required = [key for key in schema.get("required", []) if key in properties]
    if not required:
        return '"{" ws "}"'  # nothing is required: the model is given no room to invent
    pairs = []
    for key in required:
        kind = (properties[key] or {}).get("type")
        rule = TYPE_RULES.get(kind, "value") if isinstance(kind, str) else "value"
        choices = (properties[key] or {}).get("enum")
        if isinstance(choices, list) and choices:
            rule = "( " + " | ".join(_literal(json.dumps(v)) for v in choices) + " )"
        pairs.append(f'{_literal(json.dumps(key))} ws ":" ws {rule}')
    return '"{" ws ' + ' ws "," ws '.join(pairs) + ' ws "}"'


_GBNF_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _literal(text: str) -> str:
    """`text` as a GBNF string literal: quotes and backslashes escaped."""
    return '"' + re.sub(r'[\\"\n\r\t]', lambda m: _GBNF_ESCAPES[m.group()], text) + '"'
