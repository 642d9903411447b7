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
    # TODO: start from stages/07_native_tools/loop.py; collect what you append in a list
    #       (reply.assistant_message() helps) and return it with the answer
    raise NotImplementedError("exercise 06: agent_step keeps its messages")


def chat(lines: list[str], provider, system: str) -> list[dict]:
    """Run `lines` as one conversation; return the history, scratchpads included."""
    # TODO: call agent_step per line and keep everything it added
    raise NotImplementedError("exercise 06: chat keeps the scratchpad")


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
