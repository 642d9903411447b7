"""Who decides: each call has a risk, the user picks a mode, and a table says what runs.

The loop calls `Approval.check(call)` before every call: POLICY[risk][mode] says allow,
deny or ask; to ask, it puts the question to an approver, any object with `who` and one
method, `answer(call, question) -> str` (you, a script, no one; a debugger could pause
there). No terminal, end of input or Ctrl-C is a no. Only `/mode`, typed by the user,
changes the mode: no tool holds it, and nothing the model reads.
"""

import json
import re
from dataclasses import dataclass, field

import shell
import workspace
from tools import READ_ONLY, find_tool

from shared.trace import SILENT

MODES = ("read-only", "ask", "auto-edit", "auto")
# what each mode does with each risk of call: data, like stage 09's GATES
POLICY = {
    "read": {"read-only": "allow", "ask": "allow", "auto-edit": "allow", "auto": "allow"},
    "write": {"read-only": "deny", "ask": "ask", "auto-edit": "allow", "auto": "allow"},
    "run": {"read-only": "deny", "ask": "ask", "auto-edit": "ask", "auto": "allow"},
    "escalation": {"read-only": "deny", "ask": "ask", "auto-edit": "ask", "auto": "ask"},
}
CUT = re.compile(r"\[cut at \d+|bytes elided|more matching lines not shown\]")  # tools' marks


def risk_of(call) -> str:
    """read, write, run, or escalation: a call that asks for more than a wall gives."""
    if call.name == "run":  # no wall: only a person may let a command through
        return "run" if shell.WALL else "escalation"
    if find_tool(call.name) is None or call.name in READ_ONLY or not isinstance(call.args, dict):
        return "read"  # it changes nothing, or cannot run; the path check still holds
    try:
        workspace.inside(call.args.get("path"), write=True)
    except workspace.Refused:  # out of the workspace, or into .git/ or .tao/
        return "escalation"
    return "write"


@dataclass
class Decision:
    """Whether one call may run, its risk, who said so and why (a no goes to the model)."""

    allowed: bool
    risk: str
    by: str  # "policy", "user" or "script"
    reason: str
    before: dict = field(default_factory=dict)  # the files it names, hashed before it runs


@dataclass
class Approval:
    """The session's rules: the user's mode, who is asked, the calls allowed always, the log."""

    approver: object
    mode: str
    log: object  # shared/audit.py's AuditLog: each call's line, and its files' hashes
    always: set[str] = field(default_factory=set)  # exact calls as JSON, not tool names
    turn: int = 0

    def check(self, call, trace=SILENT) -> Decision:
        """May `call` run? The table says, or the approver is asked (the trace shows it)."""
        risk, before = risk_of(call), self.log.hashes(call.args)
        rule = POLICY[risk][self.mode]
        if rule != "ask":
            return Decision(rule == "allow", risk, "policy", f"mode {self.mode} says {rule} to "
                            f"{risk} calls; only the user changes the mode", before)
        exact = json.dumps([call.name, call.args], sort_keys=True)
        if exact in self.always:
            return Decision(True, risk, self.approver.who, "allowed always, this session", before)
        question = f"{risk} in mode {self.mode}: {call.name} {json.dumps(call.args)}"
        trace.note(f"approval asked · {question}")
        answer = self.approver.answer(call, question).strip() or "no"
        word = answer.split()[0].lower().strip(",.:")
        if word in ("a", "always"):
            self.always.add(exact)
        return Decision(word in ("y", "yes", "a", "always"), risk, self.approver.who,
                        f"the {self.approver.who} said: {answer}", before)

    def record(self, call, decision: Decision, result: str, seconds: float) -> None:
        """One audit line: the call, the decision, and what running it did."""
        code = re.match(r"exit (-?\d+)", result) if call.name == "run" else None
        self.log.write(
            turn=self.turn, call=call.id, tool=call.name, args=call.args, risk=decision.risk,
            mode=self.mode, decision="allow" if decision.allowed else "deny", by=decision.by,
            reason=decision.reason, wall=(shell.WALL.name if shell.WALL else "NOT CONFINED")
            if call.name == "run" and decision.allowed else None, exit=code and int(code[1]),
            ms=round(seconds * 1000), bytes=len(result.encode()), cut=bool(CUT.search(result)),
            files={p: [h, self.log.hashes(call.args).get(p)] for p, h in decision.before.items()})

    def switch(self, words: list[str]) -> str:
        """The user typed `/mode NAME`: the mode changes, and the log says who changed it."""
        if len(words) == 1 and words[0] in MODES:
            self.log.write(event="mode", mode=words[0], was=self.mode, by="user")
            self.mode = words[0]
        return f"mode: {self.mode} (/mode {'|'.join(MODES)} changes it)"


class Terminal:
    """You, at the keyboard. No terminal, end of input (Ctrl-D) or Ctrl-C is a no."""

    who = "user"

    def answer(self, call, question: str) -> str:
        """What you type: y(es), n(o) and why, or a(lways): this exact call, this session."""
        from shared.question import ask  # the keyboard's mechanics, loaded when first asked

        typed = ask("  allow? y(es) / n(o), because ... / a(lways) this call: ")
        return (typed if typed is not None
                else "no, because no one answered (no terminal, Ctrl-D or Ctrl-C)")


class Script:
    """Answers from a list, in order (tests, `tao drill`); with none left, no."""

    who = "script"

    def __init__(self, answers: list, otherwise: str = "no, because the script ran out"):
        self.answers, self.otherwise = list(answers), otherwise

    def answer(self, call, question: str) -> str:
        """The next answer, whatever the question."""
        return str(self.answers.pop(0)) if self.answers else self.otherwise
