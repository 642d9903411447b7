"""Exercise 06 (stage 07): keep the scratchpad between turns.

Stage 07's `chat()` keeps only each turn's final text, so the next turn cannot see which
tools ran or what they returned. Here `agent_step` returns the answer *and* every message
the turn added (the user's message, each assistant message with its tool calls, each tool
result, and the final assistant text), and `chat` keeps all of them in the history.

    answer, added = agent_step("time?", [], provider, "")
    # added: [user, assistant(tool_calls), tool, assistant("It is noon.")]

Each assistant message is the reply as the model sent it: its text (the sentence before
the calls too) and every one of its calls. Within a turn, each request holds the
history and everything the turn has added so far, with the system prompt and stage
07's tools, as stage 07's does; the history given is not changed, and MAX_ITERATIONS
still caps the turn (its last assistant message then says that it stopped).

Try it: `uv run exercises/e06_scratchpad.py` runs three questions on the offline model
twice, keeping the scratchpad and keeping answers only, and prints the input tokens each
way. The scratchpad costs tokens; what does the model gain for them?
"""

from tao.repo import load_stage

stage = load_stage("07", "loop")  # TOOLS, run_tool, MAX_ITERATIONS, build_agent_system


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


if __name__ == "__main__":  # the "Try it" above
    from shared.providers import OfflineProvider

    class Counting(OfflineProvider):
        """The offline model, adding up the input tokens of every request."""

        tokens = 0

        def call(self, *args, **kwargs):
            reply = super().call(*args, **kwargs)
            self.tokens += reply.usage.get("input_tokens", 0)
            return reply

    lines = ["What time is it?", "How many words are in 'to be or not to be'?",
             "And what time is it now?"]
    kept, answers_only = Counting(), Counting()
    history = chat(lines, kept, stage.build_agent_system())
    short: list[dict] = []
    for line in lines:
        answer, _ = agent_step(line, short, answers_only, stage.build_agent_system())
        short += [{"role": "user", "content": line}, {"role": "assistant", "content": answer}]
    print(f"scratchpad kept: {len(history)} messages, {kept.tokens} input tokens")
    print(f"answers only:    {len(short)} messages, {answers_only.tokens} input tokens")
