"""The offline model: a few rules standing in for a language model, so every stage runs
with no key and no network. It is not clever, and says so.

It reads what a real model reads: the system prompt (the tools a JSON-line protocol
lists), the native `tools`, and the conversation (conversation.py). It picks tools by
the words they share with the request, except where words mislead: arithmetic said in
words is arithmetic, and "that" or "the sentence I gave you" mean what they point at
(words.py, planning.py). It fills arguments from the schema, then the first rule that
applies decides the reply (rules.py), in words from writing.py. A quirk, if chosen,
spoils that reply in one place (quirks.py). The package has a line budget
(tests/test_offline_model.py): teach it a kind of request, not a sentence.

A learner's own tool needs no change here: a good name and description are enough.
Asked in French, it reads the request with the same rules (words.py knows the French
words for what tools do) and answers in French (writing.TEXT has every sentence twice).

To change what it does, add a rule to the table in rules.py (its docstring says how).
To teach it a new kind of argument, add an entry to planning.FILLERS; to tell a kind
of result in its own words, add a line to writing.TOLD_AS.

Settings: TAO_OFFLINE_QUIRK (one of QUIRKS) and TAO_OFFLINE_DELAY (seconds per delta).
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...language import say
from ..base import NO_OPTIONS, Options, Provider, ProviderError, Reply, Tool
from ..defaults import DEFAULT_MODELS
from .quirks import QUIRKS, apply_quirk, obey_planted

if TYPE_CHECKING:
    from .rules import Draft

__all__ = ["QUIRKS", "OfflineProvider"]

DELTA = re.compile(r"\s*\S{1,12}\s*|\s+")  # word-sized text deltas, long words in pieces
MAX_DELAY = 10.0  # seconds per delta; more is a typo, not a wish
CHARS_PER_TOKEN = 4  # the usual rough estimate for English text


class OfflineProvider(Provider):
    """The built-in rule-based model, named as such on screen."""

    name = "offline"

    def __init__(self, model: str | None = None, *, quirk: str | None = None,
                 delay: float | None = None):
        self.model = model or DEFAULT_MODELS["offline"]
        self.quirk = _chosen_quirk(quirk)
        self.delay = _chosen_delay(delay)
        self.calls_made = 0  # call ids count on over the session: none is given twice

    def describe(self) -> str:
        """One line for the screen: which model answers, and its quirk."""
        extra = say(" with the {quirk} quirk", quirk=self.quirk) if self.quirk else ""
        return say("offline, the built-in rule-based model") + extra

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Decide the reply by the rules, stream its text in small deltas, then the Reply."""
        # imported here: the rules compile their word patterns (both languages') on the
        # first reply, not whenever `tao` or a stage starts and imports the providers
        from .conversation import read_situation
        from .rules import Draft, decide

        if self.quirk == "gullible":  # a planted line, read in a tool result, becomes a request
            messages = obey_planted(messages)
        usable = _allowed(tools, options.tool_choice)
        forced = options.tool_choice not in (None, "auto", "none")  # "required", or a name
        situation = read_situation(messages, system or "", usable, forced)
        situation.calls_so_far = max(situation.calls_so_far, self.calls_made)  # a cut history
        draft = apply_quirk(self.quirk, decide(situation), first_try=not situation.turn,
                            tool_names=situation.catalogue)
        self.calls_made = situation.calls_so_far + len(draft.calls)
        stop_reason = "tool_use" if draft.calls else "end_turn"
        cut = _stop_at(draft.text, options.stop)
        if cut is not None:  # a stop sequence ends the reply where it would begin
            draft = Draft(draft.text[:cut], [])
            stop_reason = "stop_sequence"
        for piece in DELTA.findall(draft.text):
            if self.delay:
                time.sleep(self.delay)
            yield piece
        yield Reply(draft.text, draft.calls, stop_reason,
                    estimate_usage(messages, system or "", tools, draft))


def _allowed(tools: tuple[Tool, ...], choice: str | None) -> tuple[Tool, ...]:
    """The tools this call may use: none for "none", only the named one when one is named
    ("auto" and "required" leave them all; "required" and a name also force a call)."""
    if choice == "none":
        return ()
    if choice in (None, "auto", "required"):
        return tools
    return tuple(t for t in tools if t.name == choice)


def _stop_at(text: str, stop: tuple[str, ...]) -> int | None:
    """Where the first stop sequence begins in `text`, or None if none occurs."""
    found = [text.find(s) for s in stop if s and s in text]
    return min(found) if found else None


def estimate_usage(messages, system: str, tools, draft: Draft) -> dict:
    """Token counts estimated as characters / 4, marked as estimates."""
    sent = len(system) + sum(len(_as_text(m)) for m in messages)
    sent += sum(len(f"{t.name}{t.description}{json.dumps(t.schema, default=str)}")
                for t in tools)
    written = len(draft.text) + sum(len(c.name + json.dumps(c.args)) for c in draft.calls)
    return {"input_tokens": math.ceil(sent / CHARS_PER_TOKEN),
            "output_tokens": math.ceil(written / CHARS_PER_TOKEN), "estimated": True}


def _as_text(message: dict) -> str:
    """The characters of a message a model would read: its content and its calls."""
    calls = message.get("tool_calls") or []
    return str(message.get("content") or "") + "".join(
        str(c.get("name", "")) + json.dumps(c.get("args"), default=str) for c in calls)


def _chosen_quirk(quirk: str | None) -> str | None:
    """The quirk from the argument, else TAO_OFFLINE_QUIRK; a clear error if unknown."""
    source = "quirk"
    if quirk is None:
        quirk, source = os.environ.get("TAO_OFFLINE_QUIRK") or None, "TAO_OFFLINE_QUIRK"
    if quirk is not None and quirk not in QUIRKS:
        raise ProviderError(f"offline: {source}={quirk!r} is an unknown quirk: "
                            f"choose one of {', '.join(QUIRKS)}")
    return quirk


def _chosen_delay(delay: float | None) -> float:
    """Seconds per delta from the argument, else TAO_OFFLINE_DELAY; a clear error if bad."""
    source, raw = "delay", delay
    if delay is None:
        source, raw = "TAO_OFFLINE_DELAY", os.environ.get("TAO_OFFLINE_DELAY") or "0"
    try:
        seconds = float(raw)
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0 <= seconds <= MAX_DELAY:  # also refuses nan
        raise ProviderError(f"offline: {source}={raw!r} is not a delay: use a number of "
                            f"seconds from 0 to {MAX_DELAY:g}, such as 0.05")
    return seconds
