"""Wrong on purpose (e03):
the raw result is sent back instead of the stage's observation wrapper.
"""

import json

from shared.cli.repo import load_stage

stage = load_stage("05", "loop")  # _parse_tool_call, run_tool, observation, MAX_ITERATIONS


def agent_step(user_message: str, history: list[dict], provider, system: str,
               verbose: bool = False) -> str:
    """Stage 05's loop; prints `[1] now {} -> 2026-05-01T09:30:00+00:00` when verbose."""
    messages = history + [{"role": "user", "content": user_message}]
    for iteration in range(1, stage.MAX_ITERATIONS + 1):
        reply = "".join(provider.stream(messages, system))
        call = stage._parse_tool_call(reply)
        if call is None:
            if verbose:
                print(f"[{iteration}] answer")
            return reply
        name, args = call["tool"], call.get("args", {})
        result = stage.run_tool(name, args)
        # one line per iteration: what was called, with what, and what came back
        if verbose:
            print(f"[{iteration}] {name} {json.dumps(args)} -> {result[:80]}")
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": result})
    return f"Stopped: no answer after {stage.MAX_ITERATIONS} iterations."


if __name__ == "__main__":  # the "Try it" above
    from shared.providers import OfflineProvider

    model = OfflineProvider(quirk="unknown_tool")
    print(agent_step("What time is it?", [], model,
                     stage.build_agent_system(), verbose=True))
