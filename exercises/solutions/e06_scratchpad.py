"""Exercise 06: keep the scratchpad between turns.

Stage 07's `chat()` keeps only each turn's final text, so the next turn cannot see which
tools ran or what they returned. Here `agent_step` returns the answer *and* every message
the turn added (the user's message, each assistant message with its tool calls, each tool
result, and the final assistant text), and `chat` keeps all of them in the history.

    answer, added = agent_step("time?", [], provider, "")
    # added: [user, assistant(tool_calls), tool, assistant("It is noon.")]
"""

from shared.cli.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS, run_tool, MAX_ITERATIONS


def agent_step(user_message: str, history: list[dict], provider,
               system: str) -> tuple[str, list[dict]]:
    """Stage 07's loop; returns (the answer, every message this turn added)."""
    added = [{"role": "user", "content": user_message}]
    for _ in range(stage.MAX_ITERATIONS):
        reply = provider.call(history + added, system, stage.TOOLS)
        # the assistant message joins the scratchpad whether or not it calls tools
        added.append(reply.assistant_message())
        if not reply.tool_calls:
            return reply.text, added
        for call in reply.tool_calls:
            added.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                          "content": stage.run_tool(call)})
    answer = f"Stopped: no answer after {stage.MAX_ITERATIONS} iterations."
    added.append({"role": "assistant", "content": answer})
    return answer, added


def chat(lines: list[str], provider, system: str) -> list[dict]:
    """Run `lines` as one conversation; return the history, scratchpads included."""
    history: list[dict] = []
    for line in lines:
        _, added = agent_step(line, history, provider, system)
        history = history + added  # everything, not just the answer
    return history
