# Don't change the tests! They tell you when exercises/e17_tool_gate.py is done.
import pytest
from exercise_support import need

from shared.providers import Reply, ScriptedProvider, ToolCall
from tao.repo import load_stage


def calls():
    """What the offline model sends: a sentence before its calls, several calls in one reply.
    A new copy on every call."""
    return [ToolCall("c1", "wordcount", {"text": "to be or not to be"}),
            ToolCall("c2", "now", {})]

CASES = [
    # (stop_reason, has tool calls, retried already, expected step)
    ("tool_use", True, False, "run"),  # Anthropic: the reply ended to call tools
    ("tool_calls", True, False, "run"),  # OpenAI's raw finish_reason
    ("end_turn", True, False, "run"),  # some servers end with calls and a plain stop
    ("stop", True, False, "run"),
    ("tool_use", True, True, "run"),  # a retry that came back whole runs like any other
    ("tool_use", False, False, "answer"),  # the reason says tools, but no call came
    ("tool_calls", False, False, "answer"),
    ("end_turn", False, False, "answer"),  # a plain answer
    ("stop", False, False, "answer"),
    ("refusal", True, False, "refuse"),  # calls that arrive with a refusal never run
    ("content_filter", True, False, "refuse"),  # OpenAI's filter, calls and all
    ("refusal", False, False, "refuse"),
    ("content_filter", False, True, "refuse"),
    ("max_tokens", True, False, "retry"),  # cut off inside a call: one more try
    ("length", True, False, "retry"),  # OpenAI's raw name for the same
    ("max_tokens", True, True, "truncated"),  # cut off again: report it
    ("length", True, True, "truncated"),
    ("max_tokens", False, False, "truncated"),  # cut-off text is not retried
    ("length", False, True, "truncated"),
    ("pause_turn", True, False, "answer"),  # an end this gate does not know: run nothing
    ("stop_sequence", True, False, "answer"),  # cut at a stop sequence: not to call tools
    ("stop_sequence", False, False, "answer"),
    ("Refusal", True, False, "answer"),  # reasons are exact words: another spelling is
    ("TOOL_USE", True, False, "answer"),  # a reason this gate does not know, and runs nothing
    ("error", True, False, "answer"),
]


@pytest.mark.parametrize("stop, has_calls, retried, expected", CASES,
                         ids=[f"{c[0]}-{'calls' if c[1] else 'text'}-{c[2]}" for c in CASES])
def test_next_step(ex, stop, has_calls, retried, expected):
    next_step = need(ex, "next_step", "reply", "retried")
    reply = (Reply("I'll use wordcount and now.", calls(), stop) if has_calls
             else Reply("It is noon.", [], stop))
    got = next_step(reply, retried)
    assert got == expected, (
        f"a reply ending with {stop!r} {'with' if has_calls else 'without'} tool calls"
        f"{' after a retry' if retried else ''} should give {expected!r}, not {got!r}")


def test_retried_defaults_to_false(ex):
    next_step = need(ex, "next_step", "reply")
    got = next_step(Reply("", calls(), "max_tokens"))
    assert got == "retry", (
        f"called without `retried`, a reply cut off inside its calls is the first try: "
        f"expected 'retry', got {got!r}")


def test_stage_09_runs_calls_exactly_when_next_step_says_run(ex):
    next_step = need(ex, "next_step", "reply", "retried")
    loop = load_stage("09", "loop")
    for stop in loop.GATES:  # every stop reason stage 09 knows, in tao's names
        reply = Reply("I'll use wordcount and now.", calls(), stop)
        model = ScriptedProvider([reply, reply, "Done."])  # a retry is cut off again
        turn = loop.agent_step("count and time", [], model, "")
        ran = any(m["role"] == "tool" for m in turn.messages)
        yours = next_step(Reply("I'll use wordcount and now.", calls(), stop))
        assert ran == (yours == "run"), (
            f"for a reply with calls ending {stop!r}, stage 09 {'ran' if ran else 'did not run'}"
            f" them, and next_step says {yours!r}: the exercise and stage 09's GATES agree "
            "on which stop reasons run calls")
