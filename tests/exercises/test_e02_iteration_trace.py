# Don't change the tests! They tell you when exercises/e02_iteration_trace.py is done.
import json

from exercise_support import need

from shared.providers import ScriptedProvider


def run(ex, verbose, capsys):
    agent_step = need(ex, "agent_step", "user_message", "history", "provider", "system",
                      "verbose")
    model = ScriptedProvider([json.dumps({"tool": "wordcount", "args": {"text": "a b"}}),
                              json.dumps({"tool": "calculator", "args": {"x": 1}}),
                              "Done."])
    ex.stage.TOOLS.setdefault("wordcount", lambda args: str(len(args["text"].split())))
    ex.stage.TOOLS.setdefault("calculator", lambda args: "z" * 500)
    answer = agent_step("go", [], model, "", verbose=verbose)
    return answer, capsys.readouterr().out


def test_verbose_prints_one_line_per_iteration(ex, capsys):
    answer, out = run(ex, True, capsys)
    lines = out.splitlines()
    assert answer == "Done.", "verbose must not change the answer"
    assert len(lines) == 3, f"3 iterations should print 3 lines, got {len(lines)}:\n{out}"
    assert lines[0] == '[1] wordcount {"text": "a b"} -> 2', (
        f"line 1 should read '[1] wordcount {{\"text\": \"a b\"}} -> 2', got {lines[0]!r}")
    assert lines[1] == '[2] calculator {"x": 1} -> ' + "z" * 80, (
        "line 2 should show the observation cut to its first 80 characters")
    assert lines[2] == "[3] answer", f"the last iteration should print '[3] answer': {lines[2]!r}"


def test_quiet_by_default_prints_nothing(ex, capsys):
    answer, out = run(ex, False, capsys)
    assert answer == "Done." and out == "", f"verbose=False should print nothing, printed {out!r}"
