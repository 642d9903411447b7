# Don't change the tests! They tell you when exercises/e03_iteration_trace.py is done.
import json

import pytest
from exercise_support import need

from shared.providers import ProviderError, ScriptedProvider

WORDCOUNT = json.dumps({"tool": "wordcount", "args": {"text": "a b"}})


def agent_step(ex):
    return need(ex, "agent_step", "user_message", "history", "provider", "system", "verbose")


def run(ex, verbose, capsys):
    model = ScriptedProvider([WORDCOUNT, json.dumps({"tool": "calculator", "args": {"x": 1}}),
                              "Done."])
    ex.stage.TOOLS.setdefault("wordcount", lambda args: str(len(args["text"].split())))
    ex.stage.TOOLS.setdefault("calculator", lambda args: "z" * 500)
    answer = agent_step(ex)("go", [], model, "", verbose=verbose)
    return answer, capsys.readouterr().out, model


def test_verbose_prints_one_line_per_iteration(ex, capsys):
    answer, out, _ = run(ex, True, capsys)
    lines = out.splitlines()
    assert answer == "Done.", "verbose must not change the answer"
    assert len(lines) == 3, f"3 iterations should print 3 lines, got {len(lines)}:\n{out}"
    assert lines[0] == '[1] wordcount {"text": "a b"} -> 2', (
        f"line 1 should read '[1] wordcount {{\"text\": \"a b\"}} -> 2', got {lines[0]!r}")
    assert lines[1] == '[2] calculator {"x": 1} -> ' + "z" * 80, (
        "line 2 should show the observation cut to its first 80 characters")
    assert lines[2] == "[3] answer", f"the last iteration should print '[3] answer': {lines[2]!r}"


def test_the_docstrings_example_line(ex, capsys, monkeypatch):
    monkeypatch.setitem(ex.stage.TOOLS, "now", lambda args: "2026-05-01T09:30:00+00:00")
    model = ScriptedProvider([json.dumps({"tool": "now", "args": {}}), "It is 09:30."])
    answer = agent_step(ex)("What time is it?", [], model, "", verbose=True)
    lines = capsys.readouterr().out.splitlines()
    assert (answer, lines) == ("It is 09:30.", ["[1] now {} -> 2026-05-01T09:30:00+00:00",
                                                "[2] answer"]), (
        f"the docstring's example: a `now` call, then the answer, should print "
        f"'[1] now {{}} -> 2026-05-01T09:30:00+00:00' and '[2] answer'; it printed {lines}")


def test_quiet_by_default_prints_nothing(ex, capsys):
    answer, out, _ = run(ex, False, capsys)
    assert answer == "Done." and out == "", f"verbose=False should print nothing, printed {out!r}"
    model = ScriptedProvider([WORDCOUNT, "Done."])
    ex.stage.TOOLS["wordcount"] = lambda args: str(len(args["text"].split()))
    answer = need(ex, "agent_step", "user_message", "history", "provider", "system")(
        "go", [], model, "")
    out = capsys.readouterr().out
    assert answer == "Done." and out == "", (
        f"called without verbose, agent_step should print nothing (verbose=False is the "
        f"default); it printed {out!r}")


def scripts():
    """Turns to run through stage 05's own agent_step and yours: (history, replies)."""
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    return [
        ([], [WORDCOUNT, "Done."]),
        (earlier, [WORDCOUNT, json.dumps({"tool": "nosuch", "args": {}}), "Sorry."]),
        ([], ['{"tool": "wordcount"}', "No args at all."]),  # stage 05 reads args as {}
        ([], ['I will count. {"tool": "wordcount", "args": {"text": "x"}}']),  # prose: answer
        (earlier, [WORDCOUNT] * 12),  # never stops: the cap
    ]


@pytest.mark.parametrize("verbose", [True, False])
def test_answers_and_requests_are_stage_05s(ex, capsys, verbose):
    ex.stage.TOOLS["wordcount"] = lambda args: str(len(args.get("text", "").split()))
    for history, replies in scripts():
        theirs, ours = ScriptedProvider(replies), ScriptedProvider(replies)
        expected = ex.stage.agent_step("count", list(history), theirs, "Be brief.")
        given = [dict(m) for m in history]
        got = agent_step(ex)("count", given, ours, "Be brief.", verbose=verbose)
        assert got == expected, (
            f"stage 05's agent_step answers {expected!r} to the replies {replies[:3]}; "
            f"yours answered {got!r}")
        assert ours.calls == theirs.calls, (
            f"for the replies {replies[:3]}, the model should be sent what stage 05 sends "
            f"(the history, the question, each reply and its observation, the system "
            f"prompt as given): stage 05 made {len(theirs.calls)} requests, yours "
            f"{len(ours.calls)}, and they differ")
        assert given == history, "the history given to agent_step must stay as it was"


@pytest.mark.parametrize("verbose", [True, False])
def test_the_model_sees_its_call_and_the_observation(ex, capsys, verbose):
    _, _, model = run(ex, verbose, capsys)
    second = model.calls[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"], (
        "the second request should hold the question, the model's call and the "
        f"observation; its roles are {[m['role'] for m in second]}")
    assert second[1]["content"] == WORDCOUNT, "the model's own reply goes back as it was"
    assert second[2]["content"] == ex.stage.observation("wordcount", "2"), (
        "the tool's result goes back wrapped by stage.observation(name, result)")


def test_the_iteration_cap_holds_against_a_model_that_never_stops(ex, capsys):
    cap = ex.stage.MAX_ITERATIONS
    model = ScriptedProvider([WORDCOUNT] * (cap + 3))
    ex.stage.TOOLS.setdefault("wordcount", lambda args: str(len(args["text"].split())))
    try:
        answer = agent_step(ex)("go", [], model, "", verbose=True)
    except ProviderError:
        pytest.fail(f"the model was asked {len(model.calls)} times and the loop went on: "
                    f"stop after MAX_ITERATIONS ({cap}) calls", pytrace=False)
    assert len(model.calls) == cap, (
        f"a model that always calls a tool should be asked exactly {cap} times, "
        f"was asked {len(model.calls)}")
    assert answer.startswith("Stopped"), f"say that the loop stopped: {answer!r}"
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == cap and lines[-1].startswith(f"[{cap}] wordcount"), (
        f"one trace line per iteration, numbered 1 to {cap}")
