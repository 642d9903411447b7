"""The offline model's rules: a table of (when, what the model does); the first rule
whose condition holds decides the reply. RULES, at the bottom, reads as the model's
whole behaviour.

To add a rule: write a condition `(Situation) -> bool` and an action
`(Situation) -> Draft`, and put the pair into RULES above the rules it should win over.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..base import ToolCall
from . import writing
from .conversation import Situation, asks_what_it_said, wants_summary
from .planning import Need, likeliest


@dataclass
class Draft:
    """The reply the rules decided, before any quirk spoils it."""

    text: str
    calls: list[ToolCall] = field(default_factory=list)
    call_line: bool = False  # the text is a JSON-line tool call (stages 04-06)


def call_tools(s: Situation) -> Draft:
    """The ready calls: natively all in one reply, as a JSON line only the first."""
    return _calls(s, s.pending())


def call_anyway(s: Situation) -> Draft:
    """A call the API demands (tool_choice): the planned one, else the likeliest tool,
    with whatever arguments the request gives."""
    return _calls(s, s.plan[:1] or [likeliest(s.request, s.catalogue)])


def _calls(s: Situation, needs: list[Need]) -> Draft:
    """Native: the calls, announced in one sentence on a turn's first reply only (a
    follow-up call goes out with no text, as real models often send). JSON: one line."""
    if not s.native:
        line = json.dumps({"tool": needs[0].tool, "args": needs[0].args}, ensure_ascii=False)
        return Draft(line, call_line=True)
    calls = [ToolCall(f"offline_call_{s.calls_so_far + i}", need.tool, dict(need.args))
             for i, need in enumerate(needs, start=1)]
    names = writing.say(s.lang, "and").join(dict.fromkeys(call.name for call in calls))
    return Draft("" if s.turn else writing.say(s.lang, "will_use", tools=names), calls)


def has_ready_call(s: Situation) -> bool:
    """A planned call has all its arguments and no good result yet."""
    return bool(s.pending())


def is_forced(s: Situation) -> bool:
    """tool_choice demands a call ("required", or a tool's name)."""
    return s.forced


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


RULES = (
    # (when ..., the model ...)
    (asks_what_it_said, _text(writing.recall)),  # tells again what a tool said before
    (has_ready_call, call_tools),             # calls the tools (all in one reply, natively)
    (is_forced, call_anyway),                 # calls a tool because the API says it must
    (wants_summary, _text(writing.summary)),  # sums up what was done and what is missing
    (has_results, _text(writing.answer)),     # answers from the results
    (lacks_arguments, _text(writing.ask)),    # asks the user for the arguments it lacks
    (always, _text(writing.chat)),            # talks back, saying what it can do
)


def decide(s: Situation) -> Draft:
    """The reply of the first rule whose condition holds."""
    return next(action(s) for when, action in RULES if when(s))
