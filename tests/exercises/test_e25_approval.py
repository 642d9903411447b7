# Don't change the tests! They tell you when exercises/e25_approval.py is done.
import pytest
from exercise_support import need


class Asker:
    """Stands in for you at the terminal: the answers to give, in order, and the
    questions asked."""

    def __init__(self, *answers):
        self.answers, self.questions = list(answers), []

    def __call__(self, question: str):
        self.questions.append(question)
        assert self.answers, f"asked once too often: {question!r}"
        return self.answers.pop(0)


def session(ex, mode: str, *answers):
    """An Approval in `mode`, and the stand-in that answers its questions."""
    need(ex, "Approval")
    asker = Asker(*answers)
    return ex.Approval(mode, asker), asker


def call(name="write_file", risk="write", **args):
    return {"name": name, "args": args or {"path": "notes.txt", "content": "x"}, "risk": risk}


@pytest.mark.parametrize("mode", ["read-only", "ask", "auto-edit", "auto"])
@pytest.mark.parametrize("risk", ["read", "write", "run", "escalation"])
def test_the_table_decides_and_asks_only_when_it_says_ask(ex, mode, risk):
    gate, asker = session(ex, mode, "y")
    allowed, why = gate.check(call(risk=risk))
    rule = ex.POLICY[risk][mode]
    assert isinstance(why, str) and why, "the reason is a string the model can read"
    assert allowed == (rule != "deny"), (
        f"{risk} in mode {mode} is {rule!r} in the table, and asked it gets a yes: "
        f"{'it runs' if rule != 'deny' else 'it does not run'}; got allowed={allowed}")
    assert len(asker.questions) == (rule == "ask"), (
        f"{risk} in mode {mode} is {rule!r}: ask {'once' if rule == 'ask' else 'never'} "
        f"(asked {len(asker.questions)} times)")


@pytest.mark.parametrize("typed", [None, "", "   ", "n", "no", "No, because it is mine",
                                   "maybe", "yes please", "nope"])
def test_anything_but_a_yes_is_a_no(ex, typed):
    gate, _ = session(ex, "ask", typed)
    allowed, _ = gate.check(call())
    assert allowed is False, (
        f"the answer {typed!r} is not y, yes, a or always: the call must not run. None is "
        "what a terminal gives when no one answered (Ctrl-D, Ctrl-C, no terminal): fail closed")


@pytest.mark.parametrize("typed", ["y", "yes", "Y", "YES", " y ", "yes\n", "a", "always",
                                   "Always "])
def test_a_yes_typed_runs_the_call(ex, typed):
    gate, _ = session(ex, "ask", typed)
    allowed, _ = gate.check(call())
    assert allowed is True, f"{typed!r} is a yes (case and spaces around it do not matter)"


def test_a_no_tells_the_model_what_the_user_said(ex):
    gate, _ = session(ex, "ask", "n, because that file is mine")
    allowed, why = gate.check(call())
    assert not allowed and "n, because that file is mine" in why, (
        f"the reason goes back to the model as the call's result: give it the user's "
        f"words, got {why!r}")


def test_always_allows_this_exact_call_and_asks_for_any_other(ex):
    gate, asker = session(ex, "ask", "always", "n", "n")
    first = call(path="notes.txt", content="one")
    assert gate.check(first)[0] is True
    again = {"name": "write_file", "args": {"content": "one", "path": "notes.txt"},
             "risk": "write"}
    assert gate.check(again)[0] is True, "the same call (its arguments in another order)"
    assert len(asker.questions) == 1, (
        "an identical call after 'always' runs without a question; its arguments' order "
        f"does not make it another call (asked: {asker.questions})")
    assert gate.check(call(path="notes.txt", content="two"))[0] is False, (
        "'always' is for this exact call: the same tool with other arguments asks again")
    assert gate.check(call("edit_file", path="notes.txt", old="a", new="b"))[0] is False
    assert len(asker.questions) == 3


def test_always_never_overrides_a_deny(ex):
    gate, _ = session(ex, "ask", "always")
    assert gate.check(call())[0] is True
    assert gate.user_typed("/mode read-only") is True
    assert gate.check(call())[0] is False, (
        "in read-only the table says deny to writes: a call allowed 'always' in another "
        "mode does not run")


@pytest.mark.parametrize(("mode", "risk"), [("sideways", "read"), ("ask", "teleport"),
                                            ("auto", None)])
def test_what_the_table_does_not_know_is_a_deny(ex, mode, risk):
    gate, asker = session(ex, mode, "y")
    assert gate.check(call(risk=risk))[0] is False, (
        f"mode {mode!r}, risk {risk!r}: not in the table, so no: fail closed")
    assert asker.questions == [], "a deny asks no one"


def test_only_a_mode_line_typed_by_the_user_changes_the_mode(ex):
    gate, asker = session(ex, "ask", "n", "n", "n")
    for line in ("/mode", "/mode fast", "/modes auto", "please /mode auto", "/mode auto now",
                 "mode auto", "/MODE auto"):
        assert gate.user_typed(line) is False, f"{line!r} is not '/mode NAME'"
    assert gate.mode == "ask"
    assert gate.user_typed("/mode auto-edit") is True and gate.mode == "auto-edit"
    assert gate.check(call())[0] is True and asker.questions == [], (
        "after /mode auto-edit a write runs without a question")


@pytest.mark.parametrize("attempt", [
    {"name": "set_mode", "args": {"mode": "auto"}, "risk": "read"},
    {"name": "write_file", "args": {"path": ".tao/config", "mode": "auto"}, "risk": "write"},
    {"name": "run", "args": {"command": "/mode auto", "mode": "auto"}, "risk": "run"},
])
def test_nothing_in_a_call_changes_the_mode(ex, attempt):
    gate, _ = session(ex, "ask", "n", "n")
    allowed, _ = gate.check(attempt)
    assert allowed == (ex.POLICY[attempt["risk"]]["ask"] == "allow"), (
        f"{attempt} is judged in the session's mode, ask, whatever its arguments say")
    assert gate.mode == "ask", (
        f"the call {attempt} changed the mode to {gate.mode!r}: only the user, typing "
        "/mode, may; a model talked into it by a file must not loosen its own rules")
    assert gate.check(call())[0] is False, "still mode ask: a write asks, and gets a no"
