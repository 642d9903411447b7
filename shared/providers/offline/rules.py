"""The offline model's rules: what it does, decided by the first rule that applies.

    when ...                                   the model ...
    a planned call is ready to make            calls it (all of them, natively)
    results are in, a summary is wanted        summarises what was done and is missing
    results are in                             answers from them
    a call lacks a required argument           asks the user for it
    otherwise                                  talks back, saying what it can do

A summary is wanted when no tool is offered any more (a loop's last, tool-less call)
or the system prompt or the user asks for one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..base import ToolCall
from . import writing
from .conversation import Situation, wants_summary


@dataclass
class Draft:
    """The reply the rules decided, before any quirk spoils it."""

    text: str
    calls: list[ToolCall] = field(default_factory=list)
    call_line: bool = False  # the text is a JSON-line tool call (stages 04-06)


def call_tools(s: Situation) -> Draft:
    """Native: every ready call in one reply. JSON line: the first one, as one line."""
    ready = s.pending()
    if not s.native:
        line = json.dumps({"tool": ready[0].tool, "args": ready[0].args}, ensure_ascii=False)
        return Draft(line, call_line=True)
    calls = [ToolCall(f"offline_call_{s.calls_so_far + i}", need.tool, dict(need.args))
             for i, need in enumerate(ready, start=1)]
    names = list(dict.fromkeys(call.name for call in calls))
    return Draft(f"I'll use {' and '.join(names)}.", calls)


def has_ready_call(s: Situation) -> bool:
    """A planned call has all its arguments and no good result yet."""
    return bool(s.pending())


def has_results(s: Situation) -> bool:
    """Tool results came in since the request."""
    return bool(s.turn)


def lacks_arguments(s: Situation) -> bool:
    """A planned call needs an argument the request does not give."""
    return any(need.missing for need in s.plan)


def always(s: Situation) -> bool:
    """The last rule's condition: it always applies."""
    return True


def _text(write):
    """A rule action that writes plain text with `write(situation)`."""
    return lambda s: Draft(write(s))


# (when this holds, the model does this): the first match decides. To add a rule, write
# a condition `(Situation) -> bool` and an action `(Situation) -> Draft`, and put the
# pair where it should win over the rules below it.
RULES = (
    (has_ready_call, call_tools),
    (wants_summary, _text(writing.summary)),
    (has_results, _text(writing.answer)),
    (lacks_arguments, _text(writing.ask)),
    (always, _text(writing.chat)),
)


def decide(s: Situation) -> Draft:
    """The reply of the first rule whose condition holds."""
    return next(action(s) for when, action in RULES if when(s))
