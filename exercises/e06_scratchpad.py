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
    # TODO: start from stages/07_native_tools/loop.py; collect what you append in a list
    #       (reply.assistant_message() helps) and return it with the answer
    raise NotImplementedError("exercise 06: agent_step keeps its messages")


def chat(lines: list[str], provider, system: str) -> list[dict]:
    """Run `lines` as one conversation; return the history, scratchpads included."""
    # TODO: call agent_step per line and keep everything it added
    raise NotImplementedError("exercise 06: chat keeps the scratchpad")
