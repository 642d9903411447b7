"""Stage 04: a tool call as one line of JSON.

The system prompt teaches a protocol: to use a tool, reply with one JSON line. Each reply
is collected whole, parsed, and if it is a tool call the tool runs once and its result is
shown. The result is not sent back to the model yet: stage 05 closes that loop.

    uv run stages/04_json_tool_call/main.py
"""

from loop import TOOLS, _parse_tool_call, build_agent_system, run_tool

from shared.providers import ProviderError
from shared.stage_main import open_session, run, stage_parser, worked_examples


def chat(provider, trace, system: str, history: list[dict]) -> None:
    """Read lines until an empty one (or Ctrl-D); each reply sees the whole history."""
    while True:
        try:
            line = trace.prompt()
        except EOFError:
            break
        if not line.strip():
            break
        messages = history + [{"role": "user", "content": line}]
        try:
            # collect the whole reply: its first delta cannot tell a tool call from an answer
            reply = "".join(provider.stream(messages, system))
        except KeyboardInterrupt:
            trace.note("reply cancelled; the history is unchanged")
            continue
        except ProviderError as exc:
            trace.error(str(exc))
            continue
        call = _parse_tool_call(reply)
        if call is None:
            trace.answer(reply)
        else:
            trace.think(reply)
            # act: run the tool once and show the result, which the model never sees
            trace.act(call["tool"], call.get("args", {}))
            trace.observe(call["tool"], run_tool(call["tool"], call.get("args", {})))
        # only a finished exchange joins the history
        history = messages + [{"role": "assistant", "content": reply}]


def main() -> None:
    args = stage_parser(__doc__, TOOLS).parse_args()  # the registry: for --constrain
    with open_session(args) as (provider, trace):
        chat(provider, trace, build_agent_system(), worked_examples(args, trace))


if __name__ == "__main__":
    run(main)
