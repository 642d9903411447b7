"""--examples on stages 04-06: worked exchanges in front of the conversation, their
results the tools' own, named as examples on the trace and the wire, and read past by
the offline model (it answers the real question, never the example's)."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from helpers import load_stage, run_stage

from shared.examples import build_examples
from shared.wire import would_send

STAGES = ("04", "05", "06")


def recorded(number: str, path, stdin: str, *flags) -> list[list[dict]]:
    """The messages of every request a stage run sent, from its --record file."""
    done = run_stage(number, "--record", str(path), *flags, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return [entry["request"]["messages"] for entry in json.loads(path.read_text("utf-8"))]


def calls_in(examples: list[dict]) -> list[dict]:
    """The call lines of the examples, parsed."""
    return [json.loads(m["content"]) for m in examples
            if m["role"] == "assistant" and m["content"].startswith("{")]


def talk(stdout: str) -> str:
    """What a run showed from the learner's first line on (the examples come before)."""
    return stdout.split("you> ", 1)[1]


@pytest.mark.parametrize("number", STAGES)
def test_the_examples_lead_every_request_and_cover_each_tool(number, tmp_path):
    requests = recorded(number, tmp_path / "on.json", "What time is it?\nthanks\n",
                        "--examples")
    assert len(requests) >= 2
    for messages in requests:
        examples = [m for m in messages if m.get("example")]
        assert examples and messages[:len(examples)] == examples, "all in front, none later"
        called = {call["tool"] for call in calls_in(examples)}
        assert called == set(load_stage(number, "loop").TOOLS)
    assert requests[0][len(examples)]["content"] == "What time is it?"


@pytest.mark.parametrize("number", STAGES)
def test_without_the_flag_the_conversation_starts_with_the_learner(number, tmp_path):
    requests = recorded(number, tmp_path / "off.json", "What time is it?\n")
    assert requests[0][0] == {"role": "user", "content": "What time is it?"}
    assert not any(m.get("example") for messages in requests for m in messages)


def test_each_result_is_what_the_tool_returned_for_the_call_shown():
    token, seen = uuid.uuid4().hex, []

    def echo(args: dict) -> str:
        seen.append(args)
        return f"{token}:{json.dumps(args, sort_keys=True)}"

    examples = build_examples({"calculator": echo, "mine": echo, "now": echo})
    calls = calls_in(examples)
    assert [c["tool"] for c in calls] == ["calculator", "now"], "no fixed input: no example"
    assert seen == [c["args"] for c in calls], "each tool ran once, on the call shown"
    results = [m["content"] for m in examples if m["content"].startswith("<tool_result")]
    answers = examples[3::4]
    for call, result, answer in zip(calls, results, answers, strict=True):
        told = f"{token}:{json.dumps(call['args'], sort_keys=True)}"
        assert told in result and told in answer["content"]


def test_stage06_examples_hold_its_own_results_wrapped_as_its_loop_wraps_them():
    loop = load_stage("06", "loop")
    examples = build_examples(loop.TOOLS)
    for call, sent in zip(calls_in(examples), examples[2::4], strict=True):
        if call["tool"] != "now":  # the clock moves on between two runs
            assert sent["content"] == loop.observation(call["tool"],
                                                       loop.run_tool(call["tool"], call["args"]))


def test_a_tool_that_fails_on_its_example_is_left_out():
    def broken(args: dict) -> str:
        raise ValueError("no")

    examples = build_examples({"wordcount": broken, "now": lambda args: "noon"})
    assert [c["tool"] for c in calls_in(examples)] == ["now"]


def test_the_offline_model_answers_the_real_question_not_the_examples():
    asked = "What did the calculator tool return?\nWhat is 6 * 7?\n\n"
    done = run_stage("06", "--examples", stdin=asked)
    assert done.returncode == 0, done.stderr
    example_result = build_examples(load_stage("06", "loop").TOOLS)[-2]["content"]
    shown = re.search(r"\n(\d+)\n", example_result).group(1)  # the calculator example's
    assert shown in done.stdout.split("you> ", 1)[0], "the examples are on the screen"
    assert shown not in talk(done.stdout), "an example's result is never recalled"
    assert "42" in talk(done.stdout)
    plain = run_stage("06", stdin=asked)
    answers = re.compile(r"^tao  .*$", re.M)
    assert answers.findall(talk(done.stdout)) == answers.findall(talk(plain.stdout))


def test_the_trace_names_each_example_before_the_learner_speaks():
    done = run_stage("06", "--examples", stdin="\n")
    before = done.stdout.split("you> ", 1)[0]
    examples = build_examples(load_stage("06", "loop").TOOLS)
    assert before.count("example · ") == len(examples)
    assert "--examples" in before


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_the_wire_says_which_messages_are_examples_and_sends_no_mark(api):
    done = run_stage("05", "--examples", "--show-wire", api, stdin="What time is it?\n\n")
    assert done.returncode == 0, done.stderr
    examples = build_examples(load_stage("05", "loop").TOOLS)
    said = rf"the\s+first\s+{len(examples)}\s+conversation\s+messages\s+are\s+worked\s+examples"
    assert re.search(said, done.stdout)
    body = would_send(api, examples + [{"role": "user", "content": "hi"}])
    assert '"example"' not in json.dumps(body), "the mark is tao's, not the API's"


def test_only_a_stage_with_a_registry_takes_the_flag():
    assert run_stage("03", "--examples", stdin="\n").returncode == 2
