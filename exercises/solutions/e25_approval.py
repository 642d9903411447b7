"""Exercise 25 (stage 13): who decides, failing closed.

`Approval(mode, ask)` holds a session's approval rules. `check(call)` says whether a tool
call may run, and why: `call` is a dict {"name", "args", "risk"}, risk one of POLICY's.
- POLICY[risk][mode] decides: "allow" runs, "deny" does not, "ask" asks. A mode or a risk
  the table does not know is a "deny".
- To ask, call `ask(question)` once (question: any text naming the call). It returns what
  the user typed, or None when no one answered (no terminal, end of input, Ctrl-C).
  "y" or "yes" runs the call; "a" or "always" runs it and allows this exact call (the
  same name and the same args, in any key order) for the rest of the session, without
  asking again; case and spaces around the answer do not matter. Anything else is a no:
  None, "", "no", "maybe". Never a yes that was not typed.
- An "always" never overrides a "deny" of the table.
The reason is a string: for a no, it holds what the user typed, so the model can read it.
Only the user changes the mode: `user_typed(line)` gets each line typed at the prompt,
and a line "/mode NAME" (NAME a mode of MODES) sets it and returns True; any other line
returns False. Nothing in a call (its name or its args) ever changes the mode.

    Approval("ask", ask=lambda q: "y").check({"name": "run", "args": {}, "risk": "run"})
    # -> (True, ...)

Try it: `uv run stages/13_approval_audit/main.py`, ask to write a file, answer `a`.
"""

import json

MODES = ("read-only", "ask", "auto-edit", "auto")  # Don't change this line
POLICY = {  # Don't change this table
    "read": {"read-only": "allow", "ask": "allow", "auto-edit": "allow", "auto": "allow"},
    "write": {"read-only": "deny", "ask": "ask", "auto-edit": "allow", "auto": "allow"},
    "run": {"read-only": "deny", "ask": "ask", "auto-edit": "ask", "auto": "allow"},
    "escalation": {"read-only": "deny", "ask": "ask", "auto-edit": "ask", "auto": "ask"},
}


class Approval:
    """A session's approval: the user's mode, who is asked, what is allowed always."""

    def __init__(self, mode: str, ask):  # Don't change this method
        self.mode, self.ask, self.always = mode, ask, set()

    def check(self, call: dict) -> tuple[bool, str]:
        """(may `call` run, why): the table, else the answer to one question."""
        rule = POLICY.get(call.get("risk"), {}).get(self.mode, "deny")  # unknown: no
        if rule != "ask":
            return rule == "allow", f"mode {self.mode}: {rule}"
        exact = json.dumps([call.get("name"), call.get("args")], sort_keys=True)
        if exact in self.always:  # this call, not this tool
            return True, "allowed always"
        typed = self.ask(f"{call.get('risk')}: {call.get('name')} {call.get('args')}?")
        word = (typed or "").strip().lower()
        if word in ("a", "always"):
            self.always.add(exact)
        return word in ("y", "yes", "a", "always"), f"the user said: {typed}"

    def user_typed(self, line: str) -> bool:
        """Whether `line`, typed at the prompt, was a /mode command (then it is applied)."""
        words = line.split()
        if len(words) == 2 and words[0] == "/mode" and words[1] in MODES:
            self.mode = words[1]
            return True
        return False
