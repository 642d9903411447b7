"""Exercise 29 (stage 06): worked examples whose results come from the tools themselves.

`build_examples(tools)` returns the messages `--examples` puts in front of the
conversation. `tools` is a registry like stage 06's TOOLS: a dict from a tool's name to
a function that takes an `args` dict. For each tool of `tools` that has an entry in
EXAMPLES, in the order of `tools`, add four messages, each a dict with "role",
"content" and "example": True:
1. user: QUESTION;
2. assistant: the call line, json.dumps({"tool": NAME, "args": ARGS});
3. user: the result as stage 06 sends it back: '<tool_result tool=' + json.dumps(NAME)
   + '>\\n' + RESULT + '\\n</tool_result>';
4. assistant: ANSWER with "{result}" replaced by RESULT.
RESULT is str() of what the tool returns when it is called once, with a copy of ARGS:
run the tool, never write a result by hand. A tool with no entry in EXAMPLES gets no
example, and so does a tool that raises an exception on its example (a broken tool
makes a bad example; the others still get theirs). EXAMPLES is never changed, not even
by a tool that changes the args it is given.

    build_examples({"wordcount": lambda args: len(args["text"].split())})
    # -> [{"role": "user", "content": "How many words are in 'slow and steady wins'?",
    #      "example": True},
    #     {"role": "assistant", "content":
    #      '{"tool": "wordcount", "args": {"text": "slow and steady wins"}}', "example": True},
    #     {"role": "user", "content": '<tool_result tool="wordcount">\\n4\\n</tool_result>',
    #      "example": True},
    #     {"role": "assistant", "content": "'slow and steady wins' has 4 words.",
    #      "example": True}]

Try it: `uv run stages/06_tool_registry/main.py --examples --show-wire`, ask "What is
6 * 7?", and find the examples at the start of the request.
"""

import json  # noqa: F401  (you will need it)

# tool -> (QUESTION, ARGS, ANSWER)  # Don't change this table
EXAMPLES = {
    "now": ("What time is it?", {}, "It is {result} (UTC)."),
    "wordcount": ("How many words are in 'slow and steady wins'?",
                  {"text": "slow and steady wins"}, "'slow and steady wins' has {result} words."),
    "calculator": ("What is 21 times 4?", {"expression": "21 * 4"}, "21 times 4 is {result}."),
}


def build_examples(tools: dict) -> list[dict]:
    """The worked exchanges for the tools of `tools` that have an example, in order."""
    # TODO: per tool with an example: run it on a copy of ARGS, then the four messages
    raise NotImplementedError("exercise 29: build_examples")
