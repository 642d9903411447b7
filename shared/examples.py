"""Worked examples (`--examples` on stages 04-06): exchanges put in front of the
conversation, so a small model sees the JSON-line protocol used before it is asked.

    history = build_examples(TOOLS, trace)   # the messages the conversation starts with

Each example is made by running the stage's own tool on a fixed input: the result it
shows is the tool's, never typed by hand, and so is the answer built around it. A tool
with no fixed input here gets no example. Every message is marked `"example": True`:
the providers leave the mark off the wire (to the model they are ordinary messages,
which is why it may copy them), the trace and `--show-wire` name them, and the offline
model skips them, so it answers the real question and never the example's.
"""

from __future__ import annotations

import json

from .language import say
from .trace import SILENT

# tool -> the question, the call's arguments, the answer around the tool's result;
# none of these is a task of `tao compare` (a copied answer must not pass for a call)
EXAMPLES = {
    "now": ("What time is it?", {}, "It is {result} (UTC)."),
    "wordcount": ("How many words are in 'slow and steady wins'?",
                  {"text": "slow and steady wins"}, "'slow and steady wins' has {result} words."),
    "calculator": ("What is 21 times 4?", {"expression": "21 * 4"}, "21 times 4 is {result}."),
}


def build_examples(tools: dict, trace=SILENT) -> list[dict]:
    """The worked exchanges for `tools` (name -> function), four messages per tool with
    an example: the question, the call line, the real result as the loop sends it back
    (stage 05's `<tool_result>`), the answer; each one shown on `trace` as an example."""
    messages: list[dict] = []
    for name, tool in tools.items():
        if name not in EXAMPLES:
            continue
        question, args, answer = EXAMPLES[name]
        try:
            result = str(tool(dict(args)))  # run for real: the result shown is true
        except Exception as exc:  # a broken tool makes a bad example: leave it out
            trace.note(say("no example for {tool}: {error}", tool=name, error=repr(exc)))
            continue
        exchange = [("user", question),
                    ("assistant", json.dumps({"tool": name, "args": args})),
                    ("user", f"<tool_result tool={json.dumps(name)}>\n{result}\n</tool_result>"),
                    ("assistant", answer.format(result=result))]
        messages += [{"role": role, "content": text, "example": True}
                     for role, text in exchange]
    show(messages, trace)
    return messages


def show(examples: list[dict], trace) -> None:
    """The examples on the trace, each line named as an example, never as the learner's."""
    if not examples:
        return
    trace.note(say("{n} example messages, sent in front of the conversation on every "
                   "request (--examples):", n=len(examples)))
    for message in examples:
        text = message["content"].replace("\n", " ")
        trace.note(say("  example · {role}: {text}", role=message["role"], text=text))
